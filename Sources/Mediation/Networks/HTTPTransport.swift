import Foundation

/// The seam between the engine and HTTP: what a network adapter (and the remote configuration's
/// check) sends, ``Request``, and gets back, ``Response``, through a ``Transport``, which throws
/// a ``TransportError`` when no response arrives. ``SystemTransport`` is the production
/// transport; ``OriginLockedTransport`` keeps a network's requests on its origin (engine rule
/// R17).
package enum HTTP {}

extension HTTP {
    /// One HTTP request, as a network adapter builds it.
    package struct Request: Hashable, Sendable {
        /// `GET`, `POST` …
        public var method: String
        /// The full URL.
        public var url: URL
        /// Header fields.
        public var headers: [String: String]
        /// The body, if any.
        public var body: Data?

        /// Creates a request.
        public init(method: String = "GET", url: URL, headers: [String: String] = [:], body: Data? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }
}

extension HTTP {
    /// One HTTP response.
    package struct Response: Hashable, Sendable {
        /// The status code, e.g. 200, 204, 404.
        public var statusCode: Int
        /// Header fields (names as the server sent them).
        public var headers: [String: String]
        /// The body (empty when there is none).
        public var body: Data

        /// Creates a response.
        public init(statusCode: Int, headers: [String: String] = [:], body: Data = Data()) {
            self.statusCode = statusCode
            self.headers = headers
            self.body = body
        }

        /// A JSON response with status 200 (or `statusCode`).
        public static func json(_ body: Data, statusCode: Int = 200) -> Response {
            Response(statusCode: statusCode, headers: ["Content-Type": "application/json"], body: body)
        }
    }
}

extension HTTP {
    /// Why a request got no HTTP response.
    package struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The broad cause.
        package enum Kind: String, Hashable, Sendable, CaseIterable {
            /// The host could not be reached (refused, DNS, TLS, connection lost).
            case connection
            /// The request was cancelled (the auction ended or its deadline passed).
            case cancelled
            /// The transport's own backstop timeout fired.
            case timedOut
            /// The request could not be built or sent (bad URL, unsupported scheme), or its URL is
            /// not on the origin its transport is locked to (``OriginLockedTransport``).
            case invalidRequest
            /// The server answered with a redirect the transport does not follow (engine rule R17):
            /// one that leaves the request's origin, one to a URL that is not http(s), or one past
            /// the transport's limit on same-origin redirects. ``TransportError/status`` is the
            /// redirect's HTTP status; the message names the target's origin only (never its path
            /// or query, which may carry user data).
            case redirectRefused
            /// The response body was larger than the transport accepts (announced or received).
            case responseTooLarge
        }

        /// The broad cause.
        public var kind: Kind
        /// What happened, for a person (never a full URL: at most an origin).
        public var message: String
        /// The HTTP status of the response that caused the error, when there was one (the
        /// redirect's status for ``Kind/redirectRefused``).
        public var status: Int?

        /// Creates an error.
        /// - Parameters:
        ///   - kind: the broad cause.
        ///   - message: what happened.
        ///   - status: the HTTP status involved, if any (default none).
        public init(kind: Kind, message: String, status: Int? = nil) {
            self.kind = kind
            self.message = message
            self.status = status
        }

        /// `kind: message`.
        public var description: String { "\(kind.rawValue): \(message)" }
    }
}

extension HTTP {
    /// The seam between a network adapter and HTTP. Two ship with the library:
    /// ``SystemTransport`` (production) and `SandboxTransport` (in-process simulated servers);
    /// tests use either with a loopback server or a fake. A host may pass its own through
    /// ``MediationEnvironment/transport``.
    ///
    /// Contract: return any HTTP status as a response (status handling is the adapter's job);
    /// throw ``TransportError`` only when there is no response; when the calling task is
    /// cancelled, throw `.cancelled` promptly without waiting for the network. Never follow a
    /// redirect off the origin of the request's URL (``OriginLockedTransport/Origin``; engine rule
    /// R17): answer it as ``TransportError/Kind/redirectRefused`` with the redirect's status.
    package protocol Transport: Sendable {
        /// Sends `request` and returns the server's response.
        /// - Throws: ``TransportError`` when no response arrives.
        func send(_ request: Request) async throws(TransportError) -> Response
    }
}

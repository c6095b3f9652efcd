import Foundation

extension HTTP {
    /// The production transport: the system's HTTP client, libcurl on Linux (driven on a thread
    /// of its own, ``CurlLoop``) and `URLSession` on Apple platforms.
    ///
    /// Linux does not use FoundationNetworking's `URLSession`: a server that sends a status line
    /// and closes the connection makes it stop the process ("Transfer completed, but there's no
    /// response"), and its cancellation and timeouts have known faults. No byte sequence from a
    /// server reaches that code: every malformed response is a ``TransportError``.
    ///
    /// The engine never relies on the client for its deadline or cancellation: when the calling
    /// task is cancelled this transport answers `.cancelled` at once (on Linux the transfer is
    /// dropped too). The client's own timeout is only a backstop against leaked connections.
    ///
    /// Network input is untrusted (engine rules R16, R17):
    /// - a response body larger than `maximumResponseBytes` (announced or received, after
    ///   decompression) is cut off and answered as a `.responseTooLarge` error, so a lying server
    ///   cannot make the host buffer (or, on Linux, inflate) hundreds of megabytes;
    /// - a redirect is followed only when it stays on the origin (scheme, host and port) of the
    ///   request's URL, and at most `maximumRedirects` times per request; any other redirect is
    ///   answered as a `.redirectRefused` error carrying the redirect's status and naming only the
    ///   target's origin. Combined with ``OriginLockedTransport``, a network's requests never
    ///   leave its configured origin;
    /// - a response header value that is not UTF-8 is read as Latin-1, never a failure.
    ///
    /// Responses compressed with `gzip` or `deflate` (and on Linux `br`, `zstd`) are decompressed.
    package final class SystemTransport: Transport {
        private let limits: Limits
        #if !os(Linux)
        private let client: URLSessionClient
        #endif

        /// The transport the standard networks use when the environment supplies none
        /// (``MediationEnvironment/transport`` is `nil`): one for the process.
        package static let shared = SystemTransport()

        /// The most same-origin redirects a request follows by default: 3.
        public static let defaultMaximumRedirects = 3

        /// Creates a transport.
        /// - Parameters:
        ///   - backstopTimeout: the longest a request may take, in seconds, redirects included: a
        ///     safety net far beyond any auction deadline (default 30 s).
        ///   - maximumResponseBytes: the largest response body accepted, in bytes (default 8 MiB,
        ///     above the largest creative bundle a network documents: Qartvelo's 2 MB).
        ///   - maximumRedirects: the most same-origin redirects followed per request (default
        ///     ``defaultMaximumRedirects``, 3); the next one is refused.
        ///   - userAgent: the `User-Agent` of a request that sets none (default: none on Linux,
        ///     the platform's on Apple platforms).
        public init(backstopTimeout: TimeInterval = 30, maximumResponseBytes: Int = 8 << 20, maximumRedirects: Int = SystemTransport.defaultMaximumRedirects, userAgent: String? = nil) {
            limits = Limits(
                backstopTimeout: backstopTimeout.isFinite ? min(max(backstopTimeout, 0.001), 86_400) : 30,
                maximumResponseBytes: max(0, maximumResponseBytes),
                maximumRedirects: max(0, maximumRedirects),
                userAgent: userAgent
            )
            #if !os(Linux)
            client = URLSessionClient(limits: limits)
            #endif
        }

        /// Sends `request`.
        /// - Throws: ``TransportError`` `.connection` when no complete response came (refused,
        ///   DNS, TLS, reset, a malformed or cut-off response, bad compression), `.cancelled` when
        ///   the calling task was cancelled, `.timedOut` when the backstop fired,
        ///   `.redirectRefused` for a redirect off the request's origin or past the limit,
        ///   `.responseTooLarge` for a body over the limit, `.invalidRequest` for a URL that is
        ///   not http(s) or a method or header field that cannot be sent.
        public func send(_ request: Request) async throws(TransportError) -> Response {
            guard let origin = OriginLockedTransport.Origin(request.url) else {
                throw TransportError(kind: .invalidRequest, message: "not an http(s) URL with a host")
            }
            // Schemes are case-insensitive (RFC 3986): the request goes out with the origin's
            // lowercased scheme (Linux's URLSession answered `HTTP://` with "unsupported URL").
            var request = request
            if request.url.scheme != origin.scheme, var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) {
                components.scheme = origin.scheme
                request.url = components.url ?? request.url
            }
            #if os(Linux)
            let result = await CurlLoop.shared.send(request, origin: origin, limits: limits)
            #else
            let result = await client.send(request, origin: origin)
            #endif
            switch result {
            case .success(let response): return response
            case .failure(let error): throw error
            }
        }

        /// A transport's bounds, fixed at its creation.
        struct Limits: Sendable {
            /// The longest a request may take, redirects included, in seconds.
            var backstopTimeout: TimeInterval
            /// The largest response body accepted, in bytes.
            var maximumResponseBytes: Int
            /// The most same-origin redirects followed per request.
            var maximumRedirects: Int
            /// The `User-Agent` of a request that sets none.
            var userAgent: String?

            /// The error of a body over the limit: `announced` is the size the server gave.
            func tooLarge(announced: Int64?, status: Int?) -> TransportError {
                let size = announced.map { " of \($0) bytes" } ?? ""
                return TransportError(kind: .responseTooLarge, message: "response body\(size) exceeds the \(maximumResponseBytes)-byte limit", status: status)
            }

            /// The error of a redirect that is not followed: off `origin` (to `target`, `nil` when
            /// it is not http(s)), or past the limit.
            func redirectRefused(status: Int, target: OriginLockedTransport.Origin?, origin: OriginLockedTransport.Origin) -> TransportError {
                if let target, target == origin {
                    return TransportError(kind: .redirectRefused, message: "HTTP \(status) redirect refused: more than \(maximumRedirects) redirects", status: status)
                }
                let place = target.map { "to \($0)" } ?? "to a URL that is not http(s)"
                return TransportError(kind: .redirectRefused, message: "HTTP \(status) redirect \(place) refused: it leaves \(origin)", status: status)
            }
        }
    }
}

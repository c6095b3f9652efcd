import Foundation

extension HTTP.OriginLockedTransport {
    /// An origin in the web's sense (RFC 6454): scheme, host and port. Two URLs are on the same
    /// origin when all three are equal; the path, query and user info do not count.
    ///
    /// Only `http` and `https` URLs with a host have an origin here. The scheme and host are kept
    /// lowercased (a trailing `.` of the host dropped), and the port is the URL's, else 80 for
    /// `http` and 443 for `https`.
    package struct Origin: Hashable, Sendable, CustomStringConvertible {
        /// `http` or `https`.
        public let scheme: String
        /// The host name or address, lowercased.
        public let host: String
        /// The port: the URL's, else the scheme's default.
        public let port: Int

        /// The origin of `url`, or `nil` when it is not an http(s) URL with a host (and, when it
        /// names a port, a port from 1 to 65535: `URL` parses `:99999`, which no request can reach).
        /// - Parameter url: any URL.
        public init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  var host = url.host?.lowercased(), !host.isEmpty
            else { return nil }
            if host.hasSuffix(".") { host.removeLast() }
            let port = url.port ?? (scheme == "https" ? 443 : 80)
            guard !host.isEmpty, (1...65535).contains(port) else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = port
        }

        /// Whether `url` is on this origin.
        /// - Parameter url: any URL.
        public func contains(_ url: URL) -> Bool {
            Origin(url) == self
        }

        /// `scheme://host:port`, e.g. `http://127.0.0.1:8080`: safe to log (no path, no query).
        public var description: String {
            "\(scheme)://\(host):\(port)"
        }
    }
}

extension HTTP {
    /// A network's transport, locked to the origin of its configured endpoint (engine rule R17):
    /// every request whose URL is not on that origin is refused before it is sent, with a
    /// ``TransportError/Kind/invalidRequest`` error naming both origins. The transport underneath
    /// keeps each request's redirects on the origin of its URL (``Transport``'s contract), so a
    /// network's requests never leave its origin, neither directly nor through a redirect.
    ///
    /// A network whose protocol gives URLs in its answers that the adapter itself fetches (tracking
    /// pings, creative bundles) sends those through a second lock with
    /// ``Reach/answerURLs(excludingHosts:)``: such a URL may be on another origin, but it must be
    /// http(s), carry no user info, and not name one of the excluded hosts (the in-process
    /// sandboxes' hosts), unless it is on the network's own origin.
    ///
    /// The standard adapters build their locks themselves from their endpoint, whatever transport
    /// they are given, so no configuration and no answer can route their requests elsewhere.
    package struct OriginLockedTransport: Transport {
        /// Which URLs besides the origin's the transport reaches.
        package enum Reach: Hashable, Sendable {
            /// The origin only: the network's API.
            case originOnly
            /// The origin, and http(s) URLs without user info on any host but `excludingHosts`
            /// (compared lowercased): URLs the network's answers give for the adapter to fetch.
            case answerURLs(excludingHosts: Set<String>)
        }

        /// The network's origin; `nil` when the endpoint is not an http(s) URL (then every request
        /// is refused).
        public let origin: Origin?
        /// What besides the origin is reached.
        public private(set) var reach: Reach
        private let base: any Transport

        /// Locks `base` to the origin of `endpoint`.
        /// - Parameters:
        ///   - base: the transport that sends the permitted requests.
        ///   - endpoint: the network's configured endpoint (its base URL).
        ///   - reach: what besides the origin may be reached (default the origin only).
        public init(_ base: any Transport, endpoint: URL, reach: Reach = .originOnly) {
            let origin = Origin(endpoint)
            // Locking a transport already locked to the same origin wraps it once, not twice.
            if let locked = base as? OriginLockedTransport, locked.origin == origin {
                self.base = locked.base
            } else {
                self.base = base
            }
            self.origin = origin
            self.reach = reach
        }

        /// The same transport and origin with another reach, e.g.
        /// ``Reach/answerURLs(excludingHosts:)`` for the tracking URLs a network's answers carry.
        /// - Parameter reach: what besides the origin the new lock reaches.
        public func reaching(_ reach: Reach) -> OriginLockedTransport {
            var copy = self
            copy.reach = reach
            return copy
        }

        /// Whether a request to `url` would be sent.
        /// - Parameter url: the request's URL.
        public func permits(_ url: URL) -> Bool {
            guard let target = Origin(url) else { return false }
            if target == origin { return true }
            switch reach {
            case .originOnly:
                return false
            case .answerURLs(let excluded):
                guard url.user == nil, url.password == nil else { return false }
                return !excluded.contains { $0.lowercased() == target.host }
            }
        }

        /// Sends `request` through the transport underneath when ``permits(_:)`` allows its URL.
        /// - Throws: ``TransportError`` `.invalidRequest` for a URL the lock does not permit
        ///   (nothing is sent), else whatever the transport underneath throws.
        public func send(_ request: Request) async throws(TransportError) -> Response {
            guard permits(request.url) else {
                let target = Origin(request.url).map { "\($0)" } ?? "a URL that is not http(s)"
                let own = origin.map { "\($0)" } ?? "(none: the endpoint is not an http(s) URL)"
                throw TransportError(kind: .invalidRequest, message: "request to \(target) refused: not the network's origin \(own)")
            }
            return try await base.send(request)
        }
    }
}

import Foundation

extension MediationEngine {
    /// Where and how the engine fetches its configuration from a server (engine rule R22): the
    /// URL of a signed configuration (``PublicKey``, `mediate config sign`), the keys
    /// the app trusts, the transport, and the bounds of its checks.
    ///
    /// How it checks, by the book of HTTP caching (`docs/remote-config.md`):
    /// - at launch the engine runs at once on the best local configuration (the cached one, else
    ///   the bundled one) and checks in the background: never waits on the network;
    /// - a check is a `GET` with `If-None-Match` (the last `ETag`); 304 keeps the configuration;
    /// - the next check is after the response's `Cache-Control: max-age`, kept within
    ///   ``minimumInterval`` ... ``maximumInterval`` (``defaultInterval`` without one);
    ///   `stale-while-revalidate` says how long past `max-age` the configuration still counts as
    ///   merely stale;
    /// - 429 and 503 wait for `Retry-After` (within the same bounds); any failure (no response, a
    ///   timeout, an HTTP error, a refused configuration) backs off exponentially from
    ///   ``minimumInterval`` to at most ``maximumBackoff``, with a jitter seeded per install;
    /// - back in the foreground, the engine checks at once if a check came due meanwhile; in the
    ///   background it does not check;
    /// - each response is bounded (``maximumBodyBytes``, the loader's limit), each request by
    ///   ``timeout``, and no request leaves the URL's origin (``HTTP/OriginLockedTransport``; the
    ///   transport must refuse redirects off the origin, as `HTTP.SystemTransport` does).
    public struct RemoteConfiguration: Sendable {
        /// The signed configuration's URL (http or https).
        public var url: URL
        /// The public keys the app trusts (several, for rotation), by id.
        public var trustedKeys: [PublicKey]
        /// The transport the requests go through: the system's
        /// (`HTTP.SystemTransport`, bounded to ``maximumBodyBytes``) unless a test gives its own.
        package var transport: any HTTP.Transport
        /// The shortest time between two checks (and the first back-off step); default 60 s.
        public var minimumInterval: Duration
        /// The longest time between two checks; default 24 h.
        public var maximumInterval: Duration
        /// The time between checks when the server sends no `max-age`; default 15 min.
        public var defaultInterval: Duration
        /// The longest back-off after failures; default 1 h.
        public var maximumBackoff: Duration
        /// How long a request may take before it counts as failed; default 10 s.
        public var timeout: Duration

        /// The largest response body accepted: 4 MiB, the loader's limit.
        public static let maximumBodyBytes = SignedConfiguration.maximumBytes

        /// Creates the remote configuration's settings, checked through the system's HTTP
        /// (bounded to ``maximumBodyBytes``, no redirect off the URL's origin). Bounds out of
        /// order are put in order: the minimum interval is at least 1 s, the maximum at least the
        /// minimum, the default and the back-off within them, the timeout at least 1 ms.
        /// - Parameters:
        ///   - url: the signed configuration's URL.
        ///   - trustedKeys: the keys the app trusts.
        ///   - minimumInterval: the shortest time between checks (default 60 s).
        ///   - maximumInterval: the longest time between checks (default 24 h).
        ///   - defaultInterval: the time between checks without `max-age` (default 15 min).
        ///   - maximumBackoff: the longest back-off (default 1 h).
        ///   - timeout: each request's timeout (default 10 s).
        public init(
            url: URL,
            trustedKeys: [PublicKey],
            minimumInterval: Duration = .seconds(60),
            maximumInterval: Duration = .seconds(86_400),
            defaultInterval: Duration = .seconds(900),
            maximumBackoff: Duration = .seconds(3600),
            timeout: Duration = .seconds(10)
        ) {
            self.init(
                url: url, trustedKeys: trustedKeys,
                transport: HTTP.SystemTransport(maximumResponseBytes: Self.maximumBodyBytes),
                minimumInterval: minimumInterval, maximumInterval: maximumInterval,
                defaultInterval: defaultInterval, maximumBackoff: maximumBackoff, timeout: timeout
            )
        }

        /// Creates the remote configuration's settings. Bounds out of order are put in order: the
        /// minimum interval is at least 1 s, the maximum at least the minimum, the default and the
        /// back-off within them, the timeout at least 1 ms.
        /// - Parameters:
        ///   - url: the signed configuration's URL.
        ///   - trustedKeys: the keys the app trusts.
        ///   - transport: the HTTP transport.
        ///   - minimumInterval: the shortest time between checks (default 60 s).
        ///   - maximumInterval: the longest time between checks (default 24 h).
        ///   - defaultInterval: the time between checks without `max-age` (default 15 min).
        ///   - maximumBackoff: the longest back-off (default 1 h).
        ///   - timeout: each request's timeout (default 10 s).
        package init(
            url: URL,
            trustedKeys: [PublicKey],
            transport: any HTTP.Transport,
            minimumInterval: Duration = .seconds(60),
            maximumInterval: Duration = .seconds(86_400),
            defaultInterval: Duration = .seconds(900),
            maximumBackoff: Duration = .seconds(3600),
            timeout: Duration = .seconds(10)
        ) {
            self.url = url
            self.trustedKeys = trustedKeys
            self.transport = transport
            self.minimumInterval = max(minimumInterval, .seconds(1))
            self.maximumInterval = max(maximumInterval, self.minimumInterval)
            self.defaultInterval = min(max(defaultInterval, self.minimumInterval), self.maximumInterval)
            self.maximumBackoff = min(max(maximumBackoff, self.minimumInterval), self.maximumInterval)
            self.timeout = max(timeout, .milliseconds(1))
        }
    }
}

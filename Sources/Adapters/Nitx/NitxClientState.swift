/// A snapshot of a Nitx client (Nitx seed, "Start": `Nitx.state()`: counters, mode, consent,
/// visitor id, profile keys).
public struct NitxClientState: Sendable, Hashable {
    /// The client's counters since it was created.
    public struct Counters: Sendable, Hashable {
        /// Config loads (`GET /api/ad-mobiles/show/{code}`) attempted.
        public var configLoads = 0
        /// Init calls (`GET /api/ad-mobiles/init/{code}`) made.
        public var initCalls = 0
        /// Ad requests received from the engine.
        public var adRequests = 0
        /// Requests sent with GET.
        public var getRequests = 0
        /// Requests sent with POST.
        public var postRequests = 0
        /// Ads returned.
        public var fills = 0
        /// No-fills returned.
        public var noFills = 0
        /// Failures returned.
        public var failures = 0
        /// Events queued.
        public var eventsQueued = 0
        /// Events sent in a successful batch.
        public var eventsSent = 0
        /// Identify calls discarded (an age under 16).
        public var identifyDiscarded = 0
        /// Forget requests sent.
        public var forgetRequests = 0
    }

    /// Whether the source's config has been loaded.
    public var started: Bool
    /// The source's status from its config, e.g. `active`, `pending_verification`.
    public var sourceStatus: String?
    /// The mode the next request uses.
    public var mode: NitxRequestMode
    /// The developer's override.
    public var modeOverride: NitxRequestModeOverride
    /// Whether the POST endpoint answered 404, 405 or 501 and the client fell back to GET.
    public var fellBackToGet: Bool
    /// `true` after consent(true), `false` after consent(false), `nil` when never asked.
    public var consent: Bool?
    /// The visitor id; `nil` with personalization off.
    public var visitorID: String?
    /// The profile's field names (hashes are not exposed), sorted.
    public var profileKeys: [String]
    /// Whether personalization is on.
    public var personalization: Bool
    /// The screen name set by the host.
    public var screenName: String?
    /// The counters.
    public var counters: Counters
}

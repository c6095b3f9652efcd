/// A snapshot of a Nitx client (Nitx seed, "Start": `Nitx.state()`: counters, mode, consent,
/// visitor id, profile keys).
package struct NitxClientState: Sendable, Hashable {
    /// The client's counters since it was created.
    package struct Counters: Sendable, Hashable {
        /// Config loads (`GET /api/ad-mobiles/show/{code}`) attempted.
        package var configLoads = 0
        /// Init calls (`GET /api/ad-mobiles/init/{code}`) made.
        package var initCalls = 0
        /// Ad requests received from the engine.
        package var adRequests = 0
        /// Requests sent with GET.
        package var getRequests = 0
        /// Requests sent with POST.
        package var postRequests = 0
        /// Ads returned.
        package var fills = 0
        /// No-fills returned.
        package var noFills = 0
        /// Failures returned.
        package var failures = 0
        /// Events queued.
        package var eventsQueued = 0
        /// Events sent in a successful batch.
        package var eventsSent = 0
        /// Forget requests sent.
        package var forgetRequests = 0
    }

    /// Whether the source's config has been loaded.
    package var started: Bool
    /// The source's status from its config, e.g. `active`, `pending_verification`.
    package var sourceStatus: String?
    /// The mode the next request uses.
    package var mode: NitxRequestMode
    /// The developer's override.
    package var modeOverride: NitxRequestModeOverride
    /// Whether the POST endpoint answered 404, 405 or 501 and the client fell back to GET.
    package var fellBackToGet: Bool
    /// The stored consent record: `false` after the host's withdrawal, `nil` when none (the
    /// engine offers no call that grants Nitx consent; a `true` comes from an earlier version's record).
    package var consent: Bool?
    /// The visitor id; `nil` with personalization off.
    package var visitorID: String?
    /// The profile's field names (hashes are not exposed), sorted.
    package var profileKeys: [String]
    /// Whether personalization is on.
    package var personalization: Bool
    /// The counters.
    package var counters: Counters
}

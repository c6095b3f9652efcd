/// What a network's adapter reports about itself for diagnostics (`mediate networks`): its
/// version, how it asks for ads, whether it is initialised, and the privacy it will apply to
/// requests built from the host's current ``RequestTemplate``. Every field is optional: an
/// adapter that does not implement ``AdNetworkAdapter/status(for:)`` reports nothing.
public struct NetworkStatus: Hashable, Sendable, Codable {
    /// The adapter's or SDK's version, e.g. `"1.0.0"` or `"ios-1.0.0"`.
    public var version: String?
    /// How it asks for ads right now, e.g. `"post"`, `"get (fell back after a 404)"`, `"bidder"`.
    public var mode: String?
    /// Its initialisation state, e.g. `"ready"`, `"config not loaded yet"`.
    public var initialization: String?
    /// The privacy it applies, by signal name (e.g. `"coppa": "1 (network option)"`,
    /// `"advertising_id": "not sent (limit ad tracking)"`), beyond the host's signals.
    public var privacy: [String: String]
    /// Anything else worth knowing, one sentence each.
    public var notes: [String]

    /// Creates a status; the defaults say nothing.
    public init(version: String? = nil, mode: String? = nil, initialization: String? = nil, privacy: [String: String] = [:], notes: [String] = []) {
        self.version = version
        self.mode = mode
        self.initialization = initialization
        self.privacy = privacy
        self.notes = notes
    }
}

extension AdNetworkAdapter {
    /// Reports nothing (every field empty).
    public func status(for template: RequestTemplate) async -> NetworkStatus {
        NetworkStatus()
    }
}

/// A network paused (engine rule R24): why, the counts behind it and when it is tried again;
/// the detail of a `network_paused` event.
public struct NetworkPause: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The network id.
    public var networkID: String
    /// Why.
    public var cause: NetworkPauseCause
    /// Failed verdicts behind it: of the last ``outcomes`` (1 of 1 for a failed probe; 0 of 0
    /// for a restored state).
    public var failures: Int
    /// The verdicts counted.
    public var outcomes: Int
    /// Failed probes since it was paused from closed (the back-off doubles for each).
    public var failedProbes: Int
    /// The back-off, in milliseconds.
    public var backoffMilliseconds: Double
    /// When it is tried again, on the engine's clock.
    public var retryAt: MediationInstant
    /// When it was paused, on the engine's clock.
    public var at: MediationInstant

    private enum CodingKeys: String, CodingKey {
        case networkID = "network"
        case cause, failures, outcomes
        case failedProbes = "failed_probes"
        case backoffMilliseconds = "backoff_ms"
        case retryAt = "retry_at"
        case at
    }

    /// e.g. `elo (failures: 5 of 10 failed), retry at 30.000s`.
    public var description: String {
        "\(DisplayText.escaped(networkID)) (\(cause.rawValue): \(failures) of \(outcomes) failed), retry at \(retryAt)"
    }
}

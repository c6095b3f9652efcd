import Foundation

/// A paused network as the state store keeps it under `health.<network id>` (engine rules R21,
/// R24): when its back-off ends on the wall clock, so a relaunch keeps it paused until then.
/// A closed network has no stored value. A line item paused on its own is kept the same way
/// under its own key (``HealthSubject/storeKey``), with its ids (`network`, `placement`,
/// `line_item`) in the value.
///
/// Read back as untrusted input: a value that is not strict JSON (a key twice, text after the
/// value: ``StoredJSON``), does not decode, has another `version`, holds a number out of range
/// or names another line item is discarded (removed, with a warning); the time left is clamped
/// to `0...max_backoff_ms` from now, so a stored instant far in the future pauses the network
/// for at most its longest back-off, and one in the past lets the next auction probe.
struct StoredNetworkHealth: Codable, Hashable, Sendable {
    /// The format: 1.
    var version: Int
    /// When the back-off ends, in milliseconds since 1970 on the wall clock.
    var retryAtWallMilliseconds: Double
    /// The back-off it was given, in milliseconds.
    var backoffMilliseconds: Double
    /// Failed probes since it was paused from closed.
    var failedProbes: Int
    /// How many times it opened.
    var openings: Int
    /// For a line item: its network (absent in a network's value).
    var network: String?
    /// For a line item: its placement.
    var placement: String?
    /// For a line item: its id.
    var lineItem: String?

    private enum CodingKeys: String, CodingKey {
        case version
        case retryAtWallMilliseconds = "retry_at_wall_ms"
        case backoffMilliseconds = "backoff_ms"
        case failedProbes = "failed_probes"
        case openings
        case network, placement
        case lineItem = "line_item"
    }

    /// The format this engine writes and reads.
    static let currentVersion = 1

    /// The stored form of `subject`'s `health` if it is paused (open or half-open), else
    /// `nil`; `wallNow` is the wall-clock time of `now`.
    init?(_ health: NetworkHealth, of subject: HealthSubject, now: MediationInstant, wallNow: Date) {
        guard health.phase != .closed, let retryAt = health.retryAt else { return nil }
        if subject.isLineItem {
            network = subject.networkID
            placement = subject.placementID
            lineItem = subject.lineItemID
        }
        version = StoredNetworkHealth.currentVersion
        let remaining = max(0, (retryAt - now).milliseconds)
        retryAtWallMilliseconds = (wallNow.timeIntervalSince1970 * 1000 + remaining).rounded()
        backoffMilliseconds = health.backoff.milliseconds.rounded()
        failedProbes = health.failedProbes
        openings = health.openings
    }

    /// Why a stored value of `subject` is refused, or `nil` when every field is in range and
    /// it names `subject` (a network's value names no line item).
    func problem(for subject: HealthSubject) -> String? {
        if network != (subject.isLineItem ? subject.networkID : nil) || placement != subject.placementID || lineItem != subject.lineItemID {
            return "it names another line item"
        }
        if version != StoredNetworkHealth.currentVersion { return "version \(version) is not \(StoredNetworkHealth.currentVersion)" }
        if !retryAtWallMilliseconds.isFinite || retryAtWallMilliseconds < 0 { return "retry_at_wall_ms is not a time" }
        if !backoffMilliseconds.isFinite || backoffMilliseconds < 0 || backoffMilliseconds > Double(NetworkHealthSettings.backoffRange.upperBound) { return "backoff_ms is out of range" }
        if !(0...1_000_000).contains(failedProbes) { return "failed_probes is out of range" }
        if !(0...1_000_000).contains(openings) { return "openings is out of range" }
        return nil
    }

    /// The health this value stands for at `now` (wall-clock time `wallNow`): open until the
    /// stored end of its back-off, clamped to `now...now + max_backoff_ms`.
    func health(at now: MediationInstant, wallNow: Date, settings: NetworkHealthSettings) -> NetworkHealth {
        let remaining = retryAtWallMilliseconds - wallNow.timeIntervalSince1970 * 1000
        let cap = settings.maxBackoff.milliseconds
        let clamped = min(max(remaining.isFinite ? remaining : 0, 0), cap)
        let backoff = min(backoffMilliseconds, cap)
        return NetworkHealth(
            openUntil: now + .milliseconds(Int(clamped.rounded(.up))),
            failedProbes: failedProbes,
            openings: openings,
            backoff: .milliseconds(Int(backoff.rounded()))
        )
    }
}

/// How the engine pauses a failing network (engine rule R24, `docs/health.md`): the
/// configuration's top-level `health` object, each key of which a network's own `health`
/// object may override.
///
/// A network opens (is paused, not asked) when at least ``failuresToOpen`` of its last
/// ``window`` verdicts are failures; it is tried again after a back-off of ``backoff``, 1.25 ×
/// longer for each failed probe up to ``maxBackoff`` (shortened by a seeded jitter of up to
/// 50 %); at most ``probes`` auctions at a time ask it then, and one answer closes it again.
package struct NetworkHealthSettings: Hashable, Sendable {
    /// Whether the network is ever paused (`enabled`; default `true`).
    package var enabled: Bool
    /// Failures among the last ``window`` verdicts that open it (`failures_to_open`, 1...64;
    /// default 7).
    package var failuresToOpen: Int
    /// How many recent verdicts count (`window`, ``failuresToOpen``...64; default 10).
    package var window: Int
    /// The first back-off (`backoff_ms`, 1000...86,400,000; default 5,000 ms).
    package var backoff: Duration
    /// The longest back-off (`max_backoff_ms`, ``backoff``...86,400,000; default 600,000 ms).
    package var maxBackoff: Duration
    /// How many auctions may probe it at once when its back-off has ended (`probes`, 1...10;
    /// default 1).
    package var probes: Int

    /// The defaults (7 failures in the last 10, 5 s, at most 10 min, 1 probe).
    package static let standard = NetworkHealthSettings()
    /// Health off: the network is always asked.
    package static let disabled = NetworkHealthSettings(enabled: false)

    /// The allowed ranges (the schema's).
    static let failuresRange = 1...64
    static let windowRange = 1...64
    static let backoffRange = 1000...86_400_000
    static let probesRange = 1...10

    /// Creates settings.
    /// - Parameters:
    ///   - enabled: whether the network is ever paused.
    ///   - failuresToOpen: failures in the window that open it.
    ///   - window: how many recent verdicts count.
    ///   - backoff: the first back-off.
    ///   - maxBackoff: the longest back-off.
    ///   - probes: concurrent probes once the back-off ends.
    package init(enabled: Bool = true, failuresToOpen: Int = 7, window: Int = 10, backoff: Duration = .seconds(5), maxBackoff: Duration = .seconds(600), probes: Int = 1) {
        self.enabled = enabled
        self.failuresToOpen = failuresToOpen
        self.window = window
        self.backoff = backoff
        self.maxBackoff = maxBackoff
        self.probes = probes
    }

    /// The same settings brought into their ranges (for values built in code rather than read
    /// from a validated configuration).
    var clamped: NetworkHealthSettings {
        var settings = self
        settings.failuresToOpen = min(max(failuresToOpen, Self.failuresRange.lowerBound), Self.failuresRange.upperBound)
        settings.window = min(max(window, settings.failuresToOpen), Self.windowRange.upperBound)
        let low = Duration.milliseconds(Self.backoffRange.lowerBound)
        let high = Duration.milliseconds(Self.backoffRange.upperBound)
        settings.backoff = min(max(backoff, low), high)
        settings.maxBackoff = min(max(maxBackoff, settings.backoff), high)
        settings.probes = min(max(probes, Self.probesRange.lowerBound), Self.probesRange.upperBound)
        return settings
    }
}

/// Resolves a placement's refresh interval (engine rules R13, R16): the placement's configured
/// `refresh_seconds` (default 60), replaced by a network's server-sent value (Qartvelo's
/// `banner_refresh_seconds`) when the current ad carries one. A server value is untrusted: one
/// outside 30 s ... 1 day (``NetworkValueBounds/refreshSeconds``) is clamped into it, with a
/// warning, so no network can make the placement refresh too often or stop it for good. (A
/// configured value outside 30 ... 86,400 is a config error, caught when loading.)
package struct RefreshInterval: Hashable, Sendable {
    /// The interval in whole seconds (30 ... 86,400).
    package var seconds: Int
    /// A warning to log when a server-sent value was clamped, else `nil`.
    package var warning: String?

    /// The interval as a `Duration`.
    package var duration: Duration { .seconds(seconds) }

    /// Resolves the interval.
    /// - Parameters:
    ///   - configuredSeconds: the placement's `refresh_seconds`, or `nil` for the default (60).
    ///   - serverSeconds: the interval the current ad's server sent, in whole seconds, if any.
    package init(configuredSeconds: Int?, serverSeconds: Int? = nil) {
        let bounds = NetworkValueBounds.refreshSeconds
        if let serverSeconds {
            let (clamped, changed) = NetworkValueBounds.refreshSeconds(serverSeconds)
            seconds = clamped
            if !changed {
                warning = nil
            } else if serverSeconds < bounds.lowerBound {
                warning = "server refresh interval \(serverSeconds) s is under \(bounds.lowerBound) s; raised to \(clamped) s"
            } else {
                warning = "server refresh interval \(serverSeconds) s is over \(bounds.upperBound) s; lowered to \(clamped) s"
            }
        } else {
            // The loader keeps configured values in range; clamp here too so no input can escape.
            let configured = configuredSeconds ?? MediationConfiguration.Placement.defaultRefreshSeconds
            seconds = min(max(configured, bounds.lowerBound), bounds.upperBound)
            warning = nil
        }
    }
}

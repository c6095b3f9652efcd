/// Resolves a placement's refresh interval (engine rule R13): the placement's configured
/// `refresh_seconds` (default 60), replaced by a network's server-sent value (Qartvelo's
/// `banner_refresh_seconds`) when the current ad carries one; a server value under 30 is raised
/// to 30 with a warning. (A configured value under 30 is a config error, caught when loading.)
package struct RefreshInterval: Hashable, Sendable {
    /// The interval in whole seconds (at least 30).
    package var seconds: Int
    /// A warning to log when a server-sent value was raised, else `nil`.
    package var warning: String?

    /// The interval as a `Duration`.
    package var duration: Duration { .seconds(seconds) }

    /// Resolves the interval.
    /// - Parameters:
    ///   - configuredSeconds: the placement's `refresh_seconds`, or `nil` for the default (60).
    ///   - serverSeconds: the interval the current ad's server sent, in whole seconds, if any.
    package init(configuredSeconds: Int?, serverSeconds: Int? = nil) {
        let minimum = PlacementConfiguration.minimumRefreshSeconds
        if let serverSeconds {
            if serverSeconds < minimum {
                seconds = minimum
                warning = "server refresh interval \(serverSeconds) s is under \(minimum) s; raised to \(minimum) s"
            } else {
                seconds = serverSeconds
                warning = nil
            }
        } else {
            // The loader rejects values under 30; keep the floor here too so no input can go lower.
            seconds = max(minimum, configuredSeconds ?? PlacementConfiguration.defaultRefreshSeconds)
            warning = nil
        }
    }
}

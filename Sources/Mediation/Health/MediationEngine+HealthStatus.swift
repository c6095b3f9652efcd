extension MediationEngine {
    /// One network's health as a host reads it (``MediationEngine/networkHealth(_:)``, engine
    /// rule R24).
    package struct HealthStatus: Hashable, Sendable, CustomStringConvertible {
        /// Where a network is.
        public enum State: String, Hashable, Sendable, Codable {
            /// Asked by every auction.
            case closed
            /// Paused: not asked until ``MediationEngine/HealthStatus/retryAt``.
            case open
            /// Its back-off ended: at most `probes` auctions at a time ask it.
            case halfOpen = "half_open"
        }

        /// Where it is (always ``State/closed`` when health is off for it).
        public var state: State
        /// When open or half-open, the end of its back-off.
        public var retryAt: MediationInstant?
        /// Failures among its recent verdicts (while closed).
        public var recentFailures: Int
        /// How many recent verdicts count so far (at most the window).
        public var recentOutcomes: Int
        /// Failed probes since it was last paused from closed.
        public var failedProbes: Int
        /// Whether health is on for it.
        public var enabled: Bool

        init(_ health: NetworkHealth, enabled: Bool) {
            state = switch health.phase {
            case .closed: .closed
            case .open: .open
            case .halfOpen: .halfOpen
            }
            retryAt = health.retryAt
            recentFailures = health.recentFailures
            recentOutcomes = health.recentCount
            failedProbes = health.failedProbes
            self.enabled = enabled
        }

        /// e.g. `open until 30000.000 ms (0 failed probes)` or `closed (2 of 7 failed)`.
        public var description: String {
            switch state {
            case .closed: "closed (\(recentFailures) of \(recentOutcomes) failed)"
            case .open, .halfOpen: "\(state.rawValue) until \(retryAt.map(\.description) ?? "now") (\(failedProbes) failed probes)"
            }
        }
    }
}

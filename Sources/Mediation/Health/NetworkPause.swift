extension MediationEvent {
    /// A network, or one of its line items, paused (engine rule R24): why, the counts behind it
    /// and when it is tried again; the detail of a `network_paused` event.
    ///
    /// A line item is paused on its own when it keeps failing while its network answers for its
    /// other line items: then ``lineItemID`` and ``placementID`` name it, and its network's other
    /// line items are still asked. Both are `nil` for the pause of a whole network.
    public struct NetworkPause: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The network id.
        public var networkID: String
        /// Why.
        package var cause: Cause
        /// Failed verdicts behind it: of the last ``outcomes`` (1 of 1 for a failed probe; 0 of 0
        /// for a restored state).
        public var failures: Int
        /// The verdicts counted.
        public var outcomes: Int
        /// Failed probes since it was paused from closed (each lengthens the back-off by a quarter).
        public var failedProbes: Int
        /// The back-off, in milliseconds.
        public var backoffMilliseconds: Double
        /// When it is tried again, on the engine's clock.
        public var retryAt: MediationInstant
        /// When it was paused, on the engine's clock.
        public var at: MediationInstant
        /// The placement of the paused line item; `nil` when the whole network is paused.
        public var placementID: String?
        /// The paused line item (its id in ``placementID``); `nil` when the whole network is paused.
        public var lineItemID: String?

        private enum CodingKeys: String, CodingKey {
            case networkID = "network"
            case cause, failures, outcomes
            case failedProbes = "failed_probes"
            case backoffMilliseconds = "backoff_ms"
            case retryAt = "retry_at"
            case at
            case placementID = "placement"
            case lineItemID = "line_item"
        }

        /// e.g. `elo (failures: 7 of 10 failed), retry at 30.000s`, or for a line item
        /// `nitx line item level_end_nitx of level_end (failures: 7 of 7 failed), retry at 30.000s`.
        public var description: String {
            "\(HealthSubject.text(networkID: networkID, placementID: placementID, lineItemID: lineItemID)) (\(cause.rawValue): \(failures) of \(outcomes) failed), retry at \(retryAt)"
        }
    }
}

extension MediationEvent.NetworkPause {
    /// Why a network was paused (engine rule R24), as `network_paused` events name it.
    package enum Cause: String, Hashable, Sendable, Codable {
        /// `failures_to_open` of its last `window` verdicts were failures.
        case failures
        /// Its back-off ended and the probe failed: the back-off × 1.25 (up to the cap).
        case probeFailed = "probe_failed"
        /// It was paused when the engine last stopped (its stored state, `health.<network id>`).
        case restored
    }
}

extension SourceOutcome {
    /// Which of a source's limits fired when it timed out (engine rule R3a). A source's effective
    /// limit is the earliest of its line item's `timeout_ms` and its network's `timeout_ms`, both
    /// counted from the moment the source is asked, and the auction's deadline. When two limits
    /// fall on the same instant, the deadline is named first, then the line item's own limit.
    /// A pause of its network while it is waited for ends the wait at once (`network_paused`).
    public enum TimeoutLimit: String, Hashable, Sendable, Codable, CaseIterable {
        /// The line item's own `timeout_ms`.
        case source
        /// The network's `timeout_ms`.
        case network
        /// The auction's deadline (`deadline_ms`, at most 3000 ms).
        case deadline
        /// Not a limit of its own: its network (or its line item) was paused while the
        /// auction waited for it (engine rule R24), so the auction stopped waiting at the
        /// pause's instant; an answer that still comes is a late answer.
        case networkPaused = "network_paused"
    }
}

extension SourceOutcome {
    /// Why a source was never asked in an auction (engine rule R6a). An open set of stable
    /// snake_case codes, so adding one breaks no caller.
    public struct NotAskedReason: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The stable code, e.g. `"tier_not_reached"`.
        public var rawValue: String

        /// Creates a reason from its code.
        /// - Parameter rawValue: a stable snake_case code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Waterfall mode: the auction was decided (a higher tier filled, a bid beat the tier, or
        /// the deadline came) before this source's tier was asked.
        public static let tierNotReached = SourceOutcome.NotAskedReason(rawValue: "tier_not_reached")
        /// A fixed-price line item whose configured eCPM is under the placement's floor: it can
        /// never win, so it is not asked.
        public static let underFloor = SourceOutcome.NotAskedReason(rawValue: "under_floor")
        /// A fixed-price line item whose configured eCPM is not a usable value (R2).
        public static let invalidECPM = SourceOutcome.NotAskedReason(rawValue: "invalid_ecpm")
        /// Its network is paused (engine rule R24): it failed to answer too often and its back-off
        /// has not ended (or its probes are taken); or its line item is paused on its own (it kept
        /// failing while its network answered for others). The trace line names when it is tried
        /// again (``AuctionTrace/Source/retryAtMilliseconds``).
        public static let networkPaused = SourceOutcome.NotAskedReason(rawValue: "network_paused")
        /// A cap or pacing of the app, its placement, its network or itself binds past the time
        /// its ad could still be shown (`docs/caps.md`), so it is not asked (no wasted load).
        /// The trace line names when it may be asked again (``AuctionTrace/Source/retryAtMilliseconds``;
        /// absent when only a new session frees it).
        public static let capped = SourceOutcome.NotAskedReason(rawValue: "capped")

        /// The code.
        public var description: String { rawValue }

        /// Decodes from the bare code.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Encodes as the bare code.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}

/// What became of one source in one auction: exactly one per source (engine rules R6, R6a).
/// An answer that comes after the outcome was set is not an outcome: the source's trace line
/// records it as a late answer (``AuctionTrace/Source/lateAnswer``).
package enum SourceOutcome: Hashable, Sendable, CustomStringConvertible {
    /// It won.
    case won
    /// Its ad took part (or was rejected) and lost, with the OpenRTB loss reason.
    case lost(LossReason)
    /// The network had no ad.
    case noFill(AdLoadResult.NoFillReason)
    /// The request failed (the error's kind, numbered code, message and HTTP status, if any).
    case error(AdLoadResult.Error)
    /// It had not answered by its effective limit; the limit that fired (R3a). An answer at
    /// the limit's instant itself counts as arrived.
    case timeout(SourceOutcome.TimeoutLimit)
    /// It was asked and still outstanding when the auction was decided: `couldNotBeat` is the
    /// value it could not beat, in USD CPM (the best value then); `nil` when the caller gave up
    /// on the auction instead.
    case cancelled(couldNotBeat: Double?)
    /// It was never asked (R6a).
    case notAsked(SourceOutcome.NotAskedReason)

    /// A short status word: `won`, `lost`, `no_fill`, `error`, `timeout`, `cancelled`,
    /// `not_asked`.
    public var status: String {
        switch self {
        case .won: "won"
        case .lost: "lost"
        case .noFill: "no_fill"
        case .error: "error"
        case .timeout: "timeout"
        case .cancelled: "cancelled"
        case .notAsked: "not_asked"
        }
    }

    /// The status with its detail, e.g. `lost (102 lost to higher bid)`, `timeout (network)`,
    /// `cancelled (could not beat 1.80)` or `not_asked (tier_not_reached)`.
    public var description: String {
        switch self {
        case .lost(let reason): "lost (\(reason))"
        case .noFill(let reason): "no fill (\(reason))"
        case .error(let error): "error (\(error))"
        case .timeout(let limit): "timeout (\(limit.rawValue))"
        case .cancelled(let value): value.map { "cancelled (could not beat \(AuctionTrace.money($0)))" } ?? "cancelled"
        case .notAsked(let reason): "not_asked (\(reason))"
        case .won: status
        }
    }

    /// Whether this is a timeout, whatever its limit.
    public var isTimeout: Bool {
        if case .timeout = self { return true }
        return false
    }

    /// Whether this is a cancellation, whatever the value it could not beat.
    public var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }

    /// Whether the source was never asked, whatever the reason.
    public var isNotAsked: Bool {
        if case .notAsked = self { return true }
        return false
    }
}

extension SourceOutcome: Codable {
    private enum CodingKeys: String, CodingKey {
        case status
        case lossReason = "loss_reason"
        case lossReasonName = "loss_reason_name"
        case noFillReason = "no_fill_reason"
        case error
        case limit
        case couldNotBeat = "could_not_beat"
        case reason
    }

    /// Encodes as `{"status": …}` with `loss_reason`, `no_fill_reason`, `error`, `limit`,
    /// `could_not_beat` (USD CPM) or `reason` beside it, e.g.
    /// `{"status":"timeout","limit":"network"}`, `{"status":"cancelled","could_not_beat":1.8}`,
    /// `{"status":"not_asked","reason":"tier_not_reached"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        switch self {
        case .lost(let reason):
            try container.encode(reason, forKey: .lossReason)
            try container.encode(reason.name, forKey: .lossReasonName)
        case .noFill(let reason):
            try container.encode(reason, forKey: .noFillReason)
        case .error(let error):
            try container.encode(error, forKey: .error)
        case .timeout(let limit):
            try container.encode(limit, forKey: .limit)
        case .cancelled(let value):
            try container.encodeIfPresent(value, forKey: .couldNotBeat)
        case .notAsked(let reason):
            try container.encode(reason, forKey: .reason)
        case .won:
            break
        }
    }

    /// Decodes the form ``encode(to:)`` writes.
    /// - Throws: `DecodingError` for an unknown status or a missing detail.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let status = try container.decode(String.self, forKey: .status)
        switch status {
        case "won": self = .won
        case "lost": self = .lost(try container.decode(LossReason.self, forKey: .lossReason))
        case "no_fill": self = .noFill(try container.decode(AdLoadResult.NoFillReason.self, forKey: .noFillReason))
        case "error": self = .error(try container.decode(AdLoadResult.Error.self, forKey: .error))
        case "timeout": self = .timeout(try container.decodeIfPresent(SourceOutcome.TimeoutLimit.self, forKey: .limit) ?? .deadline)
        case "cancelled": self = .cancelled(couldNotBeat: try container.decodeIfPresent(Double.self, forKey: .couldNotBeat))
        case "not_asked": self = .notAsked(try container.decode(SourceOutcome.NotAskedReason.self, forKey: .reason))
        default:
            throw DecodingError.dataCorruptedError(forKey: .status, in: container, debugDescription: "unknown status \(status)")
        }
    }
}

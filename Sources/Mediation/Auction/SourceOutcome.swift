/// Which of a source's limits fired when it timed out (engine rule R3a). A source's effective
/// limit is the earliest of its line item's `timeout_ms` and its network's `timeout_ms`, both
/// counted from the moment the source is asked, and the auction's deadline. When two limits
/// fall on the same instant, the deadline is named first, then the line item's own limit.
public enum TimeoutLimit: String, Hashable, Sendable, Codable, CaseIterable {
    /// The line item's own `timeout_ms`.
    case source
    /// The network's `timeout_ms`.
    case network
    /// The auction's deadline (`deadline_ms`, at most 3000 ms).
    case deadline
}

/// What became of one source in one auction: exactly one per source (engine rule R6).
public enum SourceOutcome: Hashable, Sendable, CustomStringConvertible {
    /// It won.
    case won
    /// Its ad took part (or was rejected) and lost, with the OpenRTB loss reason.
    case lost(LossReason)
    /// The network had no ad.
    case noFill(NoFillReason)
    /// The request failed.
    case error(AdapterError)
    /// It had not answered by its effective limit; the limit that fired (R3a).
    case timeout(TimeoutLimit)
    /// It could no longer win and was cancelled (or, in waterfall mode, never asked).
    case cancelled
    /// It answered at or after the auction's end.
    case late

    /// A short status word: `won`, `lost`, `no_fill`, `error`, `timeout`, `cancelled`, `late`.
    public var status: String {
        switch self {
        case .won: "won"
        case .lost: "lost"
        case .noFill: "no_fill"
        case .error: "error"
        case .timeout: "timeout"
        case .cancelled: "cancelled"
        case .late: "late"
        }
    }

    /// The status with its detail, e.g. `lost (102 lost to higher bid)` or `timeout (network)`.
    public var description: String {
        switch self {
        case .lost(let reason): "lost (\(reason))"
        case .noFill(let reason): "no fill (\(reason))"
        case .error(let error): "error (\(error))"
        case .timeout(let limit): "timeout (\(limit.rawValue))"
        case .won, .cancelled, .late: status
        }
    }

    /// Whether this is a timeout, whatever its limit.
    public var isTimeout: Bool {
        if case .timeout = self { return true }
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
    }

    /// Encodes as `{"status": …}` with `loss_reason`, `no_fill_reason`, `error` or `limit`
    /// beside it, e.g. `{"status":"timeout","limit":"network"}`.
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
        case .won, .cancelled, .late:
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
        case "no_fill": self = .noFill(try container.decode(NoFillReason.self, forKey: .noFillReason))
        case "error": self = .error(try container.decode(AdapterError.self, forKey: .error))
        case "timeout": self = .timeout(try container.decodeIfPresent(TimeoutLimit.self, forKey: .limit) ?? .deadline)
        case "cancelled": self = .cancelled
        case "late": self = .late
        default:
            throw DecodingError.dataCorruptedError(forKey: .status, in: container, debugDescription: "unknown status \(status)")
        }
    }
}

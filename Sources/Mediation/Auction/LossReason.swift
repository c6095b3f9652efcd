extension SourceOutcome {
    /// An OpenRTB loss reason code (`${AUCTION_LOSS}`; the "Loss Reason Codes" list of the IAB's
    /// OpenRTB 3.0 specification). Open: unknown codes are kept as they are.
    public struct LossReason: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The numeric code.
        public var rawValue: Int

        /// Creates a reason from its code.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// 2: the impression opportunity expired (a cached ad's TTL ran out before display).
        public static let expired = LossReason(rawValue: 2)
        /// 3: invalid bid response (a price that is NaN, infinite, zero or negative).
        public static let invalidResponse = LossReason(rawValue: 3)
        /// 100: the bid was below the auction (placement or source) floor.
        public static let belowFloor = LossReason(rawValue: 100)
        /// 102: lost to a higher bid.
        public static let lostToHigherBid = LossReason(rawValue: 102)
        /// 203: creative filtered, size not allowed.
        public static let sizeNotAllowed = LossReason(rawValue: 203)
        /// 204: creative filtered, incorrect creative format.
        public static let incorrectFormat = LossReason(rawValue: 204)

        /// The spec's wording for the known codes.
        public var name: String {
            switch rawValue {
            case 0: "bid won"
            case 1: "internal error"
            case 2: "impression opportunity expired"
            case 3: "invalid bid response"
            case 100: "below auction floor"
            case 102: "lost to higher bid"
            case 203: "creative size not allowed"
            case 204: "incorrect creative format"
            default: "loss reason \(rawValue)"
            }
        }

        /// `102 lost to higher bid`.
        public var description: String { "\(rawValue) \(name)" }

        /// Decodes from the bare code.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(Int.self)
        }

        /// Encodes as the bare code.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}

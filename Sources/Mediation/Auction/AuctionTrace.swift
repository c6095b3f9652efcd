/// One source's line in an auction's trace.
public struct SourceTrace: Hashable, Sendable, Codable {
    /// The line item id.
    public var lineItemID: String
    /// The network id.
    public var network: String
    /// Bidder or fixed price.
    public var pricing: AdSourcePricing
    /// When it was asked, in milliseconds from the auction's start; `nil` if never asked.
    public var startOffsetMilliseconds: Double?
    /// How long it took to answer, in milliseconds; `nil` if it had not answered by the end.
    public var latencyMilliseconds: Double?
    /// Its one outcome.
    public var outcome: SourceOutcome
    /// Its value in USD CPM: the bid converted to USD, or the configured eCPM of a fill;
    /// `nil` when it brought no ad (or an invalid price, kept in ``rawPrice``).
    public var eCPM: Double?
    /// The price as the network gave it, before validation and conversion, for a bid.
    public var rawPrice: Double?
    /// The creative id of the ad it brought, if any.
    public var creativeID: String?
    /// The id of the ad it brought (``LoadedAd/id``, unique per showing), if any.
    public var adID: String?
    /// Whether the engine released its ad (by the time the trace was taken).
    public var adReleased: Bool

    private enum CodingKeys: String, CodingKey {
        case lineItemID = "line_item"
        case network
        case pricing
        case startOffsetMilliseconds = "start_ms"
        case latencyMilliseconds = "latency_ms"
        case outcome
        case eCPM = "ecpm"
        case rawPrice = "raw_price"
        case creativeID = "creative_id"
        case adID = "ad_id"
        case adReleased = "released"
    }

    /// Creates a trace line.
    public init(
        lineItemID: String,
        network: String,
        pricing: AdSourcePricing,
        startOffsetMilliseconds: Double? = nil,
        latencyMilliseconds: Double? = nil,
        outcome: SourceOutcome,
        eCPM: Double? = nil,
        rawPrice: Double? = nil,
        creativeID: String? = nil,
        adID: String? = nil,
        adReleased: Bool = false
    ) {
        self.lineItemID = lineItemID
        self.network = network
        self.pricing = pricing
        self.startOffsetMilliseconds = startOffsetMilliseconds
        self.latencyMilliseconds = latencyMilliseconds
        self.outcome = outcome
        self.eCPM = eCPM
        self.rawPrice = rawPrice
        self.creativeID = creativeID
        self.adID = adID
        self.adReleased = adReleased
    }
}

/// A warning every trace of a placement carries, with a stable code, e.g. `sandbox_endpoint`
/// when some of its sources' networks use their in-process sandbox instead of a real server.
public struct TraceWarning: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The stable code, e.g. `"sandbox_endpoint"`.
    public var code: String
    /// The networks it is about, in configuration order.
    public var networks: [String]
    /// What it means, for a person.
    public var message: String

    /// The code of the warning that some of the placement's networks use their sandbox.
    public static let sandboxEndpointCode = "sandbox_endpoint"

    /// Creates a warning.
    public init(code: String, networks: [String], message: String) {
        self.code = code
        self.networks = networks
        self.message = message
    }

    /// The `sandbox_endpoint` warning for `networks`.
    /// - Parameter networks: the network ids whose endpoint is `"sandbox"`, in config order.
    public static func sandboxEndpoint(_ networks: [String]) -> TraceWarning {
        TraceWarning(
            code: sandboxEndpointCode,
            networks: networks,
            message: "answered by in-process sandbox servers, not real ad servers: \(networks.joined(separator: ", "))"
        )
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

/// The record of one auction: what every source did, who won, and when it started and ended.
/// Returned with every outcome; ``description`` reads well for a person and `Codable` gives
/// JSON for a program (snake_case keys, times in milliseconds from the clock's origin).
public struct AuctionTrace: Hashable, Sendable, Codable {
    /// A unique id for the auction (OpenRTB `${AUCTION_ID}`).
    public var auctionID: String
    /// The placement id.
    public var placementID: String
    /// Parallel or waterfall.
    public var mode: AuctionMode
    /// When it started, in milliseconds on the engine's clock.
    public var startedAtMilliseconds: Double
    /// When it ended (decided), in milliseconds on the engine's clock.
    public var endedAtMilliseconds: Double
    /// Its deadline, in milliseconds on the engine's clock.
    public var deadlineMilliseconds: Double
    /// The winning line item id, if any.
    public var winner: String?
    /// The winning value in USD CPM, if any.
    public var winningECPM: Double?
    /// One line per source, in config order.
    public var sources: [SourceTrace]
    /// Warnings about how the auction ran, e.g. `sandbox_endpoint` (empty for none).
    public var warnings: [TraceWarning]

    private enum CodingKeys: String, CodingKey {
        case auctionID = "auction_id"
        case placementID = "placement"
        case mode
        case startedAtMilliseconds = "started_at_ms"
        case endedAtMilliseconds = "ended_at_ms"
        case deadlineMilliseconds = "deadline_ms"
        case winner
        case winningECPM = "winning_ecpm"
        case sources
        case warnings
    }

    /// Creates a trace.
    public init(
        auctionID: String,
        placementID: String,
        mode: AuctionMode,
        startedAtMilliseconds: Double,
        endedAtMilliseconds: Double,
        deadlineMilliseconds: Double,
        winner: String?,
        winningECPM: Double?,
        sources: [SourceTrace],
        warnings: [TraceWarning] = []
    ) {
        self.auctionID = auctionID
        self.placementID = placementID
        self.mode = mode
        self.startedAtMilliseconds = startedAtMilliseconds
        self.endedAtMilliseconds = endedAtMilliseconds
        self.deadlineMilliseconds = deadlineMilliseconds
        self.winner = winner
        self.winningECPM = winningECPM
        self.sources = sources
        self.warnings = warnings
    }

    /// Decodes the form the encoder writes; a trace without `warnings` has none.
    /// - Throws: `DecodingError` for a missing or mistyped field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        auctionID = try container.decode(String.self, forKey: .auctionID)
        placementID = try container.decode(String.self, forKey: .placementID)
        mode = try container.decode(AuctionMode.self, forKey: .mode)
        startedAtMilliseconds = try container.decode(Double.self, forKey: .startedAtMilliseconds)
        endedAtMilliseconds = try container.decode(Double.self, forKey: .endedAtMilliseconds)
        deadlineMilliseconds = try container.decode(Double.self, forKey: .deadlineMilliseconds)
        winner = try container.decodeIfPresent(String.self, forKey: .winner)
        winningECPM = try container.decodeIfPresent(Double.self, forKey: .winningECPM)
        sources = try container.decode([SourceTrace].self, forKey: .sources)
        warnings = try container.decodeIfPresent([TraceWarning].self, forKey: .warnings) ?? []
    }

    /// The auction's length in milliseconds.
    public var durationMilliseconds: Double { endedAtMilliseconds - startedAtMilliseconds }

    /// The trace line of `lineItemID`.
    public func source(_ lineItemID: String) -> SourceTrace? {
        sources.first { $0.lineItemID == lineItemID }
    }
}

/// The winner of an auction.
public struct AuctionWinner: Sendable {
    /// The ad, which now belongs to the caller (it was not released).
    public var ad: any LoadedAd
    /// The winning line item.
    public var lineItem: LineItem
    /// Its value in USD CPM.
    public var eCPM: Double
    /// When it arrived, on the engine's clock.
    public var arrivedAt: MediationInstant

    /// Creates a winner.
    public init(ad: any LoadedAd, lineItem: LineItem, eCPM: Double, arrivedAt: MediationInstant) {
        self.ad = ad
        self.lineItem = lineItem
        self.eCPM = eCPM
        self.arrivedAt = arrivedAt
    }
}

/// What an auction returns: the winner, if any, and the trace.
public struct AuctionOutcome: Sendable {
    /// The winner, or `nil` for no fill.
    public var winner: AuctionWinner?
    /// What every source did.
    public var trace: AuctionTrace

    /// Creates an outcome.
    public init(winner: AuctionWinner?, trace: AuctionTrace) {
        self.winner = winner
        self.trace = trace
    }

    /// Whether the auction filled.
    public var isFilled: Bool { winner != nil }
}

/// A source that answered after its auction had ended (or after it was cancelled): its ad, if
/// any, was released on arrival (R7). Reported through the auction's late-answer handler.
public struct LateAnswer: Sendable {
    /// The auction id.
    public var auctionID: String
    /// The placement id.
    public var placementID: String
    /// The line item id.
    public var lineItemID: String
    /// When it arrived, on the engine's clock.
    public var arrivedAt: MediationInstant
    /// Whether an ad came with it (and was released).
    public var adReleased: Bool

    /// Creates a late answer record.
    public init(auctionID: String, placementID: String, lineItemID: String, arrivedAt: MediationInstant, adReleased: Bool) {
        self.auctionID = auctionID
        self.placementID = placementID
        self.lineItemID = lineItemID
        self.arrivedAt = arrivedAt
        self.adReleased = adReleased
    }
}

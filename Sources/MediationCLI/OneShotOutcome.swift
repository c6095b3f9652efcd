import Mediation

/// What a one-shot auction came to, read while the winner's ad is still held: the trace and
/// what the reports say of the winner. The CLI is the host and never shows the ad, so it gives
/// the ad back (R7) only after this is read; the reports never touch a released ad.
struct OneShotOutcome: Sendable {
    /// The auction's trace, as the engine completed it.
    var trace: AuctionTrace
    /// The winner, read before its ad was released; `nil` on no fill.
    var winner: WinnerSummary?

    /// Whether the auction filled.
    var isFilled: Bool { winner != nil }

    /// Reads `outcome`; its winner's ad must not have been released yet.
    init(_ outcome: MediationEngine.AuctionOutcome) {
        trace = outcome.trace
        winner = outcome.winner.map(WinnerSummary.init)
    }
}

/// What the reports say of a winner: its line item, network, eCPM (USD CPM), creative and ad
/// ids, format and size (points). JSON: `{"line_item", "network", "ecpm", "creative_id",
/// "ad_id", "format", "size": {"width", "height"}}`.
struct WinnerSummary: Encodable, Sendable {
    var lineItem: String
    var network: String
    var eCPM: Double
    var creativeID: String
    var adID: String
    var format: AdFormat
    var size: AdSize

    enum CodingKeys: String, CodingKey {
        case lineItem = "line_item"
        case network
        case eCPM = "ecpm"
        case creativeID = "creative_id"
        case adID = "ad_id"
        case format
        case size
    }

    /// Reads `winner`'s line item and ad.
    init(_ winner: MediationEngine.AuctionOutcome.Winner) {
        lineItem = winner.lineItem.id
        network = winner.lineItem.network
        eCPM = winner.eCPM
        creativeID = winner.ad.creativeID
        adID = winner.ad.id
        format = winner.ad.format
        size = winner.ad.size
    }
}

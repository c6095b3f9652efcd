import Mediation

/// The draws a market with countries adds to each auction, from the auction's own stream
/// (`docs/simulation.md`, "Countries and tiers"): its country (by traffic share) and its user
/// value (log-normal of mean 1), shared by every network and every source of the auction.
struct AuctionDraws: Sendable {
    let countries: CountryMarket
    /// The key of the auction's stream (a name no line item id can have: it starts with U+0001).
    static let auctionKey = SplitMix64.key(ofLineItem: "\u{1}market.auction")

    /// The key of `network`'s stream in each auction.
    static func networkKey(_ network: String) -> UInt64 {
        SplitMix64.key(ofLineItem: "\u{1}market.network.\(network)")
    }

    /// Auction `auction`'s country (an index of ``CountryMarket/countries``) and user value.
    func draw(seed: UInt64, auction: UInt64) -> (country: Int, userValue: Double) {
        var random = SplitMix64.forSource(seed: seed, auction: auction, lineItemKey: AuctionDraws.auctionKey)
        let country = countries.country(atUniform: random.nextUnitInterval())
        let sigma = countries.userValueSigma
        let z = StandardNormal.quantile(random.nextUnitInterval())
        return (country, (sigma * z - sigma * sigma / 2).exponential)
    }
}

/// One network's bid in each auction of a market with countries, and one of its tiers (a line
/// item) tested against it.
struct TierModel: Sendable {
    let auctions: AuctionDraws
    /// ``AuctionDraws/networkKey(_:)`` of the network.
    let networkKey: UInt64
    /// P(the network has demand at all in an auction): without it no tier of it fills.
    let fillRate: Double
    /// Per country index: the mean bid for a user of value 1 on the market's day, USD CPM
    /// (base × price level × the network's and the country's day factors).
    let meanBid: [Double]
    /// σ of the log of the bid's noise.
    let bidSigma: Double
    /// Per country index: the tier's floor as the engine values prices, USD CPM micros (a
    /// fixed-price tier fills only when the bid is at least its floor); empty for a bidder.
    let floorMicros: [Int64]

    /// The network's bid in auction `auction`, USD CPM, and the auction's country index; a `nil`
    /// bid when the network has no demand in it.
    func bid(seed: UInt64, auction: UInt64) -> (country: Int, bid: Double?) {
        let (country, userValue) = auctions.draw(seed: seed, auction: auction)
        var random = SplitMix64.forSource(seed: seed, auction: auction, lineItemKey: networkKey)
        let demand = random.nextUnitInterval()
        let z = StandardNormal.quantile(random.nextUnitInterval())
        guard demand < fillRate else { return (country, nil) }
        return (country, userValue * meanBid[country] * (bidSigma * z - bidSigma * bidSigma / 2).exponential)
    }

    /// `draw` (the tier's own never / error / latency draws) with its answer and price set by the
    /// network's bid: an answered request brings an ad iff the network has demand and, for a
    /// fixed-price tier, its bid is at least the tier's floor in the auction's country; the
    /// price is the bid (what a filled tier pays).
    func applied(to draw: SourceDraw, seed: UInt64, auction: UInt64) -> SourceDraw {
        var result = draw
        let (country, bid) = self.bid(seed: seed, auction: auction)
        guard let bid else {
            if result.answer == .ad { result.answer = .noFill }
            return result
        }
        result.priceMicros = SourceDraw.micros(ofPrice: bid)
        if result.answer == .ad || result.answer == .noFill {
            let clears = floorMicros.isEmpty || result.priceMicros >= floorMicros[country]
            result.answer = clears ? .ad : .noFill
        }
        return result
    }
}

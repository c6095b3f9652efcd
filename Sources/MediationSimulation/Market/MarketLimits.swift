import Mediation

/// The two true-means limits of a placement on a market with countries, on the market's day
/// (`docs/simulation.md`, "The market's truth"):
///
/// - **per country**: each tier priced, in each country, at its true mean price there, each
///   country's waterfall ordered by those prices (the fixed point: the prices are the means
///   under the order they give);
/// - **one global price**: each tier priced at one price everywhere, its true mean over every
///   country's impressions, one order for all countries (the same fixed point).
///
/// The floors are the market's in both (``Market/pinnedFloors`` or the placement's eCPMs):
/// a price only orders the waterfall.
package struct MarketLimits: Hashable, Sendable {
    /// The per-country limit's truth.
    package var perCountry: MarketTruth
    /// Its prices, USD CPM, `[country][tier]`: the true mean price per (tier, country).
    package var perCountryPrices: [[Double]]
    /// The one-global-price limit's truth.
    package var global: MarketTruth
    /// Its prices, USD CPM, per tier.
    package var globalPrices: [Double]

    /// Expected revenue per 1000 auctions of the per-country limit ÷ the global one's.
    package var ratio: Double {
        global.revenuePer1000 > 0 ? perCountry.revenuePer1000 / global.revenuePer1000 : 1
    }
}

extension Market {
    /// The most rounds of the fixed points of ``limits(of:)``.
    static let limitRounds = 30

    /// The true-means limits of `placement` on the market's day.
    /// - Parameter placement: a placement with tiers (fixed-price line items of tiered networks).
    /// - Returns: the limits, or `nil` in a one-country market or with no tier.
    package func limits(of placement: MediationConfiguration.Placement) -> MarketLimits? {
        guard var perCountry = truth(of: placement) else { return nil }
        var prices = perCountry.cells.map { $0.map(\.meanPrice) }
        for _ in 0..<Market.limitRounds {
            guard let next = truth(of: placement, orderedBy: prices) else { return nil }
            let nextPrices = next.cells.map { $0.map(\.meanPrice) }
            perCountry = next
            let settled = Market.orders(nextPrices) == Market.orders(prices)
            prices = nextPrices
            if settled { break }
        }
        guard var global = truth(of: placement) else { return nil }
        var globalPrices = global.globalMeanPrices.enumerated().map { $0.element ?? global.cells[0][$0.offset].meanPrice }
        for _ in 0..<Market.limitRounds {
            let replicated = Array(repeating: globalPrices, count: global.countries.count)
            guard let next = truth(of: placement, orderedBy: replicated) else { return nil }
            let nextPrices = next.globalMeanPrices.enumerated().map { $0.element ?? globalPrices[$0.offset] }
            global = next
            let settled = Market.orders([nextPrices]) == Market.orders([globalPrices])
            globalPrices = nextPrices
            if settled { break }
        }
        // The truth under the final prices' order (the means of the order they give).
        let finalGlobal = truth(of: placement, orderedBy: Array(repeating: globalPrices, count: global.countries.count)) ?? global
        let finalCountry = truth(of: placement, orderedBy: prices) ?? perCountry
        return MarketLimits(perCountry: finalCountry, perCountryPrices: prices, global: finalGlobal, globalPrices: globalPrices)
    }

    /// Each row's order of tiers, highest price first, ties by position.
    static func orders(_ prices: [[Double]]) -> [[Int]] {
        prices.map { row in row.indices.sorted { row[$0] != row[$1] ? row[$0] > row[$1] : $0 < $1 } }
    }
}

import Mediation

/// The per-country true-means limit against the one-global-price limit over days of a market
/// with countries: the expected revenue of each from the model, and both run on the market's own
/// draws (the same auctions for both) over several seeds, with a 95 % interval over the seeds
/// (`simulation-speed --market-limits`; `docs/simulation.md`, "The market's truth").
package struct MarketLimitFigure: Hashable, Sendable, Codable {
    /// One day.
    package struct Day: Hashable, Sendable, Codable {
        /// The day, from 1.
        package var day: Int
        /// The per-country limit's expected revenue per 1000 auctions, USD.
        package var perCountryRevenuePer1000: Double
        /// The global limit's, USD.
        package var globalRevenuePer1000: Double

        enum CodingKeys: String, CodingKey {
            case day
            case perCountryRevenuePer1000 = "per_country_revenue_per_1000"
            case globalRevenuePer1000 = "global_revenue_per_1000"
        }
    }

    /// The days.
    package var days: [Day]
    /// Auctions per day per seed.
    package var auctionsPerDay: Int
    /// The seeds.
    package var seeds: [UInt64]
    /// Σ expected per-country revenue ÷ Σ expected global revenue over the days.
    package var expectedRatio: Double
    /// Per seed: the simulated per-country revenue ÷ the global over every auction of every day.
    package var simulatedRatios: [Double]
    /// Their mean.
    package var simulatedRatio: Double
    /// The 95 % interval of the mean over the seeds (Student's t), `nil` under two seeds.
    package var simulatedRatioInterval: ConfidenceInterval?

    enum CodingKeys: String, CodingKey {
        case days
        case auctionsPerDay = "auctions_per_day"
        case seeds
        case expectedRatio = "expected_ratio"
        case simulatedRatios = "simulated_ratios"
        case simulatedRatio = "simulated_ratio"
        case simulatedRatioInterval = "simulated_ratio_interval"
    }
}

extension Market {
    /// The figure of the two limits of `placement` over `days` days.
    /// - Parameters:
    ///   - placement: a placement with tiers.
    ///   - days: the days, from day 1.
    ///   - auctionsPerDay: the auctions each day for each seed.
    ///   - seeds: the seeds (day `d` of seed `s` draws with `mix(s + γ·d)`, as a learning run).
    /// - Returns: the figure, or `nil` in a one-country market or with no tier.
    package func limitFigure(of placement: MediationConfiguration.Placement, days: Int, auctionsPerDay: Int, seeds: [UInt64]) -> MarketLimitFigure? {
        var dayFigures: [MarketLimitFigure.Day] = []
        var walkers: [(LimitWalker, LimitWalker)] = []
        for day in 1...max(1, days) {
            let market = onDay(day)
            guard let limits = market.limits(of: placement), let countries = market.countries else { return nil }
            dayFigures.append(MarketLimitFigure.Day(day: day, perCountryRevenuePer1000: limits.perCountry.revenuePer1000, globalRevenuePer1000: limits.global.revenuePer1000))
            let globalPrices = Array(repeating: limits.globalPrices, count: countries.countries.count)
            walkers.append((LimitWalker(market: market, placement: placement, prices: limits.perCountryPrices), LimitWalker(market: market, placement: placement, prices: globalPrices)))
        }
        let ratios = seeds.map { seed in
            var perCountry = 0.0
            var global = 0.0
            for (index, pair) in walkers.enumerated() {
                let daySeed = SplitMix64.mix(seed &+ SplitMix64.gamma &* UInt64(index + 1))
                for auction in 0..<UInt64(max(0, auctionsPerDay)) {
                    perCountry += pair.0.revenue(seed: daySeed, auction: auction)
                    global += pair.1.revenue(seed: daySeed, auction: auction)
                }
            }
            return global > 0 ? perCountry / global : 1
        }
        let mean = ratios.isEmpty ? 1 : ratios.reduce(0, +) / Double(ratios.count)
        var interval: ConfidenceInterval?
        if ratios.count >= 2 {
            let variance = ratios.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(ratios.count - 1)
            let half = StudentT.quantile975(degreesOfFreedom: ratios.count - 1) * (variance / Double(ratios.count)).squareRoot()
            interval = ConfidenceInterval(lower: mean - half, upper: mean + half)
        }
        let expectedCountry = dayFigures.reduce(0) { $0 + $1.perCountryRevenuePer1000 }
        let expectedGlobal = dayFigures.reduce(0) { $0 + $1.globalRevenuePer1000 }
        return MarketLimitFigure(
            days: dayFigures, auctionsPerDay: auctionsPerDay, seeds: seeds,
            expectedRatio: expectedGlobal > 0 ? expectedCountry / expectedGlobal : 1,
            simulatedRatios: ratios, simulatedRatio: mean, simulatedRatioInterval: interval
        )
    }
}

/// A classic waterfall of a placement's tiers walked on the market's own draws (not through the
/// engine): in the auction's country, its segment's tiers in order of `prices`, the first that answers
/// and whose network's bid clears its floor wins and pays the bid. Latencies are left out.
struct LimitWalker {
    struct Tier {
        var key: UInt64
        var never: Double
        var error: Double
        var model: TierModel
    }

    let tiers: [Tier]
    /// Per country index: the tiers' indices in order.
    let orders: [[Int]]
    let auctions: AuctionDraws?

    init(market: Market, placement: MediationConfiguration.Placement, prices: [[Double]]) {
        var tiers: [Tier] = []
        var ids: [String] = []
        for lineItem in placement.sources where lineItem.pricing == .fixedPrice {
            guard let model = market.tierModel(of: lineItem), let behaviour = try? market.behaviour(of: lineItem) else { continue }
            tiers.append(Tier(key: SplitMix64.key(ofLineItem: lineItem.id), never: behaviour.neverAnswers, error: behaviour.errorRate, model: model))
            ids.append(lineItem.id)
        }
        self.tiers = tiers
        let inCountry = (market.countries?.countries ?? []).map { placement.lineItemIDs(inCountry: $0.code) }
        orders = Market.orders(prices).enumerated().map { country, order in
            country < inCountry.count ? order.filter { $0 < ids.count && inCountry[country].contains(ids[$0]) } : order
        }
        auctions = market.countries.map { AuctionDraws(countries: $0) }
    }

    /// The revenue of auction `auction`, USD CPM (0 without a fill).
    func revenue(seed: UInt64, auction: UInt64) -> Double {
        guard let auctions, !tiers.isEmpty else { return 0 }
        let country = auctions.draw(seed: seed, auction: auction).country
        for index in orders[country] where index < tiers.count {
            let tier = tiers[index]
            var random = SplitMix64.forSource(seed: seed, auction: auction, lineItemKey: tier.key)
            guard random.nextUnitInterval() >= tier.never, random.nextUnitInterval() >= tier.error else { continue }
            guard let bid = tier.model.bid(seed: seed, auction: auction).bid else { continue }
            let micros = SourceDraw.micros(ofPrice: bid)
            if micros >= tier.model.floorMicros[country] { return Double(micros) / 1_000_000 }
        }
        return 0
    }
}

import Foundation
import Mediation

/// What the market pays a placement's tiers in each country on its day, computed from the model
/// (not drawn): per tier and country the probability that the tier wins an auction of that
/// country and its true mean price per impression, for a given waterfall order
/// (`docs/simulation.md`, "The market's truth").
///
/// A tier of network `n` wins when every tier before it (in that country's order) has failed:
/// a tier fails when its network has no demand, its bid is under the tier's floor, or it errs or
/// never answers (its `error` and `never_answers`). Its network's bid is shared by its tiers and
/// every network's bid by the auction's user value, so the tier's wins are the auctions where the
/// earlier tiers' networks bid low: the mean price is exact under the model, integrated over the
/// user value (midpoint rule, 160 points over ±8 σ). Latencies, timeouts and the deadline are
/// left out: a tier is taken to answer in time.
package struct MarketTruth: Hashable, Sendable {
    /// One tier in one country.
    package struct Cell: Hashable, Sendable {
        /// P(the tier wins an auction of the country).
        package var winProbability: Double
        /// The mean price of its wins there, USD CPM (its floor when it never wins).
        package var meanPrice: Double
        /// Whether the tier takes part in the country's waterfall (its segment's line items);
        /// one that does not never wins.
        package var takesPart: Bool = true
    }

    /// The placement's tiers (fixed-price line items of tiered networks), in the placement's order:
    /// every segment's, each taking part only in the countries its segment serves
    /// (``Cell/takesPart``).
    package var lineItemIDs: [String]
    /// The country codes, in the market's order.
    package var countries: [String]
    /// Each country's share of the auctions.
    package var shares: [Double]
    /// `cells[country][tier]`.
    package var cells: [[Cell]]

    /// Expected revenue per 1000 auctions of country `country`, USD (Σ P(win) × mean price).
    package func revenuePer1000(country: Int) -> Double {
        cells[country].reduce(0) { $0 + $1.winProbability * $1.meanPrice }
    }

    /// Expected revenue per 1000 auctions over every country, USD.
    package var revenuePer1000: Double {
        shares.indices.reduce(0) { $0 + shares[$1] * revenuePer1000(country: $1) }
    }

    /// Each tier's mean price over every country's impressions, USD CPM (`nil` for a tier that
    /// never wins).
    package var globalMeanPrices: [Double?] {
        lineItemIDs.indices.map { tier in
            var revenue = 0.0
            var wins = 0.0
            for country in shares.indices {
                wins += shares[country] * cells[country][tier].winProbability
                revenue += shares[country] * cells[country][tier].winProbability * cells[country][tier].meanPrice
            }
            return wins > 0 ? revenue / wins : nil
        }
    }
}

extension Market {
    /// The truth of `placement`'s tiers on the market's day when each country's waterfall is
    /// ordered by `prices` (USD CPM, `prices[country][tier]` for the tiers of
    /// ``MarketTruth/lineItemIDs``; the highest first, ties in the placement's order), floors as
    /// a run of `placement` draws them (``pinnedFloors`` or its eCPMs). Each country's waterfall
    /// holds the tiers of the segment that country's users fall in, as the engine runs it.
    /// - Parameters:
    ///   - placement: a placement whose fixed-price line items of tiered networks are the tiers.
    ///   - prices: per country index, per tier: the price the engine orders by; `nil` for the
    ///     placement's own (the floors).
    /// - Returns: the truth, or `nil` in a one-country market or with no tier.
    package func truth(of placement: MediationConfiguration.Placement, orderedBy prices: [[Double]]? = nil) -> MarketTruth? {
        guard let countries else { return nil }
        let tiers = TruthTier.tiers(of: placement, in: self)
        guard !tiers.isEmpty else { return nil }
        let sigma = countries.userValueSigma
        var cells: [[MarketTruth.Cell]] = []
        for country in countries.countries.indices {
            let order = tiers.indices.filter { tiers[$0].takesPart[country] }.sorted { a, b in
                let pa = prices?[country][a] ?? tiers[a].floors[country]
                let pb = prices?[country][b] ?? tiers[b].floors[country]
                return pa != pb ? pa > pb : a < b
            }
            var win = Array(repeating: 0.0, count: tiers.count)
            var revenue = Array(repeating: 0.0, count: tiers.count)
            let networkCount = (tiers.map(\.networkIndex).max() ?? 0) + 1
            let bids = (0..<networkCount).map { index in tiers.first { $0.networkIndex == index }?.bid }
            for (z, weight) in TruthQuadrature.standardNormal {
                let userValue = (sigma * z - sigma * sigma / 2).exponential
                // Per network: its tiers asked so far, and P(all of them failed | user value).
                var earlier = Array(repeating: [(floor: Double, answers: Double)](), count: networkCount)
                var failed = Array(repeating: 1.0, count: networkCount)
                for k in order {
                    let tier = tiers[k]
                    var others = 1.0
                    for network in 0..<networkCount where network != tier.networkIndex { others *= failed[network] }
                    if others > 0 {
                        let own = tier.bid.winning(above: tier.floors[country], earlier: earlier[tier.networkIndex], userValue: userValue, country: country)
                        win[k] += weight * others * own.probability * tier.answers
                        revenue[k] += weight * others * own.partialMean * tier.answers
                    }
                    earlier[tier.networkIndex].append((tier.floors[country], tier.answers))
                    if let bid = bids[tier.networkIndex] {
                        failed[tier.networkIndex] = bid.allFail(earlier[tier.networkIndex], userValue: userValue, country: country)
                    }
                }
            }
            cells.append(tiers.indices.map { k in
                MarketTruth.Cell(winProbability: win[k], meanPrice: win[k] > 1e-15 ? revenue[k] / win[k] : tiers[k].floors[country], takesPart: tiers[k].takesPart[country])
            })
        }
        let total = countries.countries.reduce(0) { $0 + $1.trafficShare }
        return MarketTruth(
            lineItemIDs: tiers.map(\.lineItemID), countries: countries.countries.map(\.code),
            shares: countries.countries.map { $0.trafficShare / total }, cells: cells
        )
    }
}

/// One tier as the truth sees it.
struct TruthTier {
    var lineItemID: String
    var network: String
    /// The network's index among the placement's tiered networks.
    var networkIndex: Int
    /// USD CPM per country index.
    var floors: [Double]
    /// P(it answers at all and without error).
    var answers: Double
    var bid: TruthBid
    /// Per country index: whether it is in the waterfall there (its segment's line items).
    var takesPart: [Bool]

    static func tiers(of placement: MediationConfiguration.Placement, in market: Market) -> [TruthTier] {
        guard let countries = market.countries else { return [] }
        var result: [TruthTier] = []
        var networks: [String] = []
        let inCountry = countries.countries.map { placement.lineItemIDs(inCountry: $0.code) }
        for lineItem in placement.sources where lineItem.pricing == .fixedPrice {
            guard let network = market.network(lineItem.network), let tiered = network.tiered,
                  let behaviour = try? market.behaviour(of: lineItem) else { continue }
            let floors = countries.countries.map { market.floor(of: lineItem, country: $0.code) ?? .infinity }
            let bid = TruthBid(demand: network.behaviour.fillRate ?? 1, meanBid: market.meanBids(of: network), sigma: max(tiered.bidSigma, 1e-6))
            let networkIndex = networks.firstIndex(of: network.id) ?? networks.count
            if networkIndex == networks.count { networks.append(network.id) }
            result.append(TruthTier(lineItemID: lineItem.id, network: network.id, networkIndex: networkIndex, floors: floors, answers: (1 - behaviour.neverAnswers) * (1 - behaviour.errorRate), bid: bid, takesPart: inCountry.map { $0.contains(lineItem.id) }))
        }
        return result
    }
}

/// A network's bid given the user value: with probability `demand` a log-normal of mean
/// `userValue × meanBid[country]` and σ `sigma` of its log.
struct TruthBid {
    var demand: Double
    var meanBid: [Double]
    var sigma: Double

    /// The mean of the bid's log given the user value.
    func mu(userValue: Double, country: Int) -> Double {
        (userValue * meanBid[country]).logarithm - sigma * sigma / 2
    }

    /// P(bid < x) and E[bid; bid < x] for a demand present.
    func below(_ x: Double, mu: Double) -> (probability: Double, partialMean: Double) {
        guard x > 0 else { return (0, 0) }
        guard x.isFinite else { return (1, (mu + sigma * sigma / 2).exponential) }
        let l = x.logarithm
        return (TruthQuadrature.phi((l - mu) / sigma), (mu + sigma * sigma / 2).exponential * TruthQuadrature.phi((l - mu - sigma * sigma) / sigma))
    }

    /// P(every one of `floors`' tiers fails | user value): no demand, or, for the bid drawn, each
    /// tier whose floor it clears errs or stays silent.
    func allFail(_ floors: [(floor: Double, answers: Double)], userValue: Double, country: Int) -> Double {
        let mu = mu(userValue: userValue, country: country)
        let sorted = floors.sorted { $0.floor < $1.floor }
        var probability = 0.0
        var product = 1.0
        var lower = 0.0
        for tier in sorted {
            probability += product * (below(tier.floor, mu: mu).probability - below(lower, mu: mu).probability)
            product *= 1 - tier.answers
            lower = tier.floor
        }
        probability += product * (1 - below(lower, mu: mu).probability)
        return (1 - demand) + demand * probability
    }

    /// P(the bid clears `floor` and every earlier tier of the network failed) and E[bid; same],
    /// the tier's own answer left out.
    func winning(above floor: Double, earlier: [(floor: Double, answers: Double)], userValue: Double, country: Int) -> (probability: Double, partialMean: Double) {
        guard floor.isFinite else { return (0, 0) }
        let mu = mu(userValue: userValue, country: country)
        // Earlier tiers with a floor at or under this one fail only by their own error.
        var product = 1.0
        var higher: [(floor: Double, answers: Double)] = []
        for tier in earlier {
            if tier.floor <= floor { product *= 1 - tier.answers } else { higher.append(tier) }
        }
        higher.sort { $0.floor < $1.floor }
        var probability = 0.0
        var partial = 0.0
        var lower = floor
        for tier in higher {
            let a = below(tier.floor, mu: mu)
            let b = below(lower, mu: mu)
            probability += product * (a.probability - b.probability)
            partial += product * (a.partialMean - b.partialMean)
            product *= 1 - tier.answers
            lower = tier.floor
        }
        let top = below(.infinity, mu: mu)
        let b = below(lower, mu: mu)
        probability += product * (top.probability - b.probability)
        partial += product * (top.partialMean - b.partialMean)
        return (demand * probability, demand * partial)
    }
}

/// The standard normal's nodes and weights for the truth's integral, and its distribution
/// function.
enum TruthQuadrature {
    /// 160 midpoints over [−8, 8] with weights φ(z)·Δz normalised to sum to 1.
    static let standardNormal: [(z: Double, weight: Double)] = {
        let count = 160
        let step = 16.0 / Double(count)
        let raw = (0..<count).map { index -> (Double, Double) in
            let z = -8 + (Double(index) + 0.5) * step
            return (z, (-z * z / 2).exponential)
        }
        let total = raw.reduce(0) { $0 + $1.1 }
        return raw.map { ($0.0, $0.1 / total) }
    }()

    /// Φ(x), the standard normal distribution function.
    static func phi(_ x: Double) -> Double {
        0.5 * Foundation.erfc(-x / 2.0.squareRoot())
    }
}

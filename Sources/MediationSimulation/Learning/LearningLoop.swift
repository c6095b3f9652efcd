import Mediation
import MediationLearning

/// How a learning run goes: its days, the drifts of the market, and the first day's date.
public struct LearningOptions: Hashable, Sendable {
    /// The most days a run may have (a year).
    public static let maximumDays = 366

    /// The days, from 1 to ``maximumDays``.
    public var days: Int
    /// The market's drifts (none: a stationary market).
    public var drifts: [PriceDrift]
    /// The UTC date of day 1 (default 2026-01-01), the day its revenue report is for.
    public var firstDay: UTCDay
    /// On a market with countries, a country code (e.g. `"IN"`) whose daily figures the run
    /// adds: each learner's revenue there ÷ the limit's there (`nil`: none).
    public var country: String?

    /// Creates options.
    /// - Parameters:
    ///   - days: the days.
    ///   - drifts: the drifts (default none).
    ///   - firstDay: the date of day 1 (default 2026-01-01).
    ///   - country: a country whose daily figures the run adds (default none).
    public init(days: Int, drifts: [PriceDrift] = [], firstDay: UTCDay = UTCDay(daysSince1970: 20_454), country: String? = nil) {
        self.days = days
        self.drifts = drifts
        self.firstDay = firstDay
        self.country = country
    }
}

extension Simulation {
    /// Runs the learning loop (`docs/learning.md`, "The loop in simulation"): on each day `d`,
    /// `auctions` auctions of `placementID` on the market of that day (its drifts applied), with
    /// draws seeded by (`options.seed`, `d`) and shared by every run of the day (common random
    /// numbers): the **true-means limit** (every fixed-price line item priced at its true mean
    /// realised eCPM that day; on a market with countries, in each country at its true mean
    /// there, ``Market/limits(of:)``'s per-country limit) and one configuration per learner. Each learner's wins make its
    /// revenue report of the day (impressions, realised revenue); at the end of the day it
    /// reprices its fixed-price line items from all its reports so far, for the next day.
    /// Day 1 runs the configuration's own prices for every learner.
    /// - Parameters:
    ///   - configuration: the configuration (its eCPMs are the manual prices).
    ///   - market: how the networks answer, before drifts.
    ///   - placementID: the placement.
    ///   - learners: the learners (at least one, names unique).
    ///   - learning: the days, drifts and first date.
    ///   - options: the auctions **per day**, the seed, jobs, shard size, concurrency, batches.
    /// - Returns: the per-day figures, the summaries and the paired differences.
    /// - Throws: ``SimulationError``: `invalid_options` (no learner, a duplicated name, days out
    ///   of range, a drift of a network the market lacks, a `learning.country` the market
    ///   lacks), and as
    ///   ``run(configuration:market:placementID:options:)``.
    public static func learn(configuration: MediationConfiguration, market: Market, placementID: String, learners: [any ECPMLearner], learning: LearningOptions, options: SimulationOptions) async throws(SimulationError) -> LearningRun {
        func invalid(_ message: String) -> SimulationError { SimulationError(code: .invalidOptions, message: message) }
        guard !learners.isEmpty else { throw invalid("a learning run needs at least one learner") }
        guard Set(learners.map(\.name)).count == learners.count else { throw invalid("each learner may run once") }
        guard (1...LearningOptions.maximumDays).contains(learning.days) else { throw invalid("days must be from 1 to \(LearningOptions.maximumDays), found \(learning.days)") }
        for drift in learning.drifts where market.network(drift.network) == nil {
            throw invalid("drift \(drift): the market has no network \"\(drift.network)\"")
        }
        if let network = market.networks.first(where: { !$0.outages.isEmpty }) {
            throw invalid("network \"\(network.id)\" has outages: they apply to timed runs (--duration), not to a learning run's days; use a market without them")
        }
        // Drifts compound: every day's prices must stay a price the market and the engine take.
        for day in 1...learning.days {
            for network in market.drifted(by: learning.drifts, onDay: day).networks {
                let prices = [network.behaviour.price] + network.lineItems.values.map(\.price)
                for price in prices.compactMap({ $0 }) where !(price.median > 0 && price.mean <= SourceDraw.maximumPrice) {
                    throw invalid("the drifts take network \"\(network.id)\"'s prices to a mean of \(DecimalText.trimmed(price.mean, minimumDigits: 0, maximumDigits: 6)) USD CPM on day \(day), beyond the market's \(Int(SourceDraw.maximumPrice))")
                }
            }
        }
        var countryIndex: Int?
        if let code = learning.country {
            guard let countries = market.countries else { throw invalid("country \"\(code)\": the market has no countries (a one-country market)") }
            guard let index = countries.index(of: code) else {
                throw invalid("country \"\(code)\": the market has no such country; it has \(countries.countries.map(\.code).joined(separator: ", "))")
            }
            countryIndex = index
        }
        guard let placement = configuration.placement(placementID) else {
            let known = configuration.placements.map(\.id).joined(separator: ", ")
            throw SimulationError(code: .unknownPlacement, message: "no placement \"\(placementID)\" in the configuration; it has: \(known)")
        }
        // On a market with countries, a tier's floor stays its price in the configuration the run
        // starts from: a learner's prices order the waterfall, they do not move when a network
        // fills (else each repricing would change the very prices it learns).
        let market = market.pinningFloors(to: configuration)
        // Each day's run adds its own auctions to the progress; the rest of the run is known now.
        options.progress?.begin(total: options.auctions * (learners.count + 1) * (learning.days - 1))
        var state = LearningState(placement: placement, learners: learners, countries: market.countries?.countries.map(\.code) ?? [])
        var calibration = CalibrationTally()
        let calibrated = learners.firstIndex { $0.name == "bayes" || $0.name == "thompson" }
        var daily: [LearningDay] = []
        var accumulated = LearningAccumulator(learners: learners.count)
        for day in 1...learning.days {
            let date = learning.firstDay.adding(days: day - 1)
            let dayMarket = market.drifted(by: learning.drifts, onDay: day)
            var truth: [Double] = []
            for priced in state.lineItems {
                do {
                    truth.append(try dayMarket.behaviour(of: priced.lineItem).price.mean)
                } catch {
                    throw SimulationError.market(error)
                }
            }
            // On a market with countries, the limit prices each tier in each country at its true
            // mean there (the per-country true-means limit): one price per line item would be
            // the one-country limit, which a tiered waterfall beats by far.
            var limitCountryPrices: [[String: Double]] = []
            if let limits = dayMarket.limits(of: placement) {
                (truth, limitCountryPrices) = state.limitPrices(limits, otherwise: truth)
            }
            var configurations = [state.configuration(configuration, pricedAt: truth, countryPrices: limitCountryPrices)]
            for learner in learners.indices {
                configurations.append(state.configuration(configuration, pricedAt: state.prices[learner], deviations: state.deviations[learner], exploring: learners[learner].explores, countryPrices: state.countryPrices[learner]))
            }
            var dayOptions = options
            dayOptions.seed = SplitMix64.mix(options.seed &+ SplitMix64.gamma &* UInt64(day))
            let (totals, _) = try await runTotals(configurations.map { ($0, true) }, market: dayMarket, placementID: placementID, options: dayOptions)
            accumulated.add(totals)
            let limitMean = revenuePer1000(totals.runs[0])
            let limitInCountry = countryIndex.map { Simulation.revenue(totals.runs[0], country: $0) }
            var figures: [LearnerDay] = []
            for (learner, rule) in learners.enumerated() {
                let run = totals.runs[learner + 1]
                let observed = state.record(run, learner: learner, on: date)
                let used = state.prices[learner]
                if learner == calibrated, let placement = configurations[learner + 1].placement(placementID) {
                    calibration.add(state.calibration(learner: learner, asOf: date, truth: dayMarket.truth(of: placement, orderedBy: state.order(used, countryPrices: state.countryPrices[learner], market: dayMarket, placement: placement))))
                }
                state.reprice(learner: learner, with: rule, asOf: date)
                let prices = state.lineItems.indices.map { index in
                    var price = LearnedPrice(
                        lineItemID: state.lineItems[index].lineItem.id, network: state.lineItems[index].lineItem.network,
                        eCPM: used[index], trueMean: truth[index], learned: state.prices[learner][index],
                        impressions: observed[index].impressions, revenueUSD: observed[index].revenueUSD
                    )
                    // Its own wins per country, for the written reports' rows per country.
                    for (country, tally) in run.countryWins[state.lineItems[index].index] ?? [:] where country < state.countries.count {
                        price.impressionsByCountry[state.countries[country]] = tally.wins
                        price.revenueUSDByCountry[state.countries[country]] = Money.usd(tally.revenue)
                    }
                    return price
                }
                let revenue = revenuePer1000(run)
                var figure = LearnerDay(
                    learner: rule.name,
                    revenuePer1000Requests: revenue,
                    ratioToLimit: limitMean > 0 ? revenue / limitMean : nil,
                    fillRate: Estimators.mean(run.filled)?.mean ?? 0,
                    prices: prices
                )
                if let countryIndex, let limitInCountry {
                    let own = Simulation.revenue(run, country: countryIndex)
                    accumulated.addCountry(learner: learner, revenue: own, limit: limitInCountry)
                    figure.countryRatioToLimit = limitInCountry > 0 ? own / limitInCountry : nil
                }
                figures.append(figure)
            }
            daily.append(LearningDay(day: day, date: date.description, limitRevenuePer1000Requests: limitMean, learners: figures))
        }
        var run = accumulated.run(placementID: placementID, seed: options.seed, learning: learning, auctionsPerDay: options.auctions, learners: learners.map(\.name), daily: daily)
        run.calibration = calibrated == nil || market.countries == nil ? nil : calibration.bins
        run.country = learning.country
        return run
    }

    /// Realised revenue per 1000 requests of a run, USD.
    static func revenuePer1000(_ run: RunTotals) -> Double {
        (Estimators.mean(run.realised)?.mean ?? 0) / 1_000_000
    }

    /// A run's realised revenue in the auctions of country index `country`, USD.
    static func revenue(_ run: RunTotals, country: Int) -> Double {
        var sum = WideSum()
        for (_, countries) in run.countryWins {
            if let tally = countries[country] { sum.add(tally.revenue) }
        }
        return Money.usd(sum)
    }
}

/// The fixed-price line items of the learning run's placement, and each learner's prices and
/// reports so far.
struct LearningState {
    /// A fixed-price line item and its position in the placement's sources.
    struct Priced {
        var index: Int
        var lineItem: LineItem
        /// The configured (manual) price, USD CPM.
        var manualUSD: Double
    }

    let placementID: String
    let lineItems: [Priced]
    let learners: [any ECPMLearner]
    /// Per learner, per line item: its current price, USD CPM.
    var prices: [[Double]]
    /// Per learner, per line item: its price's standard deviation, USD CPM, if any.
    var deviations: [[Double?]]
    /// Per learner, per line item: its reported days (its ad unit's rows).
    var reports: [[[BayesianECPM.Observation]]]
    /// Per line item: the line items (itself included) with its network and ad unit.
    let sharingAdUnit: [[Int]]
    /// The market's country codes by index (empty in a one-country market).
    let countries: [String]
    /// Per learner, per line item: its prices per country, USD CPM (its `ecpm_by_country`).
    var countryPrices: [[[String: Double]]]

    init(placement: MediationConfiguration.Placement, learners: [any ECPMLearner], countries: [String] = []) {
        placementID = placement.id
        var priced: [Priced] = []
        for (index, lineItem) in placement.sources.enumerated() where lineItem.pricing == .fixedPrice {
            guard let eCPM = lineItem.eCPM else { continue }
            let usd = eCPM * lineItem.usdRate
            guard usd.isFinite, usd > 0 else { continue }
            priced.append(Priced(index: index, lineItem: lineItem, manualUSD: usd))
        }
        lineItems = priced
        sharingAdUnit = priced.map { item in
            priced.indices.filter { priced[$0].lineItem.network == item.lineItem.network && priced[$0].lineItem.adUnitID == item.lineItem.adUnitID }
        }
        self.learners = learners
        prices = learners.map { _ in priced.map(\.manualUSD) }
        deviations = learners.map { _ in priced.map { _ in nil } }
        reports = learners.map { _ in priced.map { _ in [] } }
        self.countries = countries
        countryPrices = learners.map { _ in priced.map { _ in [:] } }
    }

    /// The per-country limit's prices for the fixed-price line items: each tier's true mean price
    /// in each country, and its mean over every country's impressions (for an auction without a
    /// country); a line item that is not a tier keeps its price in `otherwise`.
    func limitPrices(_ limits: MarketLimits, otherwise: [Double]) -> (prices: [Double], byCountry: [[String: Double]]) {
        let tiers = limits.perCountry.lineItemIDs
        let means = limits.perCountry.globalMeanPrices
        var prices = otherwise
        var byCountry = lineItems.map { _ in [String: Double]() }
        for (index, priced) in lineItems.enumerated() {
            guard let tier = tiers.firstIndex(of: priced.lineItem.id) else { continue }
            if index < prices.count, tier < means.count, let mean = means[tier] { prices[index] = mean }
            for (country, code) in limits.perCountry.countries.enumerated() where country < limits.perCountryPrices.count && tier < limits.perCountryPrices[country].count {
                byCountry[index][code] = limits.perCountryPrices[country][tier]
            }
        }
        return (prices, byCountry)
    }

    /// `configuration` with the placement's fixed-price line items priced at `pricesUSD` (with
    /// `deviations` as their `ecpm_sd`), exploring when `exploring`.
    func configuration(_ configuration: MediationConfiguration, pricedAt pricesUSD: [Double], deviations: [Double?] = [], exploring: Bool = false, countryPrices: [[String: Double]] = []) -> MediationConfiguration {
        var result = configuration
        guard let placementIndex = result.placements.firstIndex(where: { $0.id == placementID }) else { return result }
        for (index, priced) in lineItems.enumerated() where index < pricesUSD.count {
            result.placements[placementIndex].sources[priced.index].eCPM = pricesUSD[index] / priced.lineItem.usdRate
            if index < countryPrices.count {
                for (country, price) in countryPrices[index] {
                    result.placements[placementIndex].sources[priced.index].eCPMByCountry[country] = price / priced.lineItem.usdRate
                }
            }
            if exploring {
                result.placements[placementIndex].sources[priced.index].eCPMSD = index < deviations.count ? deviations[index].map { $0 / priced.lineItem.usdRate } : nil
            }
        }
        // Only an exploring learner explores: the limit and the others value each line item at
        // its price, whatever the configuration says.
        result.placements[placementIndex].exploration = exploring ? .thompson : .off
        return result
    }

    /// Adds the day's report of `learner`'s run and returns each line item's own wins and
    /// realised revenue. A network reports an ad unit, not a line item: as in `mediate optimize`
    /// (``ReportAssembly``), each line item learns from its network and ad unit's row, the sum
    /// over the placement's fixed-price line items sharing them (the written reports hold the
    /// same sums).
    mutating func record(_ run: RunTotals, learner: Int, on day: UTCDay) -> [BayesianECPM.Observation] {
        let observed = lineItems.map { priced in
            let counts = priced.index < run.sources.count ? run.sources[priced.index] : SourceCounts()
            return BayesianECPM.Observation(day: day, impressions: counts.wins, revenueUSD: Money.usd(counts.revenue))
        }
        for index in observed.indices {
            guard !countries.isEmpty else {
                var row = BayesianECPM.Observation(day: day, impressions: 0, revenueUSD: 0)
                for other in sharingAdUnit[index] where other < observed.count {
                    row.impressions += observed[other].impressions
                    row.revenueUSD += observed[other].revenueUSD
                }
                reports[learner][index].append(row)
                continue
            }
            // In a market with countries, one row per country the ad unit won in.
            var byCountry: [Int: (wins: Int, revenue: WideSum)] = [:]
            for other in sharingAdUnit[index] {
                for (country, tally) in run.countryWins[lineItems[other].index] ?? [:] {
                    byCountry[country, default: (0, WideSum())].wins += tally.wins
                    byCountry[country, default: (0, WideSum())].revenue.add(tally.revenue)
                }
            }
            for country in byCountry.keys.sorted() where country < countries.count {
                guard let tally = byCountry[country] else { continue }
                reports[learner][index].append(BayesianECPM.Observation(day: day, impressions: tally.wins, revenueUSD: Money.usd(tally.revenue), country: countries[country]))
            }
        }
        return observed
    }

    /// Sets `learner`'s prices for the next day from its reports as of `day`; a price that is not
    /// positive and finite keeps the current one.
    mutating func reprice(learner: Int, with rule: any ECPMLearner, asOf day: UTCDay) {
        let inputs = lineItems.indices.map { index in
            BayesianECPM.Input(
                placementID: placementID, lineItemID: lineItems[index].lineItem.id, network: lineItems[index].lineItem.network,
                configuredECPM: prices[learner][index], observations: reports[learner][index]
            )
        }
        let input = LearnerInput(lineItems: inputs, manualECPMs: lineItems.map(\.manualUSD), asOf: day, manualCountryECPMs: lineItems.map { item in item.lineItem.eCPMByCountry.mapValues { $0 * item.lineItem.usdRate } })
        let next = rule.prices(for: input)
        if !countries.isEmpty {
            countryPrices[learner] = rule.countryPrices(for: input).map { $0.filter { $0.value.isFinite && $0.value > 0 && $0.value <= SourceDraw.maximumPrice } }
        }
        let spreads = rule.explores ? rule.standardDeviations(for: input) : []
        for index in lineItems.indices where index < next.count {
            let price = next[index]
            if price.isFinite, price > 0, price <= SourceDraw.maximumPrice { prices[learner][index] = price }
            if index < spreads.count { deviations[learner][index] = spreads[index].flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } }
        }
    }
}

/// The sums over every day of a learning run, for its summaries and paired intervals.
struct LearningAccumulator {
    /// Per learner (0: the limit, then the learners): realised micros per auction.
    var realised: [Moments]
    /// Per pair (j, k) of runs (0: the limit): the paired differences run k − run j.
    var differences: [[Moments]]
    /// With a country named: per learner, its revenue there and the limit's, USD, over the days.
    var country: [(revenue: Double, limit: Double)]

    init(learners: Int) {
        realised = Array(repeating: Moments(), count: learners + 1)
        differences = Array(repeating: Array(repeating: Moments(), count: learners + 1), count: learners + 1)
        country = Array(repeating: (0, 0), count: learners)
    }

    /// Adds `learner`'s day in the named country: its revenue there and the limit's, USD.
    mutating func addCountry(learner: Int, revenue: Double, limit: Double) {
        guard learner < country.count else { return }
        country[learner].revenue += revenue
        country[learner].limit += limit
    }

    mutating func add(_ totals: MultiTotals) {
        for run in realised.indices { realised[run].add(totals.runs[run].realised) }
        for j in realised.indices {
            for k in realised.indices where k > j {
                differences[j][k].add(totals.difference(.realised, from: j, to: k))
            }
        }
    }

    func run(placementID: String, seed: UInt64, learning: LearningOptions, auctionsPerDay: Int, learners: [String], daily: [LearningDay]) -> LearningRun {
        let limit = (Estimators.mean(realised[0])?.mean ?? 0) / 1_000_000
        let summaries = learners.indices.map { learner in
            let revenue = (Estimators.mean(realised[learner + 1])?.mean ?? 0) / 1_000_000
            let versusLimit = Estimators.mean(differences[0][learner + 1])
            let interval: ConfidenceInterval? = limit > 0 ? versusLimit?.interval.map { ConfidenceInterval(lower: 1 + $0.lower / 1_000_000 / limit, upper: 1 + $0.upper / 1_000_000 / limit) } : nil
            let fromDay3 = daily.filter { $0.day >= 3 }.compactMap { $0.learners[learner].ratioToLimit }
            return LearnerSummary(
                learner: learners[learner], revenuePer1000Requests: revenue,
                ratioToLimit: limit > 0 ? revenue / limit : nil, ratioToLimitInterval: interval,
                minimumDailyRatioFromDay3: fromDay3.min(),
                countryRatioToLimit: learning.country == nil || country[learner].limit <= 0 ? nil : country[learner].revenue / country[learner].limit
            )
        }
        var pairs: [LearnerDifference] = []
        for j in learners.indices {
            for k in learners.indices where k > j {
                let difference = Estimators.mean(differences[j + 1][k + 1])
                pairs.append(LearnerDifference(a: learners[j], b: learners[k], revenuePer1000Requests: FigureDifference(
                    figure: "revenue_per_1000_requests",
                    a: summaries[j].revenuePer1000Requests, b: summaries[k].revenuePer1000Requests,
                    difference: difference.map { $0.mean / 1_000_000 },
                    interval: difference?.interval?.divided(by: 1_000_000),
                    method: .paired
                )))
            }
        }
        // Then the limit against each learner, the same per-auction differences (learner − limit,
        // turned round): what any learner could at most gain over it on these draws.
        for learner in learners.indices {
            let difference = Estimators.mean(differences[0][learner + 1])
            pairs.append(LearnerDifference(a: learners[learner], b: LearnerDifference.limit, revenuePer1000Requests: FigureDifference(
                figure: "revenue_per_1000_requests",
                a: summaries[learner].revenuePer1000Requests, b: limit,
                difference: difference.map { -$0.mean / 1_000_000 },
                interval: difference?.interval.map { ConfidenceInterval(lower: -$0.upper, upper: -$0.lower).divided(by: 1_000_000) },
                method: .paired
            )))
        }
        return LearningRun(
            placementID: placementID, seed: seed, days: learning.days, auctionsPerDay: auctionsPerDay,
            drifts: learning.drifts, learners: learners, daily: daily, limitRevenuePer1000Requests: limit,
            summaries: summaries, differences: pairs
        )
    }
}

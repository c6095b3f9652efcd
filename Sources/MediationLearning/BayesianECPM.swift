import Foundation

/// The learned eCPM of fixed-price line items (engine rule R23: a price is an estimate), from
/// what their networks reported paying, per line item and per country. Pure: the same reports,
/// parameters and day give the same estimates. The model is described in `docs/learning.md`:
///
/// - Each reported day weighs `w = 0.5^(age / halfLifeDays)` (age 0 on the as-of day), within
///   ``Parameters/windowDays``; a series (a line item, or one country of it) has the weighted
///   impressions `N = Σ w·n`, revenue `R = Σ w·r` and eCPM `x = 1000·R / N`, whose variance is
///   `σ²·Σ w²·n / N²` for a per-impression variance `σ² = cv²·μ²`.
/// - `cv²` is estimated from the day-to-day spread of the daily eCPMs of every series
///   (``EmpiricalBayes/dispersion(_:minimumDegrees:)``), else ``Parameters/dispersion``².
/// - Three levels, each pooled towards its parent with a strength estimated from the data (the
///   method of moments across the units): a line item's ratio of paid to configured price
///   towards its network's ratio (and that towards 1, the configured prices, a weak prior of
///   relative sd ``Parameters/priorRelativeSD``); a country's eCPM towards its line item's
///   countries, whose centre is the mean of the countries where it takes a like share of the
///   placement's impressions (a kernel in the log share, its bandwidth weighed by the data), with
///   the line item's own between-country spread, `cv²` and day-to-day movement.
/// - The 90 % credible interval is a gamma's with the posterior mean and standard deviation.
/// - A change of price level: walking back from the newest reported day, the first day whose
///   eCPM is more than ``Parameters/changeZ`` standard errors and more than
///   ``Parameters/minimumLevelChange`` (relative) from the newer days' ends the
///   current level; it and older days are left out (``Estimate/levelStart``), per line item and
///   per country.
/// - The decision: below ``Parameters/minimumEffectiveImpressions`` weighted impressions the
///   configured price is kept (`kept_too_little_data`); a change larger than
///   ``Parameters/maximumChange`` of the configured price is capped there (`change_capped`);
///   else the estimate is taken (`changed`).
public struct BayesianECPM: Sendable {
    /// The model's settings.
    public struct Parameters: Hashable, Sendable {
        /// The age in days at which a day's data weighs half (3).
        public var halfLifeDays: Double = 3
        /// The days learned from, the as-of day included (28); older days weigh nothing.
        public var windowDays: Int = 28
        /// The relative standard deviation of the prior that the configured prices are right
        /// (1: a weak prior), used where the between-unit variance cannot be estimated (fewer
        /// than 3 units with data).
        public var priorRelativeSD: Double = 1
        /// The degrees of freedom (reported days beyond the first, over every series) below
        /// which ``dispersion`` is used instead of the estimate from the data (5).
        public var minimumDispersionDegrees: Int = 5
        /// Below this many effective impressions the configured price is kept (100).
        public var minimumEffectiveImpressions: Double = 100
        /// The largest change per update, a fraction of the configured price (0.5: ±50 %).
        public var maximumChange: Double = 0.5
        /// The coefficient of variation of one impression's price where the data has too few
        /// days to estimate it (1: an exponential spread).
        public var dispersion: Double = 1
        /// The standard normal quantile of the credible interval (1.6448536269514722: 90 %).
        public var intervalZ: Double = 1.6448536269514722
        /// The z score at which an older day's eCPM is taken as a different price level (5):
        /// walking back from the newest reported day, a day whose eCPM `x` differs from the
        /// newer days' `μ` by more than `changeZ · c · μ · √(1/n + 1/N)` (its impressions `n`,
        /// theirs `N`) ends the current level, and it and every older day are not used. `.infinity`
        /// turns the detection off.
        public var changeZ: Double = 5
        /// The smallest relative difference taken as a new price level (0.3: 30 %); smaller moves,
        /// however certain, are left to the recency weighting.
        public var minimumLevelChange: Double = 0.3
        /// The bandwidths, in log share, of the kernel that centres a line item's countries
        /// (0.25, 0.5, 1, 2 and 4): a country's centre is the kernel-weighted mean of the
        /// countries where its line item takes a like share of the placement's impressions, each
        /// bandwidth weighed, with the between-country spread, by how well it predicts each
        /// country from the others (leave one out). Empty: one line in the log share instead.
        public var centreBandwidths: [Double] = [0.25, 0.5, 1, 2, 4]

        /// The defaults.
        public init() {}
    }

    /// One reported day of a line item.
    public struct Observation: Hashable, Sendable {
        /// The UTC day.
        public var day: UTCDay
        /// The network's impressions that day.
        public var impressions: Int
        /// The network's revenue that day, USD.
        public var revenueUSD: Double
        /// The country the row covers (``RevenueRow/country``): a code, empty for no known
        /// country, `nil` for every country.
        public var country: String?

        /// Creates an observation.
        public init(day: UTCDay, impressions: Int, revenueUSD: Double, country: String? = nil) {
            self.day = day
            self.impressions = impressions
            self.revenueUSD = revenueUSD
            self.country = country
        }
    }

    /// A fixed-price line item to learn: its configured price and its reported days.
    public struct Input: Hashable, Sendable {
        /// The placement id.
        public var placementID: String
        /// The line item id.
        public var lineItemID: String
        /// The network id (line items of one network are pooled).
        public var network: String
        /// The configured eCPM, USD CPM (positive).
        public var configuredECPM: Double
        /// The reported days.
        public var observations: [Observation]

        /// Creates an input.
        public init(placementID: String, lineItemID: String, network: String, configuredECPM: Double, observations: [Observation]) {
            self.placementID = placementID
            self.lineItemID = lineItemID
            self.network = network
            self.configuredECPM = configuredECPM
            self.observations = observations
        }
    }

    /// What is done with a line item's estimate.
    public enum Decision: String, Hashable, Sendable, Codable {
        /// The estimate becomes the line item's eCPM.
        case changed
        /// Too few effective impressions: the configured eCPM is kept.
        case keptTooLittleData = "kept_too_little_data"
        /// The estimate moved more than the cap: the eCPM moves by the cap.
        case changeCapped = "change_capped"
    }

    /// A line item's estimate.
    public struct Estimate: Hashable, Sendable {
        /// The placement id.
        public var placementID: String
        /// The line item id.
        public var lineItemID: String
        /// The network id.
        public var network: String
        /// The configured eCPM, USD CPM.
        public var configuredECPM: Double
        /// The prior mean from the network's pool, USD CPM (the configured price times the
        /// network's pooled ratio of paid to configured price).
        public var pooledECPM: Double
        /// The posterior mean, USD CPM.
        public var mean: Double
        /// The posterior standard deviation, USD CPM.
        public var standardDeviation: Double
        /// The lower end of the 90 % credible interval, USD CPM.
        public var lower: Double
        /// The upper end of the 90 % credible interval, USD CPM.
        public var upper: Double
        /// The recency-weighted impressions (`N`), every country together.
        public var effectiveImpressions: Double
        /// The reported impressions in the window, unweighted.
        public var impressions: Int
        /// The reported days in the window.
        public var days: Int
        /// The decision.
        public var decision: Decision
        /// The eCPM the line item gets, USD CPM: the configured one, the estimate, or the cap.
        public var newECPM: Double
        /// When an older day's eCPM was inconsistent with the newer days' (a price change, see
        /// ``Parameters/changeZ``), the first day of the current level; `nil` when none was found.
        public var levelStart: UTCDay?
        /// The line item's countries with data (rows with a country code), by code.
        public var countries: [CountryEstimate] = []
    }

    /// The model's settings.
    public var parameters: Parameters

    /// Creates an estimator.
    /// - Parameter parameters: the settings (default: ``Parameters/init()``).
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// The weight of a day `age` days before the as-of day: `0.5^(age / halfLifeDays)`; 0
    /// outside the window or in the future.
    /// - Parameter age: the as-of day minus the day.
    public func weight(age: Int) -> Double {
        guard age >= 0, age < parameters.windowDays else { return 0 }
        return pow(0.5, Double(age) / parameters.halfLifeDays)
    }

    /// The estimates of `inputs` as of `asOf`, in input order (`docs/learning.md`, "The
    /// estimate"): each line item pooled towards its network, each of its countries towards it,
    /// with the pooling strengths estimated from the data.
    /// - Parameters:
    ///   - inputs: the fixed-price line items with their reported days.
    ///   - asOf: the day the estimate is for (its data weighs 1).
    public func estimate(_ inputs: [Input], asOf: UTCDay) -> [Estimate] {
        typealias Sums = EmpiricalBayes.Sums
        // Per line item: its sums (all its rows), its countries' sums (rows with a country code),
        // and the daily series the dispersion is estimated from.
        struct Sorted {
            var total = Sums()
            var level: UTCDay?
            var countries: [(code: String, sums: Sums, level: UTCDay?)] = []
            var series: [[(impressions: Int, revenueUSD: Double)]] = []
        }
        let sorted = inputs.map { input -> Sorted in
            var result = Sorted()
            // The line item's days: every row of a day summed (its countries together).
            var byDay: [UTCDay: Observation] = [:]
            var byCountry: [String: [Observation]] = [:]
            for observation in input.observations {
                byDay[observation.day, default: Observation(day: observation.day, impressions: 0, revenueUSD: 0)].impressions += observation.impressions
                byDay[observation.day, default: Observation(day: observation.day, impressions: 0, revenueUSD: 0)].revenueUSD += observation.revenueUSD
                if let code = observation.country, !code.isEmpty { byCountry[code, default: []].append(observation) }
            }
            let days = Array(byDay.values)
            result.level = levelStart(of: days, asOf: asOf)
            result.total = sums(days, from: result.level, asOf: asOf)
            for code in byCountry.keys.sorted() {
                let rows = byCountry[code] ?? []
                let level = levelStart(of: rows, asOf: asOf)
                result.countries.append((code, sums(rows, from: level, asOf: asOf), level))
                result.series.append(window(rows, from: level, asOf: asOf))
            }
            if result.countries.isEmpty { result.series.append(window(days, from: result.level, asOf: asOf)) }
            return result
        }
        // Each line item's share of its placement's impressions in each country (log), recency
        // weighted over the window without level cuts: how far its country's auctions reach
        // down to it.
        var own: [[String: Double]] = []
        var placementCountry: [String: [String: Double]] = [:]
        for input in inputs {
            var mine: [String: Double] = [:]
            for observation in input.observations {
                guard let code = observation.country, !code.isEmpty else { continue }
                let w = weight(age: asOf.daysSince1970 - observation.day.daysSince1970) * Double(observation.impressions)
                mine[code, default: 0] += w
                placementCountry[input.placementID, default: [:]][code, default: 0] += w
            }
            own.append(mine)
        }
        let logShares: [[String: Double]] = inputs.indices.map { index in
            var result: [String: Double] = [:]
            for (code, w) in own[index] where w > 0 {
                if let total = placementCountry[inputs[index].placementID]?[code], total > 0 { result[code] = Foundation.log(w / total) }
            }
            return result
        }
        // The per-impression dispersion, pooled over every series; the configured one without
        // enough days.
        let fallback = parameters.dispersion * parameters.dispersion
        let dispersion = EmpiricalBayes.dispersion(sorted.flatMap(\.series), minimumDegrees: parameters.minimumDispersionDegrees, prior: (fallback, Double(parameters.minimumDispersionDegrees)))
        let cv2 = min(max(dispersion?.impression ?? fallback, 0.0001), 10_000)
        let drift = min(dispersion?.daily ?? 0, 10_000)
        // A series' variance per squared price: its sampling noise and the movement of the true
        // price from day to day.
        // Each line item's own dispersion and movement, fitted to its own series with the pooled
        // `cv²` as the prior pseudo-series (a tier's price spread depends on how far its floor
        // sits in the bids: a high tier paid from the bids' tail spreads far more than a low
        // one); the pooled figures where its series have too few days.
        let perItem: [(cv2: Double, drift: Double)] = sorted.map { item in
            guard let own = EmpiricalBayes.dispersion(item.series, minimumDegrees: parameters.minimumDispersionDegrees, prior: (cv2, Double(parameters.minimumDispersionDegrees))) else {
                return (cv2, drift)
            }
            return (min(max(own.impression, 0.0001), 10_000), min(own.daily, 10_000))
        }
        func scale(_ sums: Sums, _ member: Int) -> Double { perItem[member].cv2 / sums.effective + perItem[member].drift * sums.movement }
        let prior2 = parameters.priorRelativeSD * parameters.priorRelativeSD

        // Line items within their network, on the scale of the configured price: r = x / p.
        var lineItemMeans = [Double](repeating: 0, count: inputs.count)
        var lineItemVariances = [Double](repeating: 0, count: inputs.count)
        var pooledRatios = [Double](repeating: 1, count: inputs.count)
        for network in Set(inputs.map(\.network)) {
            let members = inputs.indices.filter { inputs[$0].network == network }
            let withData = members.filter { sorted[$0].total.eCPM != nil && sorted[$0].total.effective > 0 }
            let ratios = withData.map { (sorted[$0].total.eCPM ?? 0) / inputs[$0].configuredECPM }
            // Sampling variances at a plug-in level: first the plain mean of the ratios, then
            // each line item's own posterior mean.
            var plugIn = withData.map { _ in ratios.isEmpty ? 1 : ratios.reduce(0, +) / Double(ratios.count) }
            var ratio = 1.0, ratioVariance = prior2, between = prior2, units: Int?
            for _ in 0..<2 {
                let variances = withData.indices.map { max(scale(sorted[withData[$0]].total, withData[$0]) * plugIn[$0] * plugIn[$0], 1e-12) }
                if let estimated = EmpiricalBayes.betweenVariance(values: ratios, variances: variances) {
                    (between, units) = (estimated, withData.count)
                } else {
                    (between, units) = (prior2, nil)
                }
                // The network's ratio: its line items' ratios, and the configured prices' 1 as a
                // weak prior (relative sd ``Parameters/priorRelativeSD``).
                var weight = 1 / prior2, sum = 1 / prior2
                for index in withData.indices {
                    weight += 1 / (variances[index] + between)
                    sum += ratios[index] / (variances[index] + between)
                }
                (ratio, ratioVariance) = (sum / weight, 1 / weight)
                for member in members {
                    let index = withData.firstIndex(of: member)
                    let post = EmpiricalBayes.selfConsistentPosterior(value: index.map { ratios[$0] }, scale: index.map { scale(sorted[withData[$0]].total, withData[$0]) } ?? 0, parent: ratio, parentVariance: ratioVariance, between: between, units: units)
                    let price = inputs[member].configuredECPM
                    lineItemMeans[member] = price * post.mean
                    lineItemVariances[member] = price * price * post.variance
                    pooledRatios[member] = ratio
                    if let index { plugIn[index] = max(post.mean, 1e-9) }
                }
            }
        }

        // Countries within their line item, relative to its mean; the between-country variance
        // estimated over the network's countries.
        var countryEstimates = inputs.map { _ in [CountryEstimate]() }
        for network in Set(inputs.map(\.network)) {
            let members = inputs.indices.filter { inputs[$0].network == network && lineItemMeans[$0] > 0 }
            var cells: [(member: Int, country: Int, value: Double, variance: Double)] = []
            for member in members {
                for (position, country) in sorted[member].countries.enumerated() {
                    guard let eCPM = country.sums.eCPM, country.sums.effective > 0 else { continue }
                    cells.append((member, position, eCPM / lineItemMeans[member], 0))
                }
            }
            var cellIndex: [Int: [Int: Int]] = [:]
            for (index, cell) in cells.enumerated() { cellIndex[cell.member, default: [:]][cell.country] = index }
            var plugIn = cells.map { _ in 1.0 }
            var between = prior2, units: Int?
            var results: [Int: [(mean: Double, variance: Double, shrinkage: Double)]] = [:]
            for _ in 0..<2 {
                for index in cells.indices {
                    let sums = sorted[cells[index].member].countries[cells[index].country].sums
                    cells[index].variance = max(scale(sums, cells[index].member) * plugIn[index] * plugIn[index], 1e-12)
                }
                if let estimated = EmpiricalBayes.betweenVariance(values: cells.map(\.value), variances: cells.map(\.variance)) {
                    (between, units) = (estimated, cells.count)
                } else {
                    (between, units) = (prior2, nil)
                }
                results = [:]
                for member in members {
                    let parentVariance = lineItemVariances[member] / (lineItemMeans[member] * lineItemMeans[member])
                    results[member] = sorted[member].countries.indices.map { position in
                        let cell = cellIndex[member]?[position]
                        let post = EmpiricalBayes.selfConsistentPosterior(value: cell.map { cells[$0].value }, scale: cell.map { scale(sorted[member].countries[cells[$0].country].sums, member) } ?? 0, parent: 1, parentVariance: parentVariance, between: between, units: units)
                        if let cell { plugIn[cell] = max(post.mean, 1e-9) }
                        return post
                    }
                }
            }
            // The between-country spread integrated over its posterior, each line item's
            // countries around their own centre (the plug-in variances of the last pass).
            let groups = members.map { member in
                cells.indices.filter { cells[$0].member == member }
            }
            // Two passes, the sampling variances following the posterior means as above.
            var grouped = EmpiricalBayes.GroupPosteriors(units: [], newUnit: [])
            for _ in 0..<2 {
                let values = groups.map { $0.map { cells[$0].value } }
                let variances = groups.map { $0.map { index in
                    max(scale(sorted[cells[index].member].countries[cells[index].country].sums, cells[index].member) * plugIn[index] * plugIn[index], 1e-12)
                } }
                // Each line item on its own: its countries' centre follows their log share of
                // the placement's impressions (a high tier that takes a small share of a
                // country's impressions is paid from the bids' tail just above its floor), and
                // their spread `τ` is its own. The centre is local in the share (a kernel, its
                // bandwidth weighed by leave-one-out evidence): a line fitted on the thick
                // countries extrapolated the thinnest ones' centre below their floors.
                grouped = EmpiricalBayes.GroupPosteriors(units: [], newUnit: [])
                for group in groups.indices {
                    let shares = groups[group].map { index in
                        logShares[cells[index].member][sorted[cells[index].member].countries[cells[index].country].code] ?? 0
                    }
                    // τ's uniform prior reaches at least the countries' own standard deviation (3
                    // where that is smaller): the scale here is the line item's mean, set by its
                    // impressions, and a country that earns nothing on most of them puts every
                    // other country far above 1; a τ capped at 3 then excluded the spread the data
                    // shows and pulled a steady country outside its own constant price.
                    let count = Double(values[group].count)
                    let centre = values[group].reduce(0, +) / max(count, 1)
                    let spread = count > 1 ? (values[group].reduce(0) { $0 + ($1 - centre) * ($1 - centre) } / (count - 1)).squareRoot() : 0
                    let one = EmpiricalBayes.groupPosteriors(values: [values[group]], variances: [variances[group]], covariates: [shares], bandwidths: parameters.centreBandwidths, maximumSD: max(3, spread.isFinite ? spread : 3))
                    grouped.units.append(one.units[0])
                    grouped.newUnit.append(one.newUnit[0])
                }
                for (group, indices) in groups.enumerated() {
                    for (unit, index) in indices.enumerated() { plugIn[index] = max(grouped.units[group][unit].mean, 1e-9) }
                }
            }
            for (group, member) in members.enumerated() {
                var byPosition: [Int: (mean: Double, variance: Double, shrinkage: Double)] = [:]
                for (unit, index) in groups[group].enumerated() { byPosition[cells[index].country] = grouped.units[group][unit] }
                results[member] = (results[member] ?? []).enumerated().map { position, old in
                    if let unit = byPosition[position] { return unit }
                    if let centre = grouped.newUnit[group] { return (centre.mean, centre.variance, 1) }
                    return old
                }
            }
            for member in members {
                let parent = lineItemMeans[member]
                countryEstimates[member] = zip(sorted[member].countries, results[member] ?? []).map { country, post in
                    let mean = parent * post.mean, sd = parent * post.variance.squareRoot()
                    let interval = EmpiricalBayes.gammaInterval(mean: mean, sd: sd, z: parameters.intervalZ)
                    return CountryEstimate(
                        country: country.code, mean: mean, standardDeviation: sd, lower: interval.lower, upper: interval.upper,
                        shrinkage: post.shrinkage, effectiveImpressions: country.sums.weighted, impressions: country.sums.impressions,
                        days: country.sums.days, levelStart: country.level
                    )
                }
            }
        }

        return inputs.indices.map { index in
            let input = inputs[index], sum = sorted[index].total
            let price = input.configuredECPM
            let mean = lineItemMeans[index], sd = lineItemVariances[index].squareRoot()
            let interval = EmpiricalBayes.gammaInterval(mean: mean, sd: sd, z: parameters.intervalZ)
            let decision: Decision
            var newECPM = price
            if sum.weighted < parameters.minimumEffectiveImpressions {
                decision = .keptTooLittleData
            } else {
                let low = price * (1 - parameters.maximumChange), high = price * (1 + parameters.maximumChange)
                if mean < low || mean > high {
                    decision = .changeCapped
                    newECPM = min(max(mean, low), high)
                } else {
                    decision = .changed
                    newECPM = mean
                }
            }
            return Estimate(
                placementID: input.placementID, lineItemID: input.lineItemID, network: input.network,
                configuredECPM: price, pooledECPM: price * pooledRatios[index], mean: mean, standardDeviation: sd,
                lower: interval.lower, upper: interval.upper,
                effectiveImpressions: sum.weighted, impressions: sum.impressions, days: sum.days,
                decision: decision, newECPM: newECPM, levelStart: sorted[index].level, countries: countryEstimates[index]
            )
        }
    }

    /// The recency-weighted sums of `observations` from `level` on (every day when `nil`).
    private func sums(_ observations: [Observation], from level: UTCDay?, asOf: UTCDay) -> EmpiricalBayes.Sums {
        var result = EmpiricalBayes.Sums()
        for observation in observations where level.map({ observation.day >= $0 }) ?? true {
            let w = weight(age: asOf.daysSince1970 - observation.day.daysSince1970)
            guard w > 0 else { continue }
            result.add(observation, weight: w)
        }
        return result
    }

    /// The days of `observations` inside the window and from `level` on, for the dispersion.
    private func window(_ observations: [Observation], from level: UTCDay?, asOf: UTCDay) -> [(impressions: Int, revenueUSD: Double)] {
        observations
            .filter { observation in
                (level.map { observation.day >= $0 } ?? true) && weight(age: asOf.daysSince1970 - observation.day.daysSince1970) > 0
            }
            .map { ($0.impressions, $0.revenueUSD) }
    }

    /// The first day of the newest price level among `observations` (see
    /// ``Parameters/changeZ``), or `nil` when every day in the window is consistent with the
    /// newer ones.
    /// - Parameters:
    ///   - observations: a line item's reported days.
    ///   - asOf: the as-of day.
    public func levelStart(of observations: [Observation], asOf: UTCDay) -> UTCDay? {
        guard parameters.changeZ.isFinite else { return nil }
        let days = observations
            .filter { $0.impressions > 0 && weight(age: asOf.daysSince1970 - $0.day.daysSince1970) > 0 }
            .sorted { $0.day > $1.day }
        var impressions = 0.0, revenue = 0.0
        var start: UTCDay?
        for day in days {
            let n = Double(day.impressions)
            if impressions > 0, revenue > 0 {
                let level = 1000 * revenue / impressions
                let eCPM = 1000 * day.revenueUSD / n
                let bound = parameters.changeZ * parameters.dispersion * level * (1 / n + 1 / impressions).squareRoot()
                if abs(eCPM - level) > max(bound, parameters.minimumLevelChange * level) { return start }
            }
            impressions += n
            revenue += day.revenueUSD
            start = day.day
        }
        return nil
    }
}

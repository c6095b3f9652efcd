import Foundation

/// The learned eCPM of fixed-price line items (engine rule R23: a price is an estimate), from
/// what their networks reported paying. Pure: the same reports, parameters and day give the
/// same estimates. The model is described in `docs/learning.md`:
///
/// - Each reported day of a line item weighs `w = 0.5^(age / halfLifeDays)` (age 0 on the
///   as-of day), within ``Parameters/windowDays``; its effective impressions are
///   `N = Σ w·n` and its weighted revenue `R = Σ w·r` (USD).
/// - The network's pooled ratio of paid to configured price, shrunk towards 1 (the configured
///   prices) by `m` = ``Parameters/priorImpressions`` pseudo-impressions:
///   `ρ = (m + Σ 1000·R_i / p_i) / (m + Σ N_i)` over the network's line items `i`.
/// - The line item's prior mean is `p·ρ` (its configured price `p`, USD CPM, times the pool),
///   worth `m` pseudo-impressions; the posterior mean is `μ = (m·p·ρ + 1000·R) / (m + N)`: the
///   weight of the data grows with its impressions, with no hard gate.
/// - Normal approximation: an impression's price varies with a coefficient of variation
///   `c` = ``Parameters/dispersion``, so `sd = c·μ / √(m + N)`, and the 90 % credible interval is
///   `μ ± 1.6449·sd` (the lower end at least 0).
/// - A change of price level: walking back from the newest reported day, the first day whose
///   eCPM is more than ``Parameters/changeZ`` standard errors and more than
///   ``Parameters/minimumLevelChange`` (relative) from the newer days' ends the
///   current level; it and older days are left out (``Estimate/levelStart``).
/// - The decision: below ``Parameters/minimumEffectiveImpressions`` effective impressions the
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
        /// The weight of the prior (the configured price, and the pooled ratio's 1), in
        /// pseudo-impressions (500).
        public var priorImpressions: Double = 500
        /// Below this many effective impressions the configured price is kept (100).
        public var minimumEffectiveImpressions: Double = 100
        /// The largest change per update, a fraction of the configured price (0.5: ±50 %).
        public var maximumChange: Double = 0.5
        /// The coefficient of variation of one impression's price (1: an exponential spread).
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
        /// The prior mean from the network's pool, USD CPM (`p·ρ`).
        public var pooledECPM: Double
        /// The posterior mean, USD CPM.
        public var mean: Double
        /// The posterior standard deviation, USD CPM.
        public var standardDeviation: Double
        /// The lower end of the 90 % credible interval, USD CPM.
        public var lower: Double
        /// The upper end of the 90 % credible interval, USD CPM.
        public var upper: Double
        /// The recency-weighted impressions (`N`).
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

    /// The estimates of `inputs` as of `asOf`, in input order.
    /// - Parameters:
    ///   - inputs: the fixed-price line items with their reported days.
    ///   - asOf: the day the estimate is for (its data weighs 1).
    public func estimate(_ inputs: [Input], asOf: UTCDay) -> [Estimate] {
        let m = parameters.priorImpressions
        struct Weighted { var effective = 0.0, revenue = 0.0, impressions = 0, days = 0 }
        let levels = inputs.map { levelStart(of: $0.observations, asOf: asOf) }
        let weighted = zip(inputs, levels).map { input, level in
            var sum = Weighted()
            for observation in input.observations where level.map({ observation.day >= $0 }) ?? true {
                let w = weight(age: asOf.daysSince1970 - observation.day.daysSince1970)
                guard w > 0 else { continue }
                sum.effective += w * Double(observation.impressions)
                sum.revenue += w * observation.revenueUSD
                sum.impressions += observation.impressions
                sum.days += 1
            }
            return sum
        }
        // The network pools: ρ = (m + Σ 1000·R_i / p_i) / (m + Σ N_i).
        var pools: [String: (ratioImpressions: Double, effective: Double)] = [:]
        for (input, sum) in zip(inputs, weighted) {
            pools[input.network, default: (0, 0)].ratioImpressions += 1000 * sum.revenue / input.configuredECPM
            pools[input.network, default: (0, 0)].effective += sum.effective
        }
        return zip(zip(inputs, weighted), levels).map { pair, level in
            let (input, sum) = pair
            let pool = pools[input.network] ?? (0, 0)
            let ratio = (m + pool.ratioImpressions) / (m + pool.effective)
            let price = input.configuredECPM
            let pooled = price * ratio
            let mean = (m * pooled + 1000 * sum.revenue) / (m + sum.effective)
            let sd = parameters.dispersion * mean / (m + sum.effective).squareRoot()
            let half = parameters.intervalZ * sd
            let decision: Decision
            var newECPM = price
            if sum.effective < parameters.minimumEffectiveImpressions {
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
                configuredECPM: price, pooledECPM: pooled, mean: mean, standardDeviation: sd,
                lower: max(0, mean - half), upper: mean + half,
                effectiveImpressions: sum.effective, impressions: sum.impressions, days: sum.days,
                decision: decision, newECPM: newECPM, levelStart: level
            )
        }
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

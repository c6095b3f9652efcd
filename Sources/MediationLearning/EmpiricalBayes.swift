import Foundation

/// The empirical-Bayes pieces of ``BayesianECPM`` (`docs/learning.md`, "The estimate"): the
/// recency-weighted sums of a series of reported days, the per-impression dispersion pooled over
/// series, the between-unit variance by the method of moments (DerSimonian and Laird), the
/// normal-normal posterior of one unit under its parent, and the gamma credible interval.
enum EmpiricalBayes {
    /// The recency-weighted sums of one series of reported days (a line item, or one country of
    /// it).
    struct Sums: Hashable {
        /// `N = Σ w·n`: the weighted impressions.
        var weighted = 0.0
        /// `R = Σ w·r`: the weighted revenue, USD.
        var revenue = 0.0
        /// `Q = Σ w²·n`: the variance of the weighted mean is `σ²·Q / N²` for a per-impression
        /// variance `σ²`.
        var squaredWeights = 0.0
        /// The reported impressions, unweighted.
        var impressions = 0
        /// The reported days with a positive weight.
        var days = 0

        /// Adds one reported day of weight `w`.
        mutating func add(_ observation: BayesianECPM.Observation, weight w: Double) {
            weighted += w * Double(observation.impressions)
            revenue += w * observation.revenueUSD
            squaredWeights += w * w * Double(observation.impressions)
            impressions += observation.impressions
            days += 1
        }

        /// The weighted eCPM `1000·R / N`, USD CPM; `nil` without impressions.
        var eCPM: Double? { weighted > 0 ? 1000 * revenue / weighted : nil }

        /// The effective number of impressions `N² / Q` (the impressions the weighted mean is
        /// worth); 0 without impressions.
        var effective: Double { squaredWeights > 0 ? weighted * weighted / squaredWeights : 0 }
    }

    /// The squared coefficient of variation of one impression's price, pooled over `series`
    /// (each a list of daily impressions and revenue): `Σ Σ n_d·(x_d − x̄)² / x̄² / Σ (D − 1)` over
    /// the series with 2 days or more. It holds the day-to-day movement of the price too, which
    /// widens the intervals as that movement does. `nil` with fewer than `minimumDegrees`
    /// degrees of freedom.
    static func dispersion(_ series: [[(impressions: Int, revenueUSD: Double)]], minimumDegrees: Int) -> Double? {
        var sum = 0.0, degrees = 0
        for days in series {
            let kept = days.filter { $0.impressions > 0 }
            guard kept.count >= 2 else { continue }
            let impressions = Double(kept.reduce(0) { $0 + $1.impressions })
            let mean = 1000 * kept.reduce(0) { $0 + $1.revenueUSD } / impressions
            guard mean > 0 else { continue }
            for day in kept {
                let x = 1000 * day.revenueUSD / Double(day.impressions)
                sum += Double(day.impressions) * (x - mean) * (x - mean) / (mean * mean)
            }
            degrees += kept.count - 1
        }
        guard degrees >= minimumDegrees, degrees > 0 else { return nil }
        return sum / Double(degrees)
    }

    /// The between-unit variance `τ²` by the method of moments (DerSimonian and Laird) from
    /// `values` and their sampling `variances` (positive); `nil` with fewer than 3 units.
    static func betweenVariance(values: [Double], variances: [Double]) -> Double? {
        guard values.count >= 3, values.count == variances.count else { return nil }
        let weights = variances.map { 1 / $0 }
        let total = weights.reduce(0, +)
        guard total > 0, total.isFinite else { return nil }
        let mean = zip(weights, values).reduce(0) { $0 + $1.0 * $1.1 } / total
        let q = zip(weights, values).reduce(0) { $0 + $1.0 * ($1.1 - mean) * ($1.1 - mean) }
        let denominator = total - weights.reduce(0) { $0 + $1 * $1 } / total
        guard denominator > 0 else { return 0 }
        return max(0, (q - Double(values.count - 1)) / denominator)
    }

    /// A unit's posterior under its parent (normal-normal): the unit's own `value` with sampling
    /// `variance`, shrunk towards `parent` (with its own variance) by
    /// `B = variance / (variance + between)`:
    /// mean `B·parent + (1 − B)·value`, variance `(1 − B)·variance + B²·parentVariance`, plus,
    /// when `between` was estimated from `units` ≥ 4 units, Morris's term for its uncertainty
    /// `2·B²·(value − parent)² / (units − 3)`. Without data (`value` `nil`) the parent, with
    /// variance `between + parentVariance`.
    static func posterior(value: Double?, variance: Double, parent: Double, parentVariance: Double, between: Double, units: Int?) -> (mean: Double, variance: Double, shrinkage: Double) {
        guard let value, variance.isFinite, variance > 0 else {
            return (parent, between + parentVariance, 1)
        }
        let b = between + variance > 0 ? variance / (between + variance) : 1
        var result = (1 - b) * variance + b * b * parentVariance
        if let units, units >= 4 { result += 2 * b * b * (value - parent) * (value - parent) / Double(units - 3) }
        return (b * parent + (1 - b) * value, result, b)
    }

    /// ``posterior(value:variance:parent:parentVariance:between:units:)`` where the sampling
    /// variance follows the unit's own mean, `variance = scale·m²` (a price's spread grows with
    /// the price): `m` is the fixed point `m = posterior(value, scale·m², …).mean`, found by
    /// bisection between `value` and `parent` (it lies between them), so a thin unit far from
    /// its parent is neither over-trusted at a low value nor given a spread of its own noisy
    /// value. Without data (`value` `nil`) the parent, as there.
    static func selfConsistentPosterior(value: Double?, scale: Double, parent: Double, parentVariance: Double, between: Double, units: Int?) -> (mean: Double, variance: Double, shrinkage: Double) {
        guard let value, scale.isFinite, scale > 0 else {
            return posterior(value: nil, variance: 0, parent: parent, parentVariance: parentVariance, between: between, units: units)
        }
        func at(_ m: Double) -> (mean: Double, variance: Double, shrinkage: Double) {
            posterior(value: value, variance: max(scale * m * m, 1e-12), parent: parent, parentVariance: parentVariance, between: between, units: units)
        }
        var low = min(value, parent), high = max(value, parent)
        for _ in 0..<100 where high - low > 1e-12 * max(high, 1e-300) {
            let middle = (low + high) / 2
            if at(middle).mean > middle { low = middle } else { high = middle }
        }
        return at((low + high) / 2)
    }

    /// The central credible interval at standard normal quantile `z` of a gamma distribution
    /// with `mean` and standard deviation `sd` (shape `k = (mean/sd)²`), by the Wilson–Hilferty
    /// cube-root approximation `mean·(1 − 1/(9k) ± z·√(1/(9k)))³`, the lower end at least 0. A
    /// price is positive and, where data is thin, skewed to the right.
    static func gammaInterval(mean: Double, sd: Double, z: Double) -> (lower: Double, upper: Double) {
        guard mean > 0, sd > 0, mean.isFinite, sd.isFinite else { return (max(0, mean), max(0, mean)) }
        let c = sd * sd / (9 * mean * mean)
        func quantile(_ z: Double) -> Double {
            let base = 1 - c + z * c.squareRoot()
            return base > 0 ? mean * base * base * base : 0
        }
        return (quantile(-z), quantile(z))
    }
}

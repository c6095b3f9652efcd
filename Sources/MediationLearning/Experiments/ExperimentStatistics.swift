import Foundation

/// The statistics of an experiment report (`docs/experiments.md`), pure functions of numbers:
/// the winsorizing cap, the relative difference per user with its naive and always-valid
/// intervals, the sample-ratio check, and the users needed for an effect.
package enum ExperimentStatistics {
    /// The percentile per-user revenue is capped at, in thousandths: 999 (the 99.9th, pooled
    /// across variants).
    package static let winsorizingPermille = 999
    /// ``winsorizingPermille`` as a percentile: 99.9.
    package static var winsorizingPercentile: Double { Double(winsorizingPermille) / 10 }
    /// The error rate of the intervals: 0.05 (95 % intervals).
    package static let alpha = 0.05
    /// The total exposed users the confidence sequence is tightest at (its tuning, as
    /// GrowthBook's "estimated users"): 100,000.
    package static let tuningUsers = 100_000.0
    /// The p-value under which the sample-ratio check withholds the result: 0.001.
    package static let sampleRatioThreshold = 0.001
    /// The fewest users a variant (control included) has before the report gives a verdict:
    /// 150, GrowthBook's minimum sample. The figures are printed before it, the verdict waits.
    package static let minimumUsersPerVariant = 150
    /// The power the "enough users" figure is for: 0.8.
    package static let power = 0.8

    /// The value at `permille` thousandths (1…1000) of `values` by nearest rank: the smallest
    /// value with at least that share of the values at or below it (`sorted[ceil(n·p/1000) − 1]`
    /// in whole numbers, numpy's `inverted_cdf` where n·p/1000 is not whole); `nil` for no
    /// values.
    package static func nearestRank(_ values: [Double], permille: Int) -> Double? {
        guard !values.isEmpty else { return nil }
        var sorted = values
        sorted.sort()
        let rank = (sorted.count * permille + 999) / 1000
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// Sums of one group's per-user values.
    package struct Moments: Equatable, Sendable {
        /// Users.
        package var count = 0
        /// Sum of the values.
        package var sum = 0.0
        /// Sum of the squared values.
        package var sumOfSquares = 0.0

        /// No users.
        package init() {}

        /// Adds one user's value.
        package mutating func add(_ value: Double) {
            count += 1
            sum += value
            sumOfSquares += value * value
        }

        /// Both groups' users as one group.
        package func merged(with other: Moments) -> Moments {
            var both = self
            both.count += other.count
            both.sum += other.sum
            both.sumOfSquares += other.sumOfSquares
            return both
        }

        /// The mean (0 for no users).
        package var mean: Double { count == 0 ? 0 : sum / Double(count) }
        /// The sample variance (n − 1; 0 for fewer than 2 users).
        package var variance: Double {
            guard count > 1 else { return 0 }
            let n = Double(count)
            return max(0, (sumOfSquares - sum * sum / n) / (n - 1))
        }
    }

    /// A variant's difference to control in the mean per user, relative to control.
    package struct Difference: Equatable, Sendable {
        /// (treatment mean ÷ control mean) − 1.
        package var relative: Double
        /// Its standard error (delta method).
        package var standardError: Double
        /// The fixed-sample 95 % interval (read once): relative ± 1.96 standard errors.
        package var naive: ClosedRange<Double>
        /// The always-valid interval (``confidenceSequenceHalfWidth(standardError:users:alpha:)``).
        package var sequential: ClosedRange<Double>
    }

    /// The relative difference of `treatment` to `control` with its intervals at `alpha`;
    /// `nil` when control's mean is 0 or a group has fewer than 2 users.
    ///
    /// A group whose values are all equal so far (sample variance 0, as a variant where no user
    /// has earned yet) is given the variance of both groups pooled instead: its own says nothing
    /// about its spread, and 0 would make a zero-width interval out of a handful of users.
    package static func difference(control: Moments, treatment: Moments, alpha: Double = alpha) -> Difference? {
        guard control.count > 1, treatment.count > 1, control.mean > 0 else { return nil }
        let a = control.mean, b = treatment.mean
        let relative = b / a - 1
        let pooled = control.merged(with: treatment).variance
        let treatmentVariance = treatment.variance > 0 ? treatment.variance : pooled
        let controlVariance = control.variance > 0 ? control.variance : pooled
        let variance = treatmentVariance / (Double(treatment.count) * a * a)
            + b * b * controlVariance / (Double(control.count) * a * a * a * a)
        let error = variance.squareRoot()
        let z = normalQuantile(1 - alpha / 2)
        let half = confidenceSequenceHalfWidth(standardError: error, users: Double(control.count + treatment.count), alpha: alpha)
        return Difference(relative: relative, standardError: error, naive: (relative - z * error)...(relative + z * error), sequential: (relative - half)...(relative + half))
    }

    /// The half-width of the asymptotic confidence sequence (a normal mixture, Waudby-Smith et
    /// al.; GrowthBook's sequential testing) for an estimate with `standardError` from `users`
    /// users: `σ √(2(Nρ²+1)/(N²ρ²) · ln(√(Nρ²+1)/α))` with `σ = standardError · √N` and
    /// `ρ² = (−2 ln α + ln(−2 ln α + 1)) / tuningUsers`. Valid at every read at once.
    package static func confidenceSequenceHalfWidth(standardError: Double, users: Double, alpha: Double = alpha, tuning: Double = tuningUsers) -> Double {
        let n = users
        let rho2 = (-2 * log(alpha) + log(-2 * log(alpha) + 1)) / tuning
        let sigma = standardError * n.squareRoot()
        return sigma * (2 * (n * rho2 + 1) / (n * n * rho2) * log((n * rho2 + 1).squareRoot() / alpha)).squareRoot()
    }

    /// The total users at which a true relative difference `effect` is seen (the always-valid
    /// interval excludes 0) with probability ``power``, when the per-user standard deviation of
    /// the relative estimate is `unitDeviation` (standard error × √users): the least `N` with
    /// `half-width(N) + z_power · unitDeviation / √N ≤ effect`, found by bisection; `nil` when
    /// no count up to 10^12 is enough.
    package static func usersNeeded(effect: Double, unitDeviation: Double, alpha: Double = alpha, power: Double = power) -> Double? {
        guard effect > 0, unitDeviation.isFinite else { return nil }
        let zPower = normalQuantile(power)
        func enough(_ n: Double) -> Bool {
            let error = unitDeviation / n.squareRoot()
            return confidenceSequenceHalfWidth(standardError: error, users: n, alpha: alpha) + zPower * error <= effect
        }
        var high = 4.0
        while !enough(high) {
            high *= 2
            if high > 1e12 { return nil }
        }
        var low = high / 2
        while high - low > 1 {
            let middle = ((low + high) / 2).rounded(.down)
            if enough(middle) { high = middle } else { low = middle }
        }
        return high
    }

    /// The sample-ratio check: Pearson's chi-square of `observed` users per variant against
    /// `weights` (any positive scale) and its p-value (k − 1 degrees of freedom).
    package static func sampleRatio(observed: [Int], weights: [Double]) -> (chiSquare: Double, p: Double) {
        let total = Double(observed.reduce(0, +))
        let weightSum = weights.reduce(0, +)
        guard total > 0, weightSum > 0, observed.count == weights.count, observed.count > 1 else { return (0, 1) }
        var chi = 0.0
        for (count, weight) in zip(observed, weights) where weight > 0 {
            let expected = total * weight / weightSum
            chi += (Double(count) - expected) * (Double(count) - expected) / expected
        }
        return (chi, chiSquareSurvival(chi, degreesOfFreedom: observed.count - 1))
    }

    /// P(X > x) for X chi-square with `degreesOfFreedom`: the regularized upper incomplete gamma
    /// function Q(k/2, x/2) (series below a + 1, continued fraction above).
    package static func chiSquareSurvival(_ x: Double, degreesOfFreedom: Int) -> Double {
        guard x > 0 else { return 1 }
        let a = Double(degreesOfFreedom) / 2, z = x / 2
        let logPrefix = a * log(z) - z - lgamma(a)
        if z < a + 1 {
            var term = 1 / a, sum = term, n = a
            for _ in 0..<10_000 {
                n += 1
                term *= z / n
                sum += term
                if abs(term) < abs(sum) * 1e-16 { break }
            }
            return max(0, 1 - sum * exp(logPrefix))
        }
        // Lentz's continued fraction for Q.
        let tiny = 1e-300
        var b = z + 1 - a, c = 1 / tiny, d = 1 / b, h = d
        for i in 1...10_000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-16 { break }
        }
        return min(1, exp(logPrefix) * h)
    }

    /// Φ(x), the standard normal distribution function.
    package static func normalCDF(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }

    /// Φ⁻¹(p) for p in (0, 1): Acklam's rational approximation refined by one Halley step
    /// (relative error under 1e-15).
    package static func normalQuantile(_ p: Double) -> Double {
        guard p > 0, p < 1 else { return p <= 0 ? -.infinity : .infinity }
        let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
        let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01]
        let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let low = 0.02425
        var x: Double
        if p < low {
            let q = (-2 * log(p)).squareRoot()
            x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        } else if p <= 1 - low {
            let q = p - 0.5, r = q * q
            x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        } else {
            let q = (-2 * log(1 - p)).squareRoot()
            x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        let e = normalCDF(x) - p
        let u = e * (2 * Double.pi).squareRoot() * exp(x * x / 2)
        x -= u / (1 + x * u / 2)
        return x
    }
}

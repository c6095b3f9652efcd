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
        /// `Σ (w·n)²`: with ``latest``, how far the weighted mean of the days' true prices can
        /// be from the as-of day's (``movement``).
        var squaredDayWeights = 0.0
        /// `w·n` of the as-of day (weight 1), 0 without a report that day.
        var latest = 0.0

        /// Adds one reported day of weight `w` (each observation a different day; `w = 1` is the
        /// as-of day).
        mutating func add(_ observation: BayesianECPM.Observation, weight w: Double) {
            let share = w * Double(observation.impressions)
            weighted += share
            revenue += w * observation.revenueUSD
            squaredWeights += w * share
            squaredDayWeights += share * share
            if w == 1 { latest += share }
            impressions += observation.impressions
            days += 1
        }

        /// The weighted eCPM `1000·R / N`, USD CPM; `nil` without impressions.
        var eCPM: Double? { weighted > 0 ? 1000 * revenue / weighted : nil }

        /// The effective number of impressions `N² / Q` (the impressions the weighted mean is
        /// worth); 0 without impressions.
        var effective: Double { squaredWeights > 0 ? weighted * weighted / squaredWeights : 0 }

        /// The variance of the weighted mean's error about the as-of day's true price per unit
        /// `δ²` of day-to-day movement (each day's true price `μ·(1 + a_d)`, the `a_d`
        /// independent with variance `δ²`): `1 − 2·f_T + Σ f_d²` with `f_d = w·n / N` the days'
        /// shares and `f_T` the as-of day's. 1 without impressions.
        var movement: Double {
            guard weighted > 0 else { return 1 }
            return max(0, 1 - 2 * latest / weighted + squaredDayWeights / (weighted * weighted))
        }
    }

    /// The per-impression dispersion `cv²` (the squared coefficient of variation of one
    /// impression's price) and the day-to-day movement `δ²` (the squared coefficient of
    /// variation of a day's true mean price around the series' level), pooled over `series`
    /// (each a list of daily impressions and revenue) by the method of moments. A series with
    /// `D ≥ 2` days, impressions `n_d`, `N = Σ n_d` and eCPMs `x_d` around `x̄` has
    /// `S = Σ n_d·(x_d − x̄)² / x̄²` with expectation `cv²·(D − 1) + δ²·(N − Σ n_d² / N)`: the
    /// sampling noise shrinks with a day's impressions, the movement does not. The two are fitted
    /// by weighted least squares over the series (weights `(D − 1) / E[S]²`, the variance of a
    /// χ²-like `S`; 20 rounds from `δ² = 0`), both at least 0; where the series cannot tell them
    /// apart (every series of the same shape), all of it is `cv²`, `δ² = 0`. `prior` is a
    /// pseudo-series without movement (``BayesianECPM/Parameters/dispersion``², worth
    /// ``BayesianECPM/Parameters/minimumDispersionDegrees`` degrees of freedom). `nil` with fewer
    /// than `minimumDegrees` degrees of freedom `Σ (D − 1)` in the data.
    static func dispersion(_ series: [[(impressions: Int, revenueUSD: Double)]], minimumDegrees: Int, prior: (dispersion: Double, degrees: Double)) -> (impression: Double, daily: Double)? {
        var rows: [(s: Double, degrees: Double, spread: Double)] = []
        for days in series {
            let kept = days.filter { $0.impressions > 0 }
            guard kept.count >= 2 else { continue }
            let impressions = Double(kept.reduce(0) { $0 + $1.impressions })
            let mean = 1000 * kept.reduce(0) { $0 + $1.revenueUSD } / impressions
            guard mean > 0 else { continue }
            var s = 0.0, squares = 0.0
            for day in kept {
                let n = Double(day.impressions), x = 1000 * day.revenueUSD / n
                // Relative to the mean first: `(x − x̄)² / x̄²` underflows to 0 / 0 for a tiny eCPM.
                let relative = x / mean - 1
                s += n * relative * relative
                squares += n * n
            }
            rows.append((s, Double(kept.count - 1), impressions - squares / impressions))
        }
        guard rows.reduce(0, { $0 + $1.degrees }) >= Double(minimumDegrees) else { return nil }
        // The prior: `prior.degrees` degrees of freedom of a series at `cv² = prior.dispersion`
        // without movement, so that series that are all thick (whose spread is all movement)
        // cannot take `cv²` to 0 and make a thin cell look exact.
        rows.append((prior.dispersion * prior.degrees, prior.degrees, 0))
        let degrees = rows.reduce(0) { $0 + $1.degrees }
        guard degrees > 0 else { return nil }
        let pooled = rows.reduce(0) { $0 + $1.s } / degrees
        var (impression, daily) = (pooled, 0.0)
        for _ in 0..<20 {
            var a = 0.0, b = 0.0, c = 0.0, u = 0.0, v = 0.0
            for row in rows {
                let expected = max(impression * row.degrees + daily * row.spread, 1e-300)
                let w = row.degrees / (expected * expected)
                a += w * row.degrees * row.degrees
                b += w * row.degrees * row.spread
                c += w * row.spread * row.spread
                u += w * row.degrees * row.s
                v += w * row.spread * row.s
            }
            let determinant = a * c - b * b
            guard determinant > 1e-12 * a * c, determinant.isFinite else { return (pooled, 0) }
            var nextImpression = (c * u - b * v) / determinant, nextDaily = (a * v - b * u) / determinant
            if nextDaily < 0 { (nextImpression, nextDaily) = (u / a, 0) }
            if nextImpression <= 0 { (nextImpression, nextDaily) = (1e-4, max(0, (v - b * 1e-4) / c)) }
            (impression, daily) = (nextImpression, nextDaily)
        }
        return (impression, daily)
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
    ///
    /// The approximation holds while its upper end grows with `sd` (`1/(9k) ≤ z²/4`, shape
    /// `k ≥ 4/(9z²)`, 0.16 at 90 %). Past that (a mean near 0, e.g. a line item paid nothing,
    /// whose sd is its variance's floor) the upper end fell as `sd` grew, below the mean itself
    /// at `k < 1/(9z²)`: there the posterior's own normal interval `mean ± z·sd` is given, the
    /// lower end at least 0 (it joins the cube-root one within 8 % at the switch).
    static func gammaInterval(mean: Double, sd: Double, z: Double) -> (lower: Double, upper: Double) {
        guard mean > 0, sd > 0, mean.isFinite, sd.isFinite else { return (max(0, mean), max(0, mean)) }
        let c = sd * sd / (9 * mean * mean)
        guard c <= z * z / 4 else { return (max(0, mean - z * sd), mean + z * sd) }
        func quantile(_ z: Double) -> Double {
            let base = 1 - c + z * c.squareRoot()
            return base > 0 ? mean * base * base * base : 0
        }
        return (quantile(-z), quantile(z))
    }
}

extension EmpiricalBayes {
    /// Units in groups, each group with its own centre and every group with one between-unit
    /// standard deviation `τ` (``groupPosteriors(values:variances:maximumSD:points:)``): a
    /// unit's posterior, and per group the posterior of its centre.
    struct GroupPosteriors {
        /// Per group, per unit: mean, variance and the mean shrinkage `B`.
        var units: [[(mean: Double, variance: Double, shrinkage: Double)]]
        /// Per group: the posterior mean and variance of a new unit of the group (its centre,
        /// with `τ²` and the centre's variance); `nil` for a group without units.
        var newUnit: [(mean: Double, variance: Double)?]
    }

    /// The hierarchical normal model `value ~ N(θ_group + u, variance)`, `u ~ N(0, τ²)`, with a
    /// flat prior on each group's centre `θ` and a uniform prior on `τ` over `points` midpoints
    /// of `[0, maximumSD]` (Gelman et al., *Bayesian Data Analysis*, 5.4): `τ`'s posterior is
    /// `∝ Π_groups √V_θ · Π_units (v + τ²)^(−1/2) · exp(−(y − θ̂)² / 2(v + τ²))` with
    /// `θ̂ = Σ y/(v + τ²) / Σ 1/(v + τ²)`, `V_θ = 1 / Σ 1/(v + τ²)`; given `τ` a unit's posterior
    /// is `B·θ̂ + (1 − B)·y`, variance `(1 − B)·v + B²·V_θ`, `B = v / (v + τ²)`; the results mix
    /// these over `τ`'s posterior (mean, and variance by the law of total variance). A between
    /// variance that the method of moments puts at 0 still has posterior weight above 0, so a
    /// unit far from its centre keeps an interval that covers it. With `covariates` (per group,
    /// one per unit), a group of 4 or more units whose covariate varies has the centre
    /// `θ + β·x` (`x` centred on the group's mean, flat prior on `β`; Gelman et al., 15.4):
    /// `θ̂`, `β̂` by weighted least squares (``Fit``), `√V_θ` becomes `√det V`, and each unit's
    /// centre and its variance are the fit's at its own `x`. With `bandwidths`, such a group's
    /// centre is local instead: at unit `i` the kernel-weighted mean `Σ K_ij·w_j·y_j / Σ K_ij·w_j`
    /// of every unit (`K_ij = exp(−(x_i − x_j)² / 2h²)`, `w_j = 1 / (v_j + τ²)`), with variance
    /// `Σ K_ij²·w_j / (Σ K_ij·w_j)²`, so units at one end of the covariate pool with each other
    /// rather than with a line's extrapolation from the other end; the grid is then `τ` × `h`,
    /// each point weighed by its leave-one-out evidence `Π_i N(y_i; c_i^(−i), v_i + τ² + V_i^(−i))`
    /// (each unit predicted from the others), uniform priors on both.
    static func groupPosteriors(values: [[Double]], variances: [[Double]], covariates: [[Double]]? = nil, bandwidths: [Double] = [], maximumSD: Double = 3, points: Int = 100) -> GroupPosteriors {
        let taus = (0..<points).map { (Double($0) + 0.5) * maximumSD / Double(points) }
        // Per group, the covariate centred on its plain mean; a group regresses on it only
        // with 4 or more units and a covariate that varies.
        let centred: [[Double]?] = values.indices.map { group in
            guard let covariates, group < covariates.count, covariates[group].count == values[group].count, values[group].count >= 4 else { return nil }
            let xs = covariates[group]
            let mean = xs.reduce(0, +) / Double(xs.count)
            let result = xs.map { $0 - mean }
            return result.contains { abs($0) > 1e-9 } ? result : nil
        }
        // The grid of `τ` and, with bandwidths, the kernel's bandwidth (`nil`: the line).
        let kernelWidths: [Double?] = bandwidths.isEmpty ? [nil] : bandwidths.map { $0 }
        var grid: [(tau: Double, bandwidth: Double?)] = []
        for width in kernelWidths { for tau in taus { grid.append((tau, width)) } }
        // Per bandwidth and group, the Gaussian kernel between its units' covariates.
        var kernels: [Double: [[[Double]]?]] = [:]
        for width in bandwidths {
            kernels[width] = centred.map { xs in
                xs.map { xs in xs.map { a in xs.map { b in Foundation.exp(-0.5 * (a - b) * (a - b) / (width * width)) } } }
            }
        }
        var logs: [Double] = []
        var centres: [[Fit?]] = []
        var locals: [[[(mean: Double, variance: Double)]?]] = []
        for point in grid {
            let t2 = point.tau * point.tau
            var log = 0.0
            var row: [Fit?] = []
            var localRow: [[(mean: Double, variance: Double)]?] = []
            for group in values.indices {
                let ys = values[group], vs = variances[group]
                guard !ys.isEmpty else { row.append(nil); localRow.append(nil); continue }
                let fit = Fit(values: ys, variances: vs.map { $0 + t2 }, covariates: centred[group])
                row.append(fit)
                if let width = point.bandwidth, let kernel = kernels[width]?[group] {
                    // The kernel-weighted mean of the units around a unit's covariate, and its
                    // variance; without the unit itself for the leave-one-out evidence.
                    func local(_ i: Int, without: Int?) -> (mean: Double, variance: Double) {
                        var sw = 0.0, swy = 0.0, sk2w = 0.0
                        for j in ys.indices where j != without {
                            let k = kernel[i][j], w = 1 / (vs[j] + t2)
                            sw += k * w
                            swy += k * w * ys[j]
                            sk2w += k * k * w
                        }
                        guard sw > 1e-300, sw.isFinite else { return (fit.predicted(centred[group]?[i] ?? 0), fit.variance(centred[group]?[i] ?? 0)) }
                        return (swy / sw, sk2w / (sw * sw))
                    }
                    localRow.append(ys.indices.map { local($0, without: nil) })
                    for i in ys.indices {
                        let c = local(i, without: i)
                        let total = vs[i] + t2 + c.variance
                        log += -0.5 * Foundation.log(total) - 0.5 * (ys[i] - c.mean) * (ys[i] - c.mean) / total
                    }
                } else {
                    localRow.append(nil)
                    log -= 0.5 * Foundation.log(fit.determinant)
                    for (index, (y, v)) in zip(ys, vs).enumerated() {
                        let residual = y - fit.predicted(centred[group]?[index] ?? 0)
                        log += -0.5 * Foundation.log(v + t2) - 0.5 * residual * residual / (v + t2)
                    }
                }
            }
            logs.append(log)
            centres.append(row)
            locals.append(localRow)
        }
        let top = logs.max() ?? 0
        let raw = logs.map { Foundation.exp($0 - top) }
        let total = raw.reduce(0, +)
        let weights = raw.map { $0 / total }
        var units: [[(mean: Double, variance: Double, shrinkage: Double)]] = []
        var newUnit: [(mean: Double, variance: Double)?] = []
        for group in values.indices {
            var results: [(mean: Double, variance: Double, shrinkage: Double)] = []
            for (unit, (y, v)) in zip(values[group], variances[group]).enumerated() {
                var mean = 0.0, second = 0.0, shrinkage = 0.0
                let x = centred[group]?[unit] ?? 0
                for (index, weight) in weights.enumerated() where weight >= 1e-14 {
                    guard let fit = centres[index][group] else { continue }
                    let t2 = grid[index].tau * grid[index].tau
                    let b = v / (v + t2)
                    let centre: (mean: Double, variance: Double) = locals[index][group]?[unit] ?? (fit.predicted(x), fit.variance(x))
                    let m = b * centre.mean + (1 - b) * y
                    mean += weight * m
                    second += weight * ((1 - b) * v + b * b * centre.variance + m * m)
                    shrinkage += weight * b
                }
                results.append((mean, max(second - mean * mean, 0), shrinkage))
            }
            units.append(results)
            if values[group].isEmpty {
                newUnit.append(nil)
            } else {
                var mean = 0.0, second = 0.0
                for (index, weight) in weights.enumerated() where weight >= 1e-14 {
                    guard let centre = centres[index][group] else { continue }
                    let t2 = grid[index].tau * grid[index].tau
                    mean += weight * centre.predicted(0)
                    second += weight * (t2 + centre.variance(0) + centre.predicted(0) * centre.predicted(0))
                }
                newUnit.append((mean, max(second - mean * mean, 0)))
            }
        }
        return GroupPosteriors(units: units, newUnit: newUnit)
    }

    /// The weighted least-squares fit of a group's centre: `y ≈ θ + β·x` with weights
    /// `1 / (v + τ²)` (`β = 0` without covariates), and the covariance of `(θ, β)` under a flat
    /// prior, so that a unit's centre `θ + β·x` has the variance ``variance(_:)``.
    struct Fit {
        var theta = 0.0, slope = 0.0
        /// The inverse information: `1 / Σ w` without covariates; with them, the 2×2 inverse.
        var s0 = 0.0, s1 = 0.0, s2 = 0.0
        /// `det` of the information matrix (`Σ w` without covariates).
        var determinant = 1.0
        let regresses: Bool

        init(values: [Double], variances: [Double], covariates: [Double]?) {
            var t0 = 0.0, t1 = 0.0
            for (index, (y, v)) in zip(values, variances).enumerated() {
                let w = 1 / v, x = covariates?[index] ?? 0
                s0 += w; s1 += w * x; s2 += w * x * x
                t0 += w * y; t1 += w * x * y
            }
            let det = s0 * s2 - s1 * s1
            if covariates != nil, det > 1e-12 * s0 * s2, det.isFinite {
                regresses = true
                determinant = det
                theta = (s2 * t0 - s1 * t1) / det
                slope = (s0 * t1 - s1 * t0) / det
            } else {
                regresses = false
                determinant = s0
                theta = t0 / s0
            }
        }

        /// The centre at covariate `x`.
        func predicted(_ x: Double) -> Double { theta + slope * x }

        /// The variance of the centre at covariate `x`.
        func variance(_ x: Double) -> Double {
            regresses ? (s2 - 2 * x * s1 + x * x * s0) / determinant : 1 / s0
        }
    }
}

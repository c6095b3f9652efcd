import Foundation
import Mediation

/// The report of one experiment (`mediate experiment report`, `docs/experiments.md`): per
/// variant its figures, the split check, each variant's difference to control in revenue per
/// user (winsorized) with an always-valid interval, and a verdict in words.
package struct ExperimentReport: Sendable {
    /// One variant's figures (revenue as read, not winsorized).
    package struct Variant: Sendable {
        /// The variant's id.
        package var id: String
        /// Its configured share, basis points.
        package var weightBP: Int
        /// Exposed users.
        package var users: Int
        /// Ad requests.
        package var requests: Int
        /// Impressions.
        package var impressions: Int
        /// Revenue, USD.
        package var revenue: Double
        /// Revenue per user after winsorizing, USD.
        package var winsorizedRevenuePerUser: Double

        /// Impressions per user (0 without users).
        package var impressionsPerUser: Double { users == 0 ? 0 : Double(impressions) / Double(users) }
        /// Impressions per request (0 without requests).
        package var fill: Double { requests == 0 ? 0 : Double(impressions) / Double(requests) }
        /// Revenue per 1,000 impressions, USD (0 without impressions).
        package var eCPM: Double { impressions == 0 ? 0 : revenue / Double(impressions) * 1000 }
        /// Revenue per user, USD (0 without users).
        package var revenuePerUser: Double { users == 0 ? 0 : revenue / Double(users) }
        /// Revenue per 1,000 requests, USD (0 without requests).
        package var revenuePer1000Requests: Double { requests == 0 ? 0 : revenue / Double(requests) * 1000 }
    }

    /// One variant against control.
    package struct Comparison: Sendable {
        /// The variant's id.
        package var variant: String
        /// The difference in winsorized revenue per user; `nil` when it cannot be computed.
        package var difference: ExperimentStatistics.Difference?
        /// The total users (both groups) at which ``minimumEffect`` is seen; `nil` when unknown.
        package var usersNeeded: Int?
        /// The verdict in words.
        package var verdict: String
    }

    /// The experiment's id.
    package var experiment: String
    /// The control's id.
    package var control: String
    /// The last day counted.
    package var asOf: UTCDay?
    /// The per-user revenue cap (the pooled ``ExperimentStatistics/winsorizingPercentile``), USD.
    package var cap: Double
    /// The variants, control first.
    package var variants: [Variant]
    /// The sample-ratio check.
    package var chiSquare: Double
    /// Its p-value.
    package var sampleRatioP: Double
    /// Why the result is withheld, `nil` when it is not.
    package var withheld: String?
    /// The effect the "enough users" figures are for, relative: 0.02.
    package var minimumEffect: Double
    /// The error rate per comparison (0.05 split over the comparisons, Bonferroni).
    package var alpha: Double
    /// Each variant but control against control.
    package var comparisons: [Comparison]

    /// The relative effect the "enough users" figure is for by default: 2 %.
    package static let defaultMinimumEffect = 0.02

    /// The report of `design` from `users` (its users in ``ExperimentUsers``).
    package init(design: ExperimentDesign, users: [UInt64: ExperimentUsers.User], asOf: UTCDay?, minimumEffect: Double = defaultMinimumEffect) {
        experiment = design.id
        control = design.variants[0].id
        self.asOf = asOf
        self.minimumEffect = minimumEffect
        var revenues: [Double] = []
        revenues.reserveCapacity(users.count)
        variants = design.variants.map { Variant(id: $0.id, weightBP: $0.weightBP, users: 0, requests: 0, impressions: 0, revenue: 0, winsorizedRevenuePerUser: 0) }
        // Summed in the units' order, so the same users give the same figures to the last bit.
        let ordered = users.keys.sorted().compactMap { users[$0] }
        for user in ordered {
            let index = Int(user.variant)
            variants[index].users += 1
            variants[index].requests += Int(user.requests)
            variants[index].impressions += Int(user.impressions)
            variants[index].revenue += user.revenue
            revenues.append(user.revenue)
        }
        cap = ExperimentStatistics.nearestRank(revenues, permille: ExperimentStatistics.winsorizingPermille) ?? 0
        var moments = Array(repeating: ExperimentStatistics.Moments(), count: variants.count)
        for user in ordered {
            moments[Int(user.variant)].add(min(user.revenue, cap))
        }
        for index in variants.indices { variants[index].winsorizedRevenuePerUser = moments[index].mean }
        let split = ExperimentStatistics.sampleRatio(observed: variants.map(\.users), weights: variants.map { Double($0.weightBP) })
        chiSquare = split.chiSquare
        sampleRatioP = split.p
        alpha = ExperimentStatistics.alpha / Double(max(1, variants.count - 1))
        if split.p < ExperimentStatistics.sampleRatioThreshold {
            let total = Double(variants.reduce(0) { $0 + $1.users }), weights = Double(variants.reduce(0) { $0 + $1.weightBP })
            let counts = variants.map { "\($0.id) \(Self.count($0.users)) (expected \(Self.count(Int((total * Double($0.weightBP) / weights).rounded()))))" }.joined(separator: ", ")
            withheld = "result withheld: the users do not split as configured (\(counts); chi-square \(DecimalText.fixed(split.chiSquare, digits: 1)), p = \(Self.pValue(split.p)) < \(ExperimentStatistics.sampleRatioThreshold)); exposures are lost or assigned differently in one variant, so its users are not comparable"
        }
        let alpha = alpha
        comparisons = variants.indices.dropFirst().map { index in
            Self.compare(variant: design.variants[index].id, control: moments[0], treatment: moments[index], alpha: alpha, minimumEffect: minimumEffect)
        }
        if let withheld {
            for index in comparisons.indices { comparisons[index].verdict = withheld }
        }
    }

    private static func compare(variant: String, control: ExperimentStatistics.Moments, treatment: ExperimentStatistics.Moments, alpha: Double, minimumEffect: Double) -> Comparison {
        guard let difference = ExperimentStatistics.difference(control: control, treatment: treatment, alpha: alpha) else {
            let why = control.count < 2 || treatment.count < 2 ? "fewer than 2 exposed users in a variant" : "no revenue in control yet"
            return Comparison(variant: variant, difference: nil, usersNeeded: nil, verdict: "not enough data: \(why)")
        }
        let users = Double(control.count + treatment.count)
        let needed = ExperimentStatistics.usersNeeded(effect: minimumEffect, unitDeviation: difference.standardError * users.squareRoot(), alpha: alpha).map { Int($0) }
        let interval = difference.sequential
        let figures = "\(percent(difference.relative)) per user (\(percent(interval.lowerBound, unit: false)) to \(percent(interval.upperBound, unit: false)))"
        let effect = DecimalText.trimmed(minimumEffect * 100, minimumDigits: 0, maximumDigits: 2) + " %"
        let verdict: String
        let fewest = min(control.count, treatment.count)
        if fewest < ExperimentStatistics.minimumUsersPerVariant {
            verdict = "not enough data: fewer than \(ExperimentStatistics.minimumUsersPerVariant) users in a variant (\(count(fewest)) so far); so far \(variant) \(figures)"
        } else if interval.lowerBound > 0 || interval.upperBound < 0 {
            verdict = "\(variant) earns \(figures)"
        } else if let needed, Double(needed) > users {
            verdict = "not enough data: about \(count(roundedUp(needed - Int(users)))) more users for a \(effect) effect; so far \(variant) \(figures)"
        } else if needed == nil {
            verdict = "not enough data; so far \(variant) \(figures)"
        } else {
            verdict = "no difference found: \(variant) \(figures), with enough users to see a \(effect) effect"
        }
        return Comparison(variant: variant, difference: difference, usersNeeded: needed, verdict: verdict)
    }

    /// `+3.1 %`, `−0.4 %` (one decimal, a true minus sign).
    static func percent(_ value: Double, unit: Bool = true) -> String {
        let text = DecimalText.fixed(abs(value) * 100, digits: 1)
        let prefix = value < 0 && text != "0.0" ? "−" : "+"
        return prefix + text + (unit ? " %" : "")
    }

    /// `12,345`.
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// `value` rounded up to 2 significant digits (123,456 → 130,000).
    static func roundedUp(_ value: Int) -> Int {
        guard value > 100 else { return max(value, 0) }
        var scale = 1
        while value / scale >= 100 { scale *= 10 }
        return (value + scale - 1) / scale * scale
    }

    /// A p-value for people: `0.00003`, `< 1e-12`.
    static func pValue(_ p: Double) -> String {
        p < 1e-12 ? "below 10^-12" : p < 0.0001 ? String(format: "%.1e", p) : DecimalText.fixed(p, digits: 4)
    }
}

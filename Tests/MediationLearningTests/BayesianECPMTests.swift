import Testing
@testable import MediationLearning

/// The estimator on fixed reports, with every expected value worked out by hand below.
@Suite("BayesianECPM")
struct BayesianECPMTests {
    static let asOf = UTCDay("2026-03-10")!
    static func day(_ age: Int) -> UTCDay { asOf.adding(days: -age) }

    static func close(_ value: Double, _ expected: Double, _ tolerance: Double = 1e-9) -> Bool {
        abs(value - expected) <= tolerance
    }

    @Test("recency weighting, the weak prior and the 90 % gamma interval, worked out by an independent implementation")
    func handWorkedEstimate() {
        // Day 0: 1000 impressions, 1.20 USD; day -3 (one half-life): 1000 impressions, 1.50 USD.
        // w = 1 and 0.5: N = 1500, 1000·R = 1950, x = 1.3; Q = 1000 + 0.25·1000, so the weighted
        // mean is worth N²/Q = 1800 impressions. One day of spread (under 5): cv² = 1. One line
        // item in its network: no between-line-item variance to estimate, the weak prior's
        // (relative sd 1) is used, so the estimate stays at its data (B ≈ 0.0009).
        let input = BayesianECPM.Input(placementID: "p", lineItemID: "a", network: "n", configuredECPM: 1, observations: [
            .init(day: Self.day(0), impressions: 1000, revenueUSD: 1.2),
            .init(day: Self.day(3), impressions: 1000, revenueUSD: 1.5),
        ])
        let estimate = BayesianECPM().estimate([input], asOf: Self.asOf)[0]
        #expect(Self.close(estimate.effectiveImpressions, 1500))
        #expect(Self.close(estimate.pooledECPM, 1.1499296316058947))
        #expect(Self.close(estimate.mean, 1.299859263211786))
        #expect(Self.close(estimate.standardDeviation, 0.0306307893264141))
        #expect(Self.close(estimate.lower, 1.249889843257021))
        #expect(Self.close(estimate.upper, 1.3506493460204119))
        #expect(estimate.impressions == 2000)
        #expect(estimate.days == 2)
        #expect(estimate.decision == .changed)
        #expect(Self.close(estimate.newECPM, 1.299859263211786))
        #expect(estimate.countries.isEmpty)
    }

    @Test("the weight halves every half-life and is 0 outside the window")
    func weights() {
        let estimator = BayesianECPM()
        #expect(estimator.weight(age: 0) == 1)
        #expect(Self.close(estimator.weight(age: 3), 0.5))
        #expect(Self.close(estimator.weight(age: 6), 0.25))
        #expect(estimator.weight(age: -1) == 0)
        #expect(estimator.weight(age: 28) == 0)
    }

    @Test("a network's line items are pooled; a line item without data gets the pool, kept, with a wide interval")
    func pooling() {
        // a: p = 1, 1000 impressions paying 2.00 USD (eCPM 2); b: p = 2, no data. The network's
        // ratio is a's 2 against the configured prices' 1, each by its precision: 1.499; b gets
        // 2 · 1.499 with the prior's and the ratio's variance.
        let inputs = [
            BayesianECPM.Input(placementID: "p", lineItemID: "a", network: "n", configuredECPM: 1, observations: [.init(day: Self.day(0), impressions: 1000, revenueUSD: 2)]),
            BayesianECPM.Input(placementID: "p", lineItemID: "b", network: "n", configuredECPM: 2, observations: []),
            BayesianECPM.Input(placementID: "p", lineItemID: "c", network: "other", configuredECPM: 2, observations: []),
        ]
        let estimates = BayesianECPM().estimate(inputs, asOf: Self.asOf)
        #expect(Self.close(estimates[0].mean, 1.9980079582504051))
        #expect(Self.close(estimates[0].standardDeviation, 0.06311959679253208))
        #expect(estimates[0].decision == .changeCapped)
        #expect(Self.close(estimates[0].newECPM, 1.5))
        #expect(Self.close(estimates[1].pooledECPM, 2.9980079582660357))
        #expect(Self.close(estimates[1].mean, 2.9980079582660357))
        #expect(Self.close(estimates[1].standardDeviation, 2.450302855458469))
        #expect(Self.close(estimates[1].lower, 0.32672944692790407) && Self.close(estimates[1].upper, 7.7749058201920285))
        #expect(estimates[1].decision == .keptTooLittleData)
        #expect(estimates[1].newECPM == 2)
        // Another network's pool is its own: no data, the configured price with the prior's sd.
        #expect(Self.close(estimates[2].mean, 2))
        #expect(Self.close(estimates[2].standardDeviation, 2.8284271247461903))
    }

    @Test("the pooling strength between line items is estimated from them: three thick ones set it, a thin one moves most of the way to its network")
    func estimatedPooling() {
        // Three line items of 10,000 impressions a day for 7 days (daily eCPMs ±1 %) paying 1.0,
        // 2.2 and 1.2 against configured 1, 2 and 1.5; a fourth, configured 3, has one day of
        // 20 impressions at 9.0. cv² = 1.1461 from the daily spread; the between-line-item
        // variance by the method of moments.
        func days(_ eCPM: Double) -> [BayesianECPM.Observation] {
            (0..<7).map { age in .init(day: Self.day(age), impressions: 10_000, revenueUSD: 10 * eCPM * (age % 2 == 0 ? 0.99 : 1.01)) }
        }
        let inputs = [
            BayesianECPM.Input(placementID: "p", lineItemID: "a", network: "n", configuredECPM: 1, observations: days(1.0)),
            BayesianECPM.Input(placementID: "p", lineItemID: "b", network: "n", configuredECPM: 2, observations: days(2.2)),
            BayesianECPM.Input(placementID: "p", lineItemID: "c", network: "n", configuredECPM: 1.5, observations: days(1.2)),
            BayesianECPM.Input(placementID: "p", lineItemID: "d", network: "n", configuredECPM: 3, observations: [.init(day: Self.day(0), impressions: 20, revenueUSD: 0.18)]),
        ]
        let estimates = BayesianECPM().estimate(inputs, asOf: Self.asOf)
        #expect(zip(estimates.map(\.mean), [0.9983448780243027, 2.1961878893215845, 1.1981452914243613, 4.282509632398445]).allSatisfy { Self.close($0, $1) })
        #expect(zip(estimates.map(\.standardDeviation), [0.004431820873821732, 0.009746734465648825, 0.0053263367771739095, 6.6893138437493755]).allSatisfy { Self.close($0, $1) })
        #expect(Self.close(estimates[3].pooledECPM, 3.247210735599026))
        #expect(Self.close(estimates[3].lower, 0) && Self.close(estimates[3].upper, 17.063022238650746))
    }

    @Test("countries: a thick country stays at its own mean, a thin one moves to its line item; the interval says which differ")
    func countries() {
        // One line item, 7 days, daily eCPMs ±1 %: US 10,000 a day at 4.0, GB 5,000 at 2.0, DE
        // 5,000 at 2.5, IN 20,000 at 0.5, BR 8,000 at 1.0; KE 5 impressions at 8.0 on one day.
        let countries: [(String, Int, Double)] = [("US", 10_000, 4.0), ("GB", 5_000, 2.0), ("DE", 5_000, 2.5), ("IN", 20_000, 0.5), ("BR", 8_000, 1.0)]
        var observations: [BayesianECPM.Observation] = []
        for age in 0..<7 {
            for (code, impressions, eCPM) in countries {
                observations.append(.init(day: Self.day(age), impressions: impressions, revenueUSD: Double(impressions) * eCPM * (age % 2 == 0 ? 1.01 : 0.99) / 1000, country: code))
            }
        }
        observations.append(.init(day: Self.day(0), impressions: 5, revenueUSD: 0.04, country: "KE"))
        let estimate = BayesianECPM().estimate([BayesianECPM.Input(placementID: "p", lineItemID: "a", network: "n", configuredECPM: 1, observations: observations)], asOf: Self.asOf)[0]
        #expect(Self.close(estimate.mean, 1.6801328311212145))
        #expect(estimate.countries.map(\.country) == ["BR", "DE", "GB", "IN", "KE", "US"])
        let expected: [(mean: Double, sd: Double, lower: Double, upper: Double, shrinkage: Double)] = [
            (1.0017406433602463, 0.004857640732730935, 0.9937639500131534, 1.0097441201182105, 3.109107741907072e-05),
            (2.504042769638015, 0.015358493667970721, 2.478833965991627, 2.5293586821002787, 0.0003107471660084565),
            (2.0033747867389167, 0.012287317477825988, 1.983206884950933, 2.023628376855197, 0.00019892834695896974),
            (0.5008634418690726, 0.001536114532020919, 0.4983394395694871, 0.503392800888556, 3.10910933013702e-06),
            (3.245628435590881, 3.954784169923146, 0.015102136107984943, 11.022318483216445, 0.7522897930230703),
            (4.005953043735135, 0.017387967549940993, 3.977395355414216, 4.0345965468982925, 0.00039761948932109264),
        ]
        for (country, want) in zip(estimate.countries, expected) {
            #expect(Self.close(country.mean, want.mean) && Self.close(country.standardDeviation, want.sd), "\(country.country)")
            #expect(Self.close(country.lower, want.lower) && Self.close(country.upper, want.upper), "\(country.country)")
            #expect(Self.close(country.shrinkage, want.shrinkage), "\(country.country)")
        }
        // Pooled and not: US (4.0 of its own) keeps its data; KE (8.0 of its own, 5 impressions)
        // is moved 75 % of the way to the line item's 1.68.
        #expect(estimate.countries[5].shrinkage < 0.001)
        #expect(estimate.countries[4].shrinkage > 0.7)
        #expect(estimate.countries.map { $0.differs(from: estimate.mean) } == [true, true, true, true, false, true])
    }

    @Test("the cap: at most ±50 % of the configured price per update, both ways")
    func cap() {
        let high = BayesianECPM.Input(placementID: "p", lineItemID: "h", network: "h", configuredECPM: 1, observations: [.init(day: Self.day(0), impressions: 10_000, revenueUSD: 30)])
        let low = BayesianECPM.Input(placementID: "p", lineItemID: "l", network: "l", configuredECPM: 1, observations: [.init(day: Self.day(0), impressions: 10_000, revenueUSD: 1)])
        let estimates = BayesianECPM().estimate([high, low], asOf: Self.asOf)
        #expect(estimates[0].decision == .changeCapped)
        #expect(Self.close(estimates[0].newECPM, 1.5))
        #expect(estimates[1].decision == .changeCapped)
        #expect(Self.close(estimates[1].newECPM, 0.5))
    }

    @Test("below 100 effective impressions the configured eCPM is kept; at 100 it is learned")
    func tooLittleData() {
        // 99 impressions today: N = 99 < 100. 200 impressions 3 days ago: N = 100.
        let few = BayesianECPM.Input(placementID: "p", lineItemID: "f", network: "f", configuredECPM: 1, observations: [.init(day: Self.day(0), impressions: 99, revenueUSD: 0.1)])
        let enough = BayesianECPM.Input(placementID: "p", lineItemID: "e", network: "e", configuredECPM: 1, observations: [.init(day: Self.day(3), impressions: 200, revenueUSD: 0.2)])
        let estimates = BayesianECPM().estimate([few, enough], asOf: Self.asOf)
        #expect(estimates[0].decision == .keptTooLittleData)
        #expect(estimates[0].newECPM == 1)
        #expect(estimates[1].decision == .changed)
        #expect(Self.close(estimates[1].effectiveImpressions, 100))
    }

    @Test("days after the as-of day are not used")
    func futureDays() {
        let input = BayesianECPM.Input(placementID: "p", lineItemID: "a", network: "n", configuredECPM: 1, observations: [.init(day: Self.asOf.adding(days: 1), impressions: 5000, revenueUSD: 50)])
        let estimate = BayesianECPM().estimate([input], asOf: Self.asOf)[0]
        #expect(estimate.days == 0)
        #expect(estimate.mean == 1)
    }

    @Test("UTC days parse strictly and print back")
    func days() {
        #expect(UTCDay("1970-01-01")?.daysSince1970 == 0)
        #expect(UTCDay("2024-02-29")?.description == "2024-02-29")
        #expect(UTCDay("2026-03-10")?.adding(days: 1).description == "2026-03-11")
        #expect(UTCDay("2025-02-29") == nil)
        #expect(UTCDay("2026-3-10") == nil)
        #expect(UTCDay("2026-13-01") == nil)
        #expect(UTCDay("２０２６-03-10") == nil)
    }
}

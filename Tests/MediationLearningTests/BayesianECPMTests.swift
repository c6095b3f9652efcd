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

    @Test("recency weighting, the pooled prior and the 90 % interval, by hand")
    func handWorkedEstimate() {
        // Day 0: 1000 impressions, 1.20 USD; day -3 (one half-life): 1000 impressions, 1.50 USD.
        // w = 1 and 0.5: N = 1500, R = 1.95, 1000·R = 1950; m = 500, p = 1.
        // ρ = (500 + 1950 / 1) / (500 + 1500) = 1.225; μ = (500·1.225 + 1950) / 2000 = 1.28125.
        // sd = 1.28125 / √2000 = 0.0286496210; interval 1.28125 ∓ 1.6448536·sd.
        let input = BayesianECPM.Input(placementID: "p", lineItemID: "a", network: "n", configuredECPM: 1, observations: [
            .init(day: Self.day(0), impressions: 1000, revenueUSD: 1.2),
            .init(day: Self.day(3), impressions: 1000, revenueUSD: 1.5),
        ])
        let estimate = BayesianECPM().estimate([input], asOf: Self.asOf)[0]
        #expect(Self.close(estimate.effectiveImpressions, 1500))
        #expect(Self.close(estimate.pooledECPM, 1.225))
        #expect(Self.close(estimate.mean, 1.28125))
        #expect(Self.close(estimate.standardDeviation, 0.028649620961716))
        #expect(Self.close(estimate.lower, 1.234125567050336))
        #expect(Self.close(estimate.upper, 1.328374432949664))
        #expect(estimate.impressions == 2000)
        #expect(estimate.days == 2)
        #expect(estimate.decision == .changed)
        #expect(Self.close(estimate.newECPM, 1.28125))
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

    @Test("a network's line items are pooled; a line item without data gets the pool, kept")
    func pooling() {
        // a: p = 1, 1000 impressions paying 2.00 USD (eCPM 2); b: p = 2, no data.
        // ρ = (500 + 2000 / 1) / (500 + 1000) = 5/3; b's pooled prior = 2 · 5/3 = 3.3333, with
        // N = 0: μ = 3.3333, sd = 3.3333 / √500 = 0.1490712, kept (0 < 100 effective impressions).
        // a: μ = (500 · 5/3 + 2000) / 1500 = 1.8888889 > 1.5 = 1 + 50 %: capped at 1.5.
        let inputs = [
            BayesianECPM.Input(placementID: "p", lineItemID: "a", network: "n", configuredECPM: 1, observations: [.init(day: Self.day(0), impressions: 1000, revenueUSD: 2)]),
            BayesianECPM.Input(placementID: "p", lineItemID: "b", network: "n", configuredECPM: 2, observations: []),
            BayesianECPM.Input(placementID: "p", lineItemID: "c", network: "other", configuredECPM: 2, observations: []),
        ]
        let estimates = BayesianECPM().estimate(inputs, asOf: Self.asOf)
        #expect(Self.close(estimates[0].mean, 1.888888888888889))
        #expect(Self.close(estimates[0].standardDeviation, 0.048770901396686))
        #expect(estimates[0].decision == .changeCapped)
        #expect(Self.close(estimates[0].newECPM, 1.5))
        #expect(Self.close(estimates[1].pooledECPM, 3.333333333333333))
        #expect(Self.close(estimates[1].mean, 3.333333333333333))
        #expect(Self.close(estimates[1].standardDeviation, 0.149071198499986))
        #expect(estimates[1].decision == .keptTooLittleData)
        #expect(estimates[1].newECPM == 2)
        // Another network's pool is its own: no data, ρ = 1, the configured price.
        #expect(Self.close(estimates[2].mean, 2))
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

import Testing
@testable import MediationLearning

/// The baselines and the Bayesian learner on fixed reports, each value worked out by hand.
@Suite("Learners")
struct LearnerTests {
    static let asOf = UTCDay("2026-03-10")!
    static func day(_ age: Int) -> UTCDay { asOf.adding(days: -age) }

    static func input(_ observations: [BayesianECPM.Observation], current: Double = 1, manual: Double = 1) -> LearnerInput {
        LearnerInput(
            lineItems: [BayesianECPM.Input(placementID: "p", lineItemID: "a", network: "n", configuredECPM: current, observations: observations)],
            manualECPMs: [manual], asOf: asOf
        )
    }

    static func close(_ value: Double, _ expected: Double, _ tolerance: Double = 1e-9) -> Bool {
        abs(value - expected) <= tolerance
    }

    @Test("auto-cpm: 7 − age weights over 7 days, revenue over impressions")
    func autoCPMWeights() {
        // Day 0: 600 impressions at 2.0 (1.2 USD), day 6: 600 at 1.0 (0.6 USD), day 7 outside.
        // Weights 7 and 1: 1000·(7·1.2 + 1·0.6) / (7·600 + 1·600) = 9000 / 4800 = 1.875.
        let price = AutoCPMLearner().prices(for: Self.input([
            .init(day: Self.day(0), impressions: 600, revenueUSD: 1.2),
            .init(day: Self.day(6), impressions: 600, revenueUSD: 0.6),
            .init(day: Self.day(7), impressions: 5000, revenueUSD: 50),
        ], manual: 3))
        #expect(Self.close(price[0], 1.875))
    }

    @Test("auto-cpm keeps the manual price under 1,000 impressions in 7 days")
    func autoCPMThreshold() {
        let thin = AutoCPMLearner().prices(for: Self.input([.init(day: Self.day(0), impressions: 999, revenueUSD: 2)], current: 1.7, manual: 3))
        #expect(thin == [3])
        let enough = AutoCPMLearner().prices(for: Self.input([.init(day: Self.day(0), impressions: 1000, revenueUSD: 2)], manual: 3))
        #expect(Self.close(enough[0], 2))
    }

    @Test("smoothing: α by the coefficient of variation, from the oldest day")
    func smoothing() {
        #expect(SmoothingLearner.alpha(coefficientOfVariation: 0.15) == 0.9)
        #expect(SmoothingLearner.alpha(coefficientOfVariation: 0.1) == 0.6)
        #expect(SmoothingLearner.alpha(coefficientOfVariation: 0.03) == 0.3)
        // Four days (no cold start) at eCPMs 1, 1, 1, 2 (oldest first): mean 1.25, sd 0.4330,
        // cv 0.3464 → α 0.9: s = 1, 1, 1, 0.9·2 + 0.1·1 = 1.9.
        let observations: [BayesianECPM.Observation] = [
            .init(day: Self.day(3), impressions: 100, revenueUSD: 0.1),
            .init(day: Self.day(2), impressions: 100, revenueUSD: 0.1),
            .init(day: Self.day(1), impressions: 100, revenueUSD: 0.1),
            .init(day: Self.day(0), impressions: 100, revenueUSD: 0.2),
        ]
        #expect(Self.close(SmoothingLearner().prices(for: Self.input(observations, manual: 5))[0], 1.9))
    }

    @Test("smoothing's cold start: own mean over 100 impressions, else the manual price")
    func smoothingColdStart() {
        // Two days, the last under 50 impressions: cold. 120 impressions, 0.18 USD: 1.5.
        let own = SmoothingLearner().prices(for: Self.input([
            .init(day: Self.day(1), impressions: 90, revenueUSD: 0.135),
            .init(day: Self.day(0), impressions: 30, revenueUSD: 0.045),
        ], manual: 4))
        #expect(Self.close(own[0], 1.5))
        let manual = SmoothingLearner().prices(for: Self.input([.init(day: Self.day(0), impressions: 40, revenueUSD: 0.08)], manual: 4))
        #expect(manual == [4])
        #expect(SmoothingLearner().prices(for: Self.input([], manual: 4)) == [4])
    }

    @Test("bayes is the estimator's new eCPM; static is the manual price")
    func bayesAndStatic() {
        let observations: [BayesianECPM.Observation] = [.init(day: Self.day(0), impressions: 1500, revenueUSD: 1.8)]
        let input = Self.input(observations, current: 1, manual: 2)
        let expected = BayesianECPM().estimate(input.lineItems, asOf: Self.asOf)[0].newECPM
        #expect(BayesianLearner().prices(for: input) == [expected])
        #expect(StaticLearner().prices(for: input) == [2])
        #expect(ECPMLearners.names.map { ECPMLearners.named($0)?.name } == ["static", "auto-cpm", "smoothing", "bayes", "thompson"])
        #expect(ECPMLearners.all == ["static", "auto-cpm", "smoothing", "bayes"])
        #expect(ECPMLearners.named("max") == nil)
    }

    @Test("a halved price is a new level: older days are left out")
    func levelChange() {
        // Days 3…1 at 1.6 (10,000 impressions each), day 0 at 0.8: the level starts on day 0.
        var observations: [BayesianECPM.Observation] = (1...3).map { .init(day: Self.day($0), impressions: 10_000, revenueUSD: 16) }
        observations.append(.init(day: Self.day(0), impressions: 10_000, revenueUSD: 8))
        let estimator = BayesianECPM()
        #expect(estimator.levelStart(of: observations, asOf: Self.asOf) == Self.day(0))
        let estimate = estimator.estimate([BayesianECPM.Input(placementID: "p", lineItemID: "a", network: "n", configuredECPM: 1.6, observations: observations)], asOf: Self.asOf)[0]
        // Day 0 alone: 0.8 over 10,000 impressions against the weak prior of 1.6 (an independent
        // implementation of the estimator gives 0.80001).
        #expect(Self.close(estimate.mean, 0.8000100001250001))
        #expect(estimate.levelStart == Self.day(0))
        #expect(estimate.days == 1)
        // A 20 % move is left to the recency weighting, however many impressions back it.
        observations[3].revenueUSD = 12.8
        #expect(estimator.levelStart(of: observations, asOf: Self.asOf) == nil)
        // Off: never.
        var parameters = BayesianECPM.Parameters()
        parameters.changeZ = .infinity
        observations[3].revenueUSD = 8
        #expect(BayesianECPM(parameters: parameters).levelStart(of: observations, asOf: Self.asOf) == nil)
    }

    @Test("the report writer's CSV reads back through the parser, row for row")
    func writerRoundTrip() throws {
        let rows = [
            RevenueReportWriter.Row(day: Self.day(0), network: "nitx", adUnitID: "SLOT, \"A\"", impressions: 12, revenue: 0.0184, currency: "USD"),
            RevenueReportWriter.Row(day: Self.day(0), network: "qartvelo", adUnitID: "q-1", impressions: 0, revenue: 0, currency: "EUR"),
        ]
        let text = RevenueReportWriter.csv(rows)
        #expect(text.hasPrefix("day,network,ad_unit_id,impressions,revenue,currency\n"))
        let parsed = try RevenueReportParser.parse(Array(text.utf8), file: "r.csv", currencyRates: ["EUR": 1.1])
        #expect(parsed.map(\.adUnitID) == ["SLOT, \"A\"", "q-1"])
        #expect(parsed.map(\.impressions) == [12, 0])
        #expect(parsed[0].revenue == 0.0184)
        #expect(parsed[1].currency == "EUR")
        #expect(RevenueReportWriter.decimal(1.5) == "1.500000")
        #expect(RevenueReportWriter.decimal(0.0000004) == "0.000000")
    }
}

import Testing
@testable import MediationLearning

/// The baselines per country, as their anchors do it, on fixed reports worked out by hand.
@Suite("Learners per country")
struct CountryLearnerTests {
    static let asOf = UTCDay("2026-03-10")!
    static func day(_ age: Int) -> UTCDay { asOf.adding(days: -age) }

    /// One line item (manual 1.0, IN typed at 0.6, KE at 3.0 when `typed`):
    /// US 600 impressions paying 3.00 (eCPM 5) on day −1 and 600 paying 2.40 (4) on day 0; IN 500
    /// paying 0.25 (0.5) on day 0; BR 300 paying 0.30 (1) on day 0; KE 30 paying 0.06 (2) on day
    /// 0; NG 80 paying 0.16 on day −1 and 40 paying 0.08 on day 0 (2 both days).
    static func input(typed: Bool = true) -> LearnerInput {
        let rows: [BayesianECPM.Observation] = [
            .init(day: day(1), impressions: 600, revenueUSD: 3.0, country: "US"),
            .init(day: day(0), impressions: 600, revenueUSD: 2.4, country: "US"),
            .init(day: day(0), impressions: 500, revenueUSD: 0.25, country: "IN"),
            .init(day: day(0), impressions: 300, revenueUSD: 0.3, country: "BR"),
            .init(day: day(0), impressions: 30, revenueUSD: 0.06, country: "KE"),
            .init(day: day(1), impressions: 80, revenueUSD: 0.16, country: "NG"),
            .init(day: day(0), impressions: 40, revenueUSD: 0.08, country: "NG"),
        ]
        return LearnerInput(
            lineItems: [BayesianECPM.Input(placementID: "p", lineItemID: "a", network: "n", configuredECPM: 1, observations: rows)],
            manualECPMs: [1], asOf: asOf, manualCountryECPMs: [typed ? ["IN": 0.6, "KE": 3.0] : [:]]
        )
    }

    static func close(_ value: Double?, _ expected: Double) -> Bool {
        value.map { abs($0 - expected) < 1e-12 } ?? false
    }

    @Test("auto-cpm: per country the 7-day weighted mean from 1,000 impressions, else the country's manual price, else the line item's")
    func autoCPM() {
        let learner = AutoCPMLearner()
        let prices = learner.countryPrices(for: Self.input())[0]
        // US: 1200 impressions; weights 7 (day 0) and 6: 1000·(7·2.4 + 6·3.0) / (7·600 + 6·600).
        #expect(Self.close(prices["US"], 4.461538461538462))
        #expect(prices["IN"] == 0.6) // 500 impressions: its typed price
        #expect(prices["BR"] == 1) // 300, none typed: the line item's manual price
        #expect(prices["KE"] == 3.0)
        #expect(prices["NG"] == 1)
        #expect(Set(prices.keys) == ["US", "IN", "BR", "KE", "NG"])
        // The line item: every row, 2150 impressions.
        #expect(Self.close(learner.prices(for: Self.input())[0], 2.824634655532359))
    }

    @Test("smoothing: per country the smoothed daily eCPMs, or its cold start: its own mean above 100 impressions, else the country's manual price, else the line item's")
    func smoothing() {
        let learner = SmoothingLearner()
        let prices = learner.countryPrices(for: Self.input())[0]
        // US: 5 then 4, coefficient of variation 0.11: α = 0.6, 0.6·4 + 0.4·5.
        #expect(Self.close(prices["US"], 4.4))
        #expect(Self.close(prices["IN"], 0.5)) // one day of 500 (≥ 50): not a cold start
        #expect(Self.close(prices["BR"], 1))
        #expect(prices["KE"] == 3.0) // cold (30 < 50 on its last day), 30 ≤ 100: typed price
        #expect(Self.close(prices["NG"], 2)) // cold (40 < 50), 120 > 100: its own mean
        #expect(SmoothingLearner().countryPrices(for: Self.input(typed: false))[0]["KE"] == 1)
        // The line item smooths its daily totals (countries summed): 4.647 then 2.102, cv 0.38:
        // α = 0.9.
        #expect(Self.close(learner.prices(for: Self.input())[0], 2.3565426170468187))
    }

    @Test("bayes prices every country with data at its posterior mean; a written config keeps only those whose interval excludes the line item's estimate")
    func bayes() {
        let input = Self.input()
        let estimate = BayesianECPM().estimate(input.lineItems, asOf: Self.asOf)[0]
        let prices = BayesianLearner().countryPrices(for: input)[0]
        let written = BayesianLearner.countryPrices([estimate])[0]
        for country in estimate.countries {
            #expect(prices[country.country] == country.mean, "\(country.country)")
            #expect(written[country.country] == (country.differs(from: estimate.mean) ? country.mean : nil), "\(country.country)")
        }
        #expect(prices["US"] != nil && prices["IN"] != nil)
        #expect(StaticLearner().countryPrices(for: input) == [[:]])
    }
}

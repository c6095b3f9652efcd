import Foundation
import Mediation
import MediationLearning
@testable import MediationSimulation
import Testing

/// The learning loop on the market with countries: reports per country, prices per country,
/// and the calibration of the estimator's intervals against the market's true means.
@Suite("Learning loop per country")
struct CountryLearningTests {
    /// `Config/market-global.json` and the classic waterfall over it,
    /// `Config/mediation-global-flat.json` (the config the docs' learning figures use).
    static func globalMarket() throws -> (Market, MediationConfiguration) {
        let root = SimulationFixture.packageRoot
        let market = try Market.load(contentsOf: root.appendingPathComponent("Config/market-global.json"))
        let data = try Data(contentsOf: root.appendingPathComponent("Config/mediation-global-flat.json"))
        return (market, try MediationConfiguration(data: data, registry: .standard))
    }

    @Test("on the global market bayes learns from rows per country, and the run counts its intervals' coverage by the cells' impressions")
    func reportsPerCountryAndCalibration() async throws {
        let (market, configuration) = try Self.globalMarket()
        let run = try await Simulation.learn(
            configuration: configuration, market: market, placementID: "level_end",
            learners: [BayesianLearner()], learning: LearningOptions(days: 4),
            options: SimulationOptions(auctions: 3000, seed: 1, shardSize: 500)
        )
        let bins = try #require(run.calibration)
        #expect(bins.map(\.impressions) == ["under 100", "100 to 1000", "over 1000"])
        // Each day estimates every (line item, country) cell with rows so far.
        #expect(bins.reduce(0) { $0 + $1.cells } > 100)
        #expect(bins.allSatisfy { $0.covered <= $0.cells })
        // The floors stay pinned to the starting configuration: repricing orders the waterfall
        // and does not move what a tier pays, so the intervals hold the truth (with floors
        // following each day's prices the thin cells' coverage was 0.37 on these draws).
        #expect((bins[0].coverage ?? 0) > 0.7, "\(bins)")
        // A one-country market has no calibration.
        let plain = try await Simulation.learn(
            configuration: LearningLoopTests.configuration, market: LearningLoopTests.market, placementID: "level_end",
            learners: [BayesianLearner()], learning: LearningOptions(days: 1),
            options: SimulationOptions(auctions: 100, seed: 7, shardSize: 100)
        )
        #expect(plain.calibration == nil)
    }

    @Test("on the global market the limit is the per-country true-means limit of each day's market, and --country adds that country's ratios")
    func perCountryLimit() async throws {
        let (market, configuration) = try Self.globalMarket()
        let run = try await Simulation.learn(
            configuration: configuration, market: market, placementID: "level_end",
            learners: [StaticLearner()], learning: LearningOptions(days: 2, country: "IN"),
            options: SimulationOptions(auctions: 2000, seed: 3, shardSize: 500)
        )
        let placement = try #require(configuration.placement("level_end"))
        for day in run.daily {
            let limits = try #require(market.pinningFloors(to: configuration).onDay(day.day).limits(of: placement))
            let means = limits.perCountry.globalMeanPrices
            for price in day.learners[0].prices {
                let tier = try #require(limits.perCountry.lineItemIDs.firstIndex(of: price.lineItemID))
                // What the limit priced the line item at (its mean over every country's wins
                // under the per-country order), not the network's base price.
                #expect(price.trueMean == means[tier], "\(price.lineItemID) day \(day.day)")
            }
            #expect(day.learners[0].countryRatioToLimit != nil)
        }
        // The configured prices earn no more than the limit (they earned 1.16 to 1.60 × the
        // one-price-per-line-item limit).
        let ratio = try #require(run.summaries[0].ratioToLimit)
        #expect(ratio < 1.0, "static earns \(ratio) × the limit")
        #expect(run.country == "IN" && run.summaries[0].countryRatioToLimit != nil)
        // A country the market lacks, or one on a one-country market, is refused.
        await #expect(throws: SimulationError.self) {
            try await Simulation.learn(configuration: configuration, market: market, placementID: "level_end", learners: [StaticLearner()],
                                       learning: LearningOptions(days: 1, country: "XX"), options: SimulationOptions(auctions: 10, seed: 1))
        }
        await #expect(throws: SimulationError.self) {
            try await Simulation.learn(configuration: LearningLoopTests.configuration, market: LearningLoopTests.market, placementID: "level_end",
                                       learners: [StaticLearner()], learning: LearningOptions(days: 1, country: "IN"), options: SimulationOptions(auctions: 10, seed: 1))
        }
    }

    @Test("the truth is computed for the order the engine ran: a line item's price per country where the learner set one")
    func truthOrderPerCountry() throws {
        let (market, configuration) = try Self.globalMarket()
        let placement = try #require(configuration.placement("level_end"))
        let codes = try #require(market.countries?.countries.map(\.code))
        let state = LearningState(placement: placement, learners: [BayesianLearner()], countries: codes)
        let prices = state.lineItems.map(\.manualUSD)
        var countryPrices = state.lineItems.map { _ in [String: Double]() }
        countryPrices[0]["IN"] = 0.25
        let rows = try #require(state.order(prices, countryPrices: countryPrices, market: market, placement: placement))
        let india = try #require(codes.firstIndex(of: "IN")), us = try #require(codes.firstIndex(of: "US"))
        // The first tier (admob at 15) is last in India's order (0.25, under every floor of 0.5), first in the US's.
        #expect(rows[us][0] == prices[0])
        #expect(rows[india][0] == 0.25)
    }
}

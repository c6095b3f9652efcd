import Foundation
import Mediation
import MediationLearning
@testable import MediationSimulation
import Testing

/// The learning loop on the market with countries: reports per country, prices per country,
/// and the calibration of the estimator's intervals against the market's true means.
@Suite("Learning loop per country")
struct CountryLearningTests {
    @Test("on the global market bayes learns from rows per country, and the run counts its intervals' coverage by the cells' impressions")
    func reportsPerCountryAndCalibration() async throws {
        let root = SimulationFixture.packageRoot
        let market = try Market.load(contentsOf: root.appendingPathComponent("Config/market-global.json"))
        let data = try Data(contentsOf: root.appendingPathComponent("Config/mediation-global.json"))
        let configuration = try MediationConfiguration(data: data, registry: .standard)
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

    @Test("the truth is computed for the order the engine ran: a line item's price per country where the learner set one")
    func truthOrderPerCountry() throws {
        let root = SimulationFixture.packageRoot
        let market = try Market.load(contentsOf: root.appendingPathComponent("Config/market-global.json"))
        let data = try Data(contentsOf: root.appendingPathComponent("Config/mediation-global.json"))
        let configuration = try MediationConfiguration(data: data, registry: .standard)
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

import Foundation
import Mediation
import MediationSimulation
import Testing

@Suite("Refreshing placements and the shipped files")
struct PlacementAndShippedTests {
    /// A banner (refresh 30 s) with one source that fills after 100 ms (configured 1.00,
    /// realised 2.00), shown at once in its one visible view, for 120 s: auctions start at 0,
    /// 30.100, 60.200 and 90.300 s (the refresh counts from the moment each ad is current, R13);
    /// the next would start at 120.400 s. 4 impressions: 4 × 2.00 / 1000 USD realised,
    /// 4 × 1.00 / 1000 known.
    @Test func bannerRefreshCountsImpressions() async throws {
        let configuration = SimulationFixture.banner(sources: [.fixedPrice("neta", eCPM: 1.00)], refreshSeconds: 30)
        let market = Market(networks: [SimulationFixture.fixed("neta", price: 2.00, latencyMilliseconds: 100)])
        let report = try await Simulation.runPlacement(configuration: configuration, market: market, placementID: "home_banner", duration: .seconds(120), seed: 1)
        #expect(report.auctions == 4)
        #expect(report.filledAuctions == 4)
        #expect(report.impressions == 4)
        #expect(report.revenueUSD == 0.008)
        #expect(report.knownRevenueUSD == 0.004)
        #expect(report.impressionsPerHour == 120)
        #expect(report.lineItems == [.init(lineItemID: "neta", network: "neta", impressions: 4, revenueUSD: 0.008)])
    }

    /// With draws that vary, the same seed gives the same run; a failed auction retries after
    /// one interval of visible time.
    @Test func placementRunsRepeat() async throws {
        let configuration = SimulationFixture.banner(sources: SimulationFixture.scenarioSources, refreshSeconds: 30)
        let first = try await Simulation.runPlacement(configuration: configuration, market: SimulationFixture.randomMarket, placementID: "home_banner", duration: .seconds(3600), seed: 5)
        let second = try await Simulation.runPlacement(configuration: configuration, market: SimulationFixture.randomMarket, placementID: "home_banner", duration: .seconds(3600), seed: 5)
        #expect(first == second)
        #expect(first.auctions >= 110 && first.auctions <= 120) // every 30 s plus the auctions' own time
        #expect(first.impressions == first.filledAuctions)
        #expect(first.impressions < first.auctions)
    }

    @Test func nonRefreshingPlacementsAreRefused() async {
        let configuration = SimulationFixture.configuration(sources: SimulationFixture.scenarioSources)
        let error = await #expect(throws: SimulationError.self) {
            _ = try await Simulation.runPlacement(configuration: configuration, market: SimulationFixture.randomMarket, placementID: "level_end", duration: .seconds(60), seed: 1)
        }
        #expect(error?.code == .invalidOptions)
    }

    /// `Config/market.json` describes every network and line item of `Config/mediation.json`,
    /// and a run of each placement gives plausible figures.
    @Test func theShippedMarketCoversTheShippedConfiguration() async throws {
        let configuration = try SimulationFixture.shippedConfiguration()
        let market = try SimulationFixture.shippedMarket()
        try market.check(against: [configuration])
        #expect(Set(market.networks.map(\.id)) == Set(configuration.networks.map(\.id)))
        for placement in configuration.placements {
            let report = try await Simulation.run(configuration: configuration, market: market, placementID: placement.id, auctions: 2000, seed: 1)
            #expect(report.fillRate > 0.8, "\(placement.id)")
            let ratio = try #require(report.oracle.ratio, "\(placement.id)")
            #expect(ratio > 0.5 && ratio <= 1, "\(placement.id): \(ratio)")
            #expect(try #require(report.oracle.unboundedRatio) <= ratio)
            #expect(report.lineItems.count == placement.sources.count)
        }
    }

    @Test func unknownPlacementAndBadOptions() async {
        let configuration = SimulationFixture.configuration(sources: SimulationFixture.scenarioSources)
        let unknown = await #expect(throws: SimulationError.self) {
            _ = try await Simulation.run(configuration: configuration, market: SimulationFixture.randomMarket, placementID: "nope", auctions: 10, seed: 1)
        }
        #expect(unknown?.code == .unknownPlacement)
        for options in [SimulationOptions(auctions: 0), SimulationOptions(auctions: 10, jobs: 0), SimulationOptions(auctions: 10, shardSize: 0), SimulationOptions(auctions: 10, concurrency: 0), SimulationOptions(auctions: 10, batches: 1)] {
            let error = await #expect(throws: SimulationError.self) {
                _ = try await Simulation.run(configuration: configuration, market: SimulationFixture.randomMarket, placementID: "level_end", options: options)
            }
            #expect(error?.code == .invalidOptions)
        }
    }
}

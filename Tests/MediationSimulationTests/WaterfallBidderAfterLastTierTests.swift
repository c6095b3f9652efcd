import Mediation
import MediationSimulation
import Testing

/// Found by `mediation-bench --only revenue` on the shipped market in waterfall mode (seed 1,
/// auction 95,627 of `home_banner`): in waterfall mode, when every fixed-price tier has failed
/// and a bidder answers afterwards, `AuctionStateMachine.advanceWaterfall` reads
/// `tiers[currentTier]` with `currentTier == tiers.count` and the process traps (index out of
/// range). Disabled until the auction driver is fixed (the guard needs
/// `currentTier < tiers.count` before indexing); enable it then.
@Suite("Waterfall: a bid after the last tier failed")
struct WaterfallBidderAfterLastTierTests {
    @Test
    func bidAfterTheLastTierFailedWins() async throws {
        // The one tier has no fill at 100 ms; the bid (2.00) comes at 500 ms and wins.
        let market = Market(networks: [
            SimulationFixture.fixed("bid", price: 2.00, latencyMilliseconds: 500),
            SimulationFixture.fixed("neta", fills: false, price: 1.00, latencyMilliseconds: 100),
        ])
        let configuration = SimulationFixture.configuration(sources: [.bidder("bid"), .fixedPrice("neta", eCPM: 1.00)], mode: .waterfall)
        let report = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", auctions: 10, seed: 1)
        #expect(report.filled == 10)
        #expect(report.revenuePer1000Requests == 2.0)
        #expect(report.timeToAd == Percentiles(p50: 500, p95: 500, p99: 500))
    }
}

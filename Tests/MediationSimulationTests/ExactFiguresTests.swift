import Mediation
import MediationSimulation
import Testing

/// Markets of fixed draws (spread 0, fill rate 1 or 0, fixed latency): every figure is worked
/// out by hand from the engine rules and asserted exactly.
@Suite("Exact figures from fixed draws")
struct ExactFiguresTests {
    /// Bid 2.00 at 100 ms, NetA fills at 50 ms (configured 1.20, realised 1.00), NetB has no
    /// fill at 30 ms. The bidder can always still win, so the auction waits for it and ends at
    /// 100 ms with the bid: every auction earns 2.00 / 1000 USD, the oracle too (the best valid
    /// answer is the bid), so the ratio is 1.
    @Test func bidWinsEveryAuction() async throws {
        let market = Market(networks: [
            SimulationFixture.fixed("bid", price: 2.00, latencyMilliseconds: 100),
            SimulationFixture.fixed("neta", price: 1.00, latencyMilliseconds: 50),
            SimulationFixture.fixed("netb", fills: false, price: 0.70, latencyMilliseconds: 30),
        ])
        let report = try await Simulation.run(configuration: SimulationFixture.configuration(sources: SimulationFixture.scenarioSources), market: market, placementID: "level_end", auctions: 1000, seed: 1)

        #expect(report.requests == 1000)
        #expect(report.filled == 1000)
        #expect(report.fillRate == 1)
        // Wilson: [n / (n + z²), 1] for n of n.
        #expect(report.fillRateInterval?.upper == 1)
        #expect(abs((report.fillRateInterval?.lower ?? 0) - 1000 / (1000 + 1.959963984540054 * 1.959963984540054)) < 1e-12)
        #expect(report.revenueUSD == 2.0) // 1000 impressions × 2.00 / 1000
        #expect(report.revenuePer1000Requests == 2.0)
        #expect(report.revenuePer1000RequestsInterval == ConfidenceInterval(lower: 2, upper: 2))
        #expect(report.meanWinningECPM == 2.0)
        #expect(report.knownRevenueUSD == 2.0)
        #expect(report.timeToAd == Percentiles(p50: 100, p95: 100, p99: 100))
        #expect(report.meanAuctionMilliseconds == 100)
        #expect(report.oracle.revenueUSD == 2.0)
        #expect(report.oracle.unboundedRevenueUSD == 2.0)
        #expect(report.oracle.ratio == 1)
        #expect(report.oracle.unboundedRatio == 1)

        let bid = try #require(report.lineItem("bid"))
        #expect(bid.asked == 1000 && bid.wins == 1000 && bid.fills == 1000 && bid.winShare == 1 && bid.revenueUSD == 2.0)
        let netA = try #require(report.lineItem("neta"))
        #expect(netA.asked == 1000 && netA.fills == 1000 && netA.wins == 0 && netA.revenueUSD == 0)
        let netB = try #require(report.lineItem("netb"))
        #expect(netB.asked == 1000 && netB.noFills == 1000 && netB.fills == 0)
        #expect(report.networks.map(\.network) == ["bid", "neta", "netb"])
    }

    /// A mis-ordered pair: NetA is configured at 1.20 but realises 1.00; NetB is configured at
    /// 0.80 but realises 1.50. Both fill (NetA at 50 ms, NetB at 80 ms). The engine knows only
    /// the configured values: NetA wins at 50 ms (NetB cannot beat 1.20 and is cancelled). It
    /// earns 1.00 where a clairvoyant picker would take NetB's 1.50: the oracle ratio is 2/3.
    @Test func misOrderedFixedPrices() async throws {
        let market = Market(networks: [
            SimulationFixture.fixed("neta", price: 1.00, latencyMilliseconds: 50),
            SimulationFixture.fixed("netb", price: 1.50, latencyMilliseconds: 80),
        ])
        let configuration = SimulationFixture.configuration(sources: [.fixedPrice("neta", eCPM: 1.20), .fixedPrice("netb", eCPM: 0.80)])
        let report = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", auctions: 500, seed: 9)

        #expect(report.filled == 500)
        #expect(report.revenueUSD == 0.5) // 500 × 1.00 / 1000
        #expect(report.revenuePer1000Requests == 1.0)
        #expect(report.knownRevenueUSD == 0.6) // 500 × 1.20 / 1000
        #expect(report.knownRevenuePer1000Requests == 1.2)
        #expect(report.meanKnownWinningECPM == 1.2)
        #expect(report.timeToAd == Percentiles(p50: 50, p95: 50, p99: 50))
        #expect(report.oracle.revenueUSD == 0.75) // 500 × 1.50 / 1000
        #expect(report.oracle.ratio == 0.5 / 0.75)
        #expect(report.oracle.ratioInterval == ConfidenceInterval(lower: 0.5 / 0.75, upper: 0.5 / 0.75))
        #expect(report.oracle.unboundedRatio == 0.5 / 0.75)
        let netB = try #require(report.lineItem("netb"))
        #expect(netB.asked == 500 && netB.cancelled == 500 && netB.fills == 0)
    }

    /// The deadline cuts a high late bid: the bidder would bid 5.00 but answers at 3400 ms, after
    /// the 3000 ms deadline; NetA fills at 200 ms (1.20, realised 1.20). The bidder keeps the
    /// auction open to the deadline, where NetA wins and the bidder times out. Within the
    /// deadline nothing better was possible (bounded ratio 1); without it the bid was there to
    /// take: 1.20 / 5.00 = 0.24.
    @Test func deadlineCutsAHighLateBid() async throws {
        let market = Market(networks: [
            SimulationFixture.fixed("bid", price: 5.00, latencyMilliseconds: 3400),
            SimulationFixture.fixed("neta", price: 1.20, latencyMilliseconds: 200),
        ])
        let configuration = SimulationFixture.configuration(sources: [.bidder("bid", floor: 0.50), .fixedPrice("neta", eCPM: 1.20)])
        let report = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", auctions: 200, seed: 3)

        #expect(report.filled == 200)
        #expect(report.revenueUSD == 0.24) // 200 × 1.20 / 1000
        #expect(report.timeToAd == Percentiles(p50: 3000, p95: 3000, p99: 3000))
        #expect(report.oracle.revenueUSD == 0.24)
        #expect(report.oracle.ratio == 1)
        #expect(report.oracle.unboundedRevenueUSD == 1.0) // 200 × 5.00 / 1000
        #expect(report.oracle.unboundedRatio == 0.24)
        #expect(try #require(report.oracle.unboundedRatio) < 1)
        let bid = try #require(report.lineItem("bid"))
        #expect(bid.asked == 200 && bid.timeouts == 200 && bid.wins == 0)
    }

    /// The same late bid under a 1000 ms deadline that NetA (at 1200 ms) misses too: no fill;
    /// both oracles are 0 within the deadline, so the bounded ratio is undefined, and the
    /// unbounded ratio is 0.
    @Test func nothingInTime() async throws {
        let market = Market(networks: [
            SimulationFixture.fixed("bid", price: 5.00, latencyMilliseconds: 3400),
            SimulationFixture.fixed("neta", price: 1.20, latencyMilliseconds: 1200),
        ])
        let configuration = SimulationFixture.configuration(sources: [.bidder("bid"), .fixedPrice("neta", eCPM: 1.20)], deadline: .milliseconds(1000))
        let report = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", auctions: 50, seed: 3)

        #expect(report.filled == 0 && report.fillRate == 0 && report.revenueUSD == 0)
        #expect(report.meanWinningECPM == nil)
        #expect(report.timeToAd == Percentiles(p50: nil, p95: nil, p99: nil))
        #expect(report.auctionDuration == Percentiles(p50: 1000, p95: 1000, p99: 1000))
        #expect(report.oracle.ratio == nil)
        #expect(report.oracle.unboundedRatio == 0)
    }

    /// Waterfall: tier 1 (2.00) never answers and has a 500 ms timeout; tier 2 (1.00, realised
    /// 1.10) is asked when that timeout fires and fills 50 ms later, at 550 ms. A bidder under
    /// the floor (bid 0.30 against 0.50) takes no part. The oracle (everyone asked at 0) has
    /// tier 2's 1.10 at 50 ms: ratio 1.
    @Test func waterfallMovesOnWhenATierTimesOut() async throws {
        let market = Market(networks: [
            SimulationFixture.fixed("bid", price: 0.30, latencyMilliseconds: 20),
            SimulationFixture.fixed("neta", latencyMilliseconds: 10, neverAnswers: true),
            SimulationFixture.fixed("netb", price: 1.10, latencyMilliseconds: 50),
        ])
        let configuration = SimulationFixture.configuration(
            sources: [.bidder("bid", floor: 0.50), .fixedPrice("neta", eCPM: 2.00, timeout: .milliseconds(500)), .fixedPrice("netb", eCPM: 1.00)],
            mode: .waterfall
        )
        let report = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", auctions: 100, seed: 5)

        #expect(report.filled == 100)
        #expect(report.revenueUSD == 0.11)
        #expect(report.knownRevenueUSD == 0.1)
        #expect(report.timeToAd == Percentiles(p50: 550, p95: 550, p99: 550))
        #expect(report.oracle.ratio == 1)
        let bid = try #require(report.lineItem("bid"))
        #expect(bid.fills == 100 && bid.wins == 0) // lost (100): under its floor
        let netA = try #require(report.lineItem("neta"))
        #expect(netA.asked == 100 && netA.timeouts == 100)
        let netB = try #require(report.lineItem("netb"))
        #expect(netB.asked == 100 && netB.wins == 100 && netB.winShare == 1)
    }

    /// The waterfall order and the deadline cost a fill: tier 1 (2.00) has no fill at 800 ms,
    /// so tier 2 (1.00, realised 1.00, 300 ms) is asked at 800 ms and would answer at 1100 ms,
    /// past the 1000 ms deadline; the 0.50 bid (at 100 ms) wins at the deadline. Asked at 0,
    /// tier 2 would have answered at 300 ms: the bounded oracle is 1.00 and the ratio 0.5.
    @Test func waterfallOrderAndDeadlineCostAFill() async throws {
        let market = Market(networks: [
            SimulationFixture.fixed("bid", price: 0.50, latencyMilliseconds: 100),
            SimulationFixture.fixed("neta", fills: false, price: 2.50, latencyMilliseconds: 800),
            SimulationFixture.fixed("netb", price: 1.00, latencyMilliseconds: 300),
        ])
        let configuration = SimulationFixture.configuration(
            sources: [.bidder("bid"), .fixedPrice("neta", eCPM: 2.00), .fixedPrice("netb", eCPM: 1.00)],
            mode: .waterfall,
            deadline: .milliseconds(1000)
        )
        let report = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", auctions: 100, seed: 12)

        #expect(report.filled == 100)
        #expect(report.revenueUSD == 0.05) // 100 × 0.50 / 1000
        #expect(report.timeToAd == Percentiles(p50: 1000, p95: 1000, p99: 1000))
        #expect(report.oracle.revenueUSD == 0.1) // 100 × 1.00 / 1000
        #expect(report.oracle.ratio == 0.5)
        #expect(report.oracle.unboundedRatio == 0.5)
        let netB = try #require(report.lineItem("netb"))
        #expect(netB.asked == 100 && netB.timeouts == 100)
    }

    /// Errors and silence: NetA errs at 40 ms, NetB never answers; no fill, at the deadline
    /// (NetB could still have won).
    @Test func errorsAndSilence() async throws {
        let market = Market(networks: [
            SimulationFixture.fixed("neta", latencyMilliseconds: 40, error: true),
            SimulationFixture.fixed("netb", latencyMilliseconds: 10, neverAnswers: true),
        ])
        let configuration = SimulationFixture.configuration(sources: [.fixedPrice("neta", eCPM: 1.20), .fixedPrice("netb", eCPM: 0.80)], deadline: .milliseconds(700))
        let report = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", auctions: 30, seed: 2)

        #expect(report.filled == 0)
        #expect(report.auctionDuration == Percentiles(p50: 700, p95: 700, p99: 700))
        #expect(report.lineItem("neta")?.errors == 30)
        #expect(report.lineItem("netb")?.timeouts == 30)
    }
}

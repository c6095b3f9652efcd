import Foundation
import Mediation
import MediationSimulation
import Testing

/// A report is a function of (configuration, market, placement, auctions, seed, batches): not
/// of the jobs, the shard size or the auctions in flight.
@Suite("Determinism, shards and jobs")
struct DeterminismTests {
    let configuration = SimulationFixture.configuration(sources: SimulationFixture.scenarioSources, deadline: .milliseconds(600))
    let market = SimulationFixture.randomMarket

    func run(_ options: SimulationOptions) async throws -> SimulationReport {
        try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", options: options)
    }

    @Test func sameSeedSameReport() async throws {
        let first = try await run(SimulationOptions(auctions: 3000, seed: 42))
        let second = try await run(SimulationOptions(auctions: 3000, seed: 42))
        #expect(first == second)
        #expect(try SimulationFixture.json(first) == SimulationFixture.json(second))
        // The draws do vary: this is not a trivially constant run.
        #expect(first.filled > 0 && first.filled < 3000)
        #expect((first.lineItem("bid")?.timeouts ?? 0) > 0)
        #expect((first.lineItem("neta")?.errors ?? 0) > 0)
        let otherSeed = try await run(SimulationOptions(auctions: 3000, seed: 43))
        #expect(otherSeed != first)
    }

    @Test func jobsOneAndTwoAreIdenticalByteForByte() async throws {
        let one = try await run(SimulationOptions(auctions: 5000, seed: 7, jobs: 1, shardSize: 1000))
        let two = try await run(SimulationOptions(auctions: 5000, seed: 7, jobs: 2, shardSize: 1000))
        #expect(try SimulationFixture.json(one) == SimulationFixture.json(two))
    }

    @Test func shardSizeAndConcurrencyChangeNothing() async throws {
        let reference = try SimulationFixture.json(try await run(SimulationOptions(auctions: 2000, seed: 11)))
        let variants = [
            SimulationOptions(auctions: 2000, seed: 11, shardSize: 7),
            SimulationOptions(auctions: 2000, seed: 11, shardSize: 333, concurrency: 1),
            SimulationOptions(auctions: 2000, seed: 11, jobs: 3, shardSize: 500, concurrency: 200),
        ]
        for options in variants {
            #expect(try SimulationFixture.json(try await run(options)) == reference, "\(options)")
        }
    }

    /// Answers landing exactly on the deadline instant count as arrived (engine rule R6a),
    /// whatever the order the engine processes them in: the 3.00 source wins every auction.
    @Test func answersAtTheDeadlineInstantCountTheSame() async throws {
        let market = Market(networks: [
            SimulationFixture.fixed("bid", price: 3.00, latencyMilliseconds: 600),
            SimulationFixture.fixed("neta", price: 1.00, latencyMilliseconds: 600),
            SimulationFixture.fixed("netb", price: 0.90, latencyMilliseconds: 100),
        ])
        var reports: [Data] = []
        for concurrency in [1, 5, 64] {
            let report = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", options: SimulationOptions(auctions: 300, seed: 1, concurrency: concurrency))
            #expect(report.lineItem("bid")?.timeouts == 0)
            #expect(report.lineItem("neta")?.timeouts == 0)
            #expect(report.revenuePer1000Requests == 3.0)
            reports.append(try SimulationFixture.json(report))
        }
        #expect(Set(reports).count == 1)
    }

    /// Common random numbers: a line item keeps its draws when the placement's order changes.
    @Test func drawsFollowTheLineItemNotItsPosition() async throws {
        var reordered = configuration
        reordered.placements[0].sources.reverse()
        let original = try await run(SimulationOptions(auctions: 1000, seed: 5))
        let swapped = try await Simulation.run(configuration: reordered, market: market, placementID: "level_end", options: SimulationOptions(auctions: 1000, seed: 5))
        // The winner of a parallel auction depends on the order only for equal values at one
        // instant (none here). (A loser's status may: two answers at one instant are processed
        // in the order asked, engine rule R6a, so `cancelled` and `lost` can trade places.)
        #expect(original.revenueUSD == swapped.revenueUSD)
        #expect(original.oracle == swapped.oracle)
        #expect(original.timeToAd == swapped.timeToAd)
        for lineItem in original.lineItems {
            let other = swapped.lineItem(lineItem.lineItemID ?? "")
            #expect(other?.wins == lineItem.wins && other?.revenueUSD == lineItem.revenueUSD && other?.asked == lineItem.asked)
        }
    }

    @Test func splitMixMatchesItsReference() {
        var random = SplitMix64(state: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(SplitMix64.key(ofLineItem: "") == 0xCBF2_9CE4_8422_2325)
        #expect(SplitMix64.key(ofLineItem: "a") == 0xAF63_DC4C_8601_EC8C)
    }

    /// The draws follow their distributions: over 20,000 auctions a 0.3 fill rate fills about
    /// 30 %, and half the prices fall under the median.
    @Test func drawsFollowTheirDistributions() {
        let behaviour = SourceBehaviour(fillRate: 0.3, price: LogNormal(median: 2, spread: 0.5), latency: LogNormal(median: 100, spread: 0.5), neverAnswers: 0.1, errorRate: 0.2)
        var answers: [SourceDraw.Answer: Int] = [:]
        var underMedian = 0
        let key = SplitMix64.key(ofLineItem: "x")
        for auction in 0..<20_000 {
            let draw = behaviour.draw(seed: 99, auction: UInt64(auction), lineItemKey: key)
            answers[draw.answer, default: 0] += 1
            if draw.priceMicros < 2_000_000 { underMedian += 1 }
        }
        // P(never) 0.1; P(error) 0.9 × 0.2 = 0.18; P(ad) 0.9 × 0.8 × 0.3 = 0.216.
        #expect(abs(Double(answers[.never] ?? 0) / 20_000 - 0.1) < 0.01)
        #expect(abs(Double(answers[.error] ?? 0) / 20_000 - 0.18) < 0.012)
        #expect(abs(Double(answers[.ad] ?? 0) / 20_000 - 0.216) < 0.012)
        #expect(abs(Double(underMedian) / 20_000 - 0.5) < 0.012)
    }
}

import Foundation
import Mediation
import MediationSimulation
import Testing

/// Network health (R24) in the simulation: a network hung by an outage is paused after the
/// rule's failures, probed at its back-off and resumed when it answers, at exact instants of
/// virtual time; health carries across a shard's auctions and starts fresh at each shard.
@Suite("Network health in simulation")
struct HealthInSimulationTests {
    /// A waterfall: `neta` (tier 1, 2.00, network timeout 500 ms), then `netb` (1.00); both
    /// always fill after 100 ms, health at its defaults (7 failures of 10, 30 s back-off).
    let configuration = SimulationFixture.configuration(
        sources: [.fixedPrice("neta", eCPM: 2.0), .fixedPrice("netb", eCPM: 1.0)],
        mode: .waterfall,
        networkTimeouts: ["neta": .milliseconds(500)],
        health: .standard
    )

    func market(outages: [Outage]) -> Market {
        var neta = SimulationFixture.fixed("neta", price: 2, latencyMilliseconds: 100)
        neta.outages = outages
        return Market(networks: [neta, SimulationFixture.fixed("netb", price: 1, latencyMilliseconds: 100)])
    }

    @Test func aHungNetworkIsPausedProbedAndResumedAtExactInstants() async throws {
        // neta hangs from 10 s to 60 s; one auction a second for 120 s.
        let market = market(outages: [Outage(start: .seconds(10), end: .seconds(60), kind: .hang)])
        let report = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", options: .timed(duration: .seconds(120), rate: 1, window: .seconds(10)))
        #expect(report.requests == 120 && report.filled == 120)
        let events = report.health.events
        #expect(events.map(\.event) == ["paused", "paused", "resumed"], "\(events)")
        guard events.count == 3 else { return }
        // Auctions 10 to 16 wait out neta's 500 ms and take netb at 600 ms; the seventh failure
        // (with auctions 7 to 9's answers, 7 of the last 10) pauses it when auction 16 ends.
        #expect(events[0].network == "neta" && events[0].cause == "failures" && events[0].atMilliseconds == 16_600)
        #expect(events[0].failures == 7 && events[0].outcomes == 10 && events[0].shard == 0)
        // The back-off: 30 s less a jitter of up to 20 %.
        let retry1 = try #require(events[0].retryAtMilliseconds)
        #expect(retry1 > 16_600 + 24_000 && retry1 <= 16_600 + 30_000)
        // The first auction at or after the retry instant probes: still hung, paused again when
        // it ends, for twice the back-off (less its jitter).
        let probe1 = (retry1 + 999) / 1000
        #expect(events[1].cause == "probe_failed" && events[1].atMilliseconds == probe1 * 1000 + 600)
        let retry2 = try #require(events[1].retryAtMilliseconds)
        #expect(retry2 > events[1].atMilliseconds + 48_000 && retry2 <= events[1].atMilliseconds + 60_000)
        // The outage is over by then: the probe answers after 100 ms and resumes it.
        let probe2 = (retry2 + 999) / 1000
        #expect(probe2 >= 60)
        #expect(events[2].atMilliseconds == probe2 * 1000 + 100)
        // Counted per request: paused from auction 17 to the last before the second probe, but
        // for the first probe.
        let neta = try #require(report.network("neta"))
        let paused = Int(probe2) - 17 - 1
        #expect(neta.paused == paused && neta.notAsked == paused && neta.asked == 120 - paused)
        #expect(neta.timeouts == 8)
        #expect(neta.wins == 10 + (120 - Int(probe2)))
        #expect(report.health.pauses == 2 && report.health.resumes == 1 && report.health.pausedRequests == paused)
        // Per 10 s window: the outage's first window asks neta 7 times; the next ones only probe.
        let windows = try #require(report.windows)
        #expect(windows.count == 12 && windows.allSatisfy { $0.requests == 10 })
        #expect(windows[0].network("neta")?.wins == 10 && windows[0].timeToAd.p50 == 100)
        #expect(windows[1].network("neta")?.asked == 7 && windows[1].network("neta")?.paused == 3 && windows[1].network("netb")?.wins == 10)
        #expect(windows[1].timeToAd.p50 == 600 && windows[1].timeToAd.p95 == 600)
        #expect(windows[2].network("neta")?.asked == 0 && windows[2].timeToAd.p95 == 100)
        #expect(windows[11].network("neta")?.wins == 10)
    }

    @Test func healthAgainstNoHealthOnTheSameDraws() async throws {
        let market = market(outages: [Outage(start: .seconds(10), end: .seconds(60), kind: .hang)])
        let comparison = try await Simulation.compareHealth(configuration: configuration, market: market, placementID: "level_end", options: .timed(duration: .seconds(120), rate: 1))
        // A: no health: every auction of the outage waits 500 ms for neta.
        #expect(!comparison.a.health.enabled && comparison.a.health.pauses == 0)
        #expect(comparison.a.network("neta")?.timeouts == 50 && comparison.a.network("neta")?.asked == 120)
        #expect(comparison.b.health.enabled && comparison.b.health.pauses == 2)
        // B − A of the mean auction: 50 × 600 + 70 × 100 ms without; with, 8 auctions of 600 ms.
        let expected = (Double(8 * 600 + 112 * 100) - Double(50 * 600 + 70 * 100)) / 120
        #expect(comparison.difference("mean_auction_ms")?.difference == expected)
        #expect(comparison.difference("fill_rate")?.difference == 0)
    }

    @Test func anErrorOutageAndASlowOne() async throws {
        // Errors pause like hangs (after 100 ms each); a slow network past its timeout is a
        // timeout, so it is paused too.
        for kind in [Outage.Kind.error, .slow(latencyFactor: 10)] {
            let report = try await Simulation.run(configuration: configuration, market: market(outages: [Outage(start: .seconds(10), end: .seconds(60), kind: kind)]), placementID: "level_end", options: .timed(duration: .seconds(120), rate: 1))
            #expect(report.health.events.first?.cause == "failures", "\(kind)")
            #expect(report.health.events.last?.event == "resumed", "\(kind)")
            let neta = try #require(report.network("neta"))
            if case .error = kind { #expect(neta.errors == 8) } else { #expect(neta.timeouts == 8) }
        }
    }

    @Test func healthStartsFreshAtEachShardAndJobsChangeNothing() async throws {
        // Three hours at one auction a second: three shards of an hour; neta hangs across the
        // first boundary (from 3500 s to 3700 s).
        let market = market(outages: [Outage(start: .seconds(3500), end: .seconds(3700), kind: .hang)])
        var options = SimulationOptions.timed(duration: .seconds(3 * 3600), rate: 1)
        #expect(options.auctions == 10_800 && options.shardSize == 3600 && options.shardCount == 3)
        let one = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", options: options)
        options.jobs = 3
        let three = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", options: options)
        #expect(try SimulationFixture.json(one) == SimulationFixture.json(three))
        // Shard 0 pauses neta after auctions 3500 to 3506; shard 1's engine starts with no
        // memory of it, so auctions 3600 to 3606 wait for it again.
        let pausesByFailures = one.health.events.filter { $0.cause == "failures" }
        #expect(pausesByFailures.map(\.shard) == [0, 1])
        #expect(pausesByFailures.map(\.atMilliseconds) == [3_506_600, 3_606_600])
        #expect(pausesByFailures.map(\.outcomes) == [10, 7])
    }

    @Test func aNetworkThatNeverAnswersInARunOfNAuctions() async throws {
        // No rate: each shard's auctions follow each other (32 in flight); neta never answers.
        var neta = SimulationFixture.fixed("neta", price: 2, latencyMilliseconds: 100, neverAnswers: true)
        neta.outages = []
        let market = Market(networks: [neta, SimulationFixture.fixed("netb", price: 1, latencyMilliseconds: 100)])
        let options = SimulationOptions(auctions: 4000, seed: 3, shardSize: 2000)
        let comparison = try await Simulation.compareHealth(configuration: configuration, market: market, placementID: "level_end", options: options)
        #expect(comparison.a.timeToAd.p50 == 600 && comparison.a.network("neta")?.timeouts == 4000)
        // With health, each shard pays for the auctions in flight until the seventh failure, then
        // probes: the median auction no longer waits.
        #expect(comparison.b.timeToAd.p50 == 100)
        #expect(comparison.b.health.events.filter { $0.cause == "failures" }.map(\.shard) == [0, 1])
        let timeouts = try #require(comparison.b.network("neta")?.timeouts)
        #expect(timeouts < 100, "\(timeouts)")
        // The same for any jobs.
        var two = options
        two.jobs = 2
        let again = try await Simulation.compareHealth(configuration: configuration, market: market, placementID: "level_end", options: two)
        #expect(try SimulationFixture.json(comparison) == SimulationFixture.json(again))
    }
}

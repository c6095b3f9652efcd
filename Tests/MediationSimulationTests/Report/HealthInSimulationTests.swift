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
        try #require(events.count >= 3, "\(events)")
        // Auctions 10 to 16 wait out neta's 500 ms and take netb at 600 ms; the seventh failure
        // (with auctions 7 to 9's answers, 7 of the last 10) pauses it when auction 16 ends.
        #expect(events[0].network == "neta" && events[0].cause == "failures" && events[0].atMilliseconds == 16_600)
        #expect(events[0].failures == 7 && events[0].outcomes == 10 && events[0].shard == 0)
        // Then probes fail while it hangs, each pausing it again for 1.25 × the last back-off
        // (5 s, 6.25 s, 7.8 s, ...), less a jitter of up to half; the first probe at or after
        // 60 s answers after 100 ms and resumes it.
        let probeFailures = events.dropFirst().dropLast()
        #expect(probeFailures.allSatisfy { $0.event == "paused" && $0.cause == "probe_failed" }, "\(events)")
        #expect(events.last?.event == "resumed")
        var failedProbes = 0
        var probes: [Int64] = []
        for (pause, next) in zip(events.dropLast(), events.dropFirst()) {
            let full = 5000 * pow(1.25, Double(failedProbes))
            let retry = try #require(pause.retryAtMilliseconds)
            #expect(Double(retry - pause.atMilliseconds) <= full && Double(retry - pause.atMilliseconds) >= (full * 0.5).rounded(.down), "\(pause)")
            // The first auction at or after the retry instant probes.
            let probe = (retry + 999) / 1000
            probes.append(probe)
            #expect(next.atMilliseconds == probe * 1000 + (next.event == "resumed" ? 100 : 600), "\(next)")
            #expect((next.event == "resumed") == (probe >= 60))
            failedProbes += 1
        }
        let lastProbe = try #require(probes.last)
        // Counted per request: paused from auction 17 to the last before the resuming probe,
        // but for the failed probes.
        let neta = try #require(report.network("neta"))
        let paused = Int(lastProbe) - 17 - (probes.count - 1)
        #expect(neta.paused == paused && neta.notAsked == paused && neta.asked == 120 - paused)
        #expect(neta.timeouts == 7 + probes.count - 1)
        #expect(neta.wins == 10 + (120 - Int(lastProbe)))
        #expect(report.health.pauses == probes.count && report.health.resumes == 1 && report.health.pausedRequests == paused)
        // Per 10 s window: the outage's first window asks neta 7 times; the next ones only probe.
        let windows = try #require(report.windows)
        #expect(windows.count == 12 && windows.allSatisfy { $0.requests == 10 })
        #expect(windows[0].network("neta")?.wins == 10 && windows[0].timeToAd.p50 == 100)
        #expect(windows[1].network("neta")?.asked == 7 && windows[1].network("neta")?.paused == 3 && windows[1].network("netb")?.wins == 10)
        #expect(windows[1].timeToAd.p50 == 600 && windows[1].timeToAd.p95 == 600)
        #expect(windows[2].network("neta")?.asked == probes.filter { (20..<30).contains($0) }.count && windows[2].timeToAd.p50 == 100)
        #expect(windows[11].network("neta")?.wins == 10)
    }

    @Test func aFlappingNetworkIsAskedInMostOfItsUpTime() async throws {
        // neta is up 30 s, then hangs (or errors) 30 s, for 20 minutes, at 10 auctions a second.
        // The old rule (a 24 to 30 s first back-off, doubled by each failed probe) asked it in
        // about a fifth of its up time; now a probe follows the pause within 5 s, and each failed
        // probe lengthens the next back-off by a quarter only.
        let outages = (0..<20).map { Outage(start: .seconds(60 * $0 + 30), end: .seconds(60 * $0 + 60), kind: .hang) }
        for kind in [Outage.Kind.hang, .error] {
            let market = market(outages: outages.map { Outage(start: $0.start, end: $0.end, kind: kind) })
            let report = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", options: .timed(duration: .seconds(1200), rate: 10, window: .seconds(30)))
            let figures = try #require(report.outages?.first { $0.network == "neta" })
            #expect(figures.mixedWindows == 0 && figures.upRequests == 6000 && figures.downRequests == 6000)
            #expect(figures.upAskedShare >= 0.6, "\(kind): \(figures)")
            // Every outage began with it closed, and the first probe of each outage comes at
            // most 5 s after its pause.
            #expect(figures.onsetAsked.count == 20, "\(kind): \(figures)")
            let events = report.health.events
            for (pause, next) in zip(events, events.dropFirst()) where pause.cause == "failures" {
                let retry = try #require(pause.retryAtMilliseconds)
                #expect(retry - pause.atMilliseconds <= 5000 && retry - pause.atMilliseconds >= 2500, "\(pause)")
                #expect(next.atMilliseconds >= retry, "\(next)")
            }
            // No auction waits more than one limit for it: each asks it once, and a hang times
            // out at its 500 ms.
            let neta = try #require(report.network("neta"))
            if case .hang = kind { #expect(neta.timeouts == figures.downAsked, "\(figures)") }
        }
    }

    @Test func healthAgainstNoHealthOnTheSameDraws() async throws {
        let market = market(outages: [Outage(start: .seconds(10), end: .seconds(60), kind: .hang)])
        let comparison = try await Simulation.compareHealth(configuration: configuration, market: market, placementID: "level_end", options: .timed(duration: .seconds(120), rate: 1))
        // A: no health: every auction of the outage waits 500 ms for neta.
        #expect(!comparison.a.health.enabled && comparison.a.health.pauses == 0)
        #expect(comparison.a.network("neta")?.timeouts == 50 && comparison.a.network("neta")?.asked == 120)
        // B: the pause, then one pause per failed probe (5 while it hangs, at this seed).
        #expect(comparison.b.health.enabled && comparison.b.health.pauses == 6)
        // B − A of the mean auction: 50 × 600 + 70 × 100 ms without; with, the 7 auctions before
        // the pause and the 5 failed probes wait 600 ms.
        #expect(comparison.b.network("neta")?.timeouts == 12)
        let expected = (Double(12 * 600 + 108 * 100) - Double(50 * 600 + 70 * 100)) / 120
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
            // The 7 failures before the pause, then one per failed probe.
            let failures = 7 + report.health.pauses - 1
            if case .error = kind { #expect(neta.errors == failures) } else { #expect(neta.timeouts == failures) }
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

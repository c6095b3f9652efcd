import Mediation
import Testing
@testable import MediationSimulation

/// What a run keeps is bounded by what it reports, never by its length: a timed run's windows,
/// its shards waiting to be merged, its listed health events and a window's time-to-ad counts
/// are the same in number for two days as for eight.
@Suite("Run memory bounds")
struct RunMemoryBoundTests {
    let configuration = SimulationFixture.configuration(
        sources: [.fixedPrice("neta", eCPM: 2.0), .fixedPrice("netb", eCPM: 1.0)],
        mode: .waterfall,
        health: .standard
    )
    let market = Market(networks: [
        SimulationFixture.fixed("neta", price: 2, latencyMilliseconds: 100),
        SimulationFixture.fixed("netb", price: 1, latencyMilliseconds: 100),
    ])

    @Test("a timed run of 2 days and one of 8 keep at most 1440 windows and 2 × jobs ended shards")
    func timedRunKeepsABoundedNumberOfItems() async throws {
        for days in [2, 8] {
            // One auction every 5 minutes: each lands in a window of its own at one minute.
            var options = SimulationOptions.timed(duration: .seconds(days * 86_400), rate: 1.0 / 300)
            options.jobs = 2
            let (totals, _) = try await Simulation.runTotals([(configuration, true)], market: market, placementID: "level_end", options: options)
            let run = try #require(totals.runs.first)
            #expect(run.requests == days * 288)
            #expect(run.windows.count <= SimulationOptions.maximumWindows, "\(days) days: \(run.windows.count) windows")
            #expect(totals.peakHeldShards <= ShardScheduler.maximumHeld(jobs: 2), "\(days) days: \(totals.peakHeldShards) shards held")
            // A window keeps one count per time to ad that occurs in it, not a histogram of every
            // millisecond.
            for window in run.windows.values {
                #expect(window.timesToAd.count <= window.filled)
            }
        }
    }

    @Test("the default window widens with the duration: at most 1440 windows up to a year; a narrower one is refused")
    func windowsAreBounded() throws {
        #expect(SimulationOptions.defaultWindow(covering: .seconds(3600)) == .seconds(60))
        #expect(SimulationOptions.defaultWindow(covering: .seconds(86_400)) == .seconds(60))
        #expect(SimulationOptions.defaultWindow(covering: .seconds(30 * 86_400)) == .seconds(1800))
        for days in [1, 2, 3, 10, 30, 100, 366] {
            let options = SimulationOptions.timed(duration: .seconds(days * 86_400), rate: 0.01)
            let count = try #require(options.windowCount)
            #expect(count <= SimulationOptions.maximumWindows, "\(days) days: \(count)")
            try options.validate()
        }
        let narrow = SimulationOptions.timed(duration: .seconds(30 * 86_400), rate: 0.01, window: .seconds(60))
        #expect {
            try narrow.validate()
        } throws: { error in
            (error as? SimulationError)?.message == "a timed run reports at most 1440 windows: 60 s windows over 2592000 s make 43200; give a window of at least 1800 s"
        }
    }

    @Test("a run lists its first 1000 pauses and resumes and counts the rest")
    func healthEventsAreCounted() {
        var shard = RunTotals(sourceCount: 0, batchCount: 1)
        for index in 0..<3000 {
            shard.add(HealthEventRecord(network: "neta", lineItem: nil, paused: index % 2 == 0, cause: "failures", atMilliseconds: Int64(index), retryAtMilliseconds: 0, failures: 7, outcomes: 10, shard: 0))
        }
        #expect(shard.healthEvents.count == HealthFigures.listedEvents)
        var run = RunTotals(sourceCount: 0, batchCount: 1)
        for _ in 0..<5 { run.add(shard) }
        #expect(run.healthEvents.count == HealthFigures.listedEvents)
        #expect(run.pauses == 7500 && run.resumes == 7500)
        let figures = HealthFigures(enabled: true, totals: run)
        #expect(figures.pauses == 7500 && figures.resumes == 7500 && figures.events.count == HealthFigures.listedEvents)
    }
}

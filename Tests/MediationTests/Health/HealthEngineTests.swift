import Foundation
import MediationTestKit
import Testing
@testable import Mediation

/// An engine over a failing tier-1 network (`bad`, eCPM 2) and a good tier-2 one (`good`,
/// eCPM 1) in a waterfall, on a manual clock, with an injected state store and wall clock.
struct HealthFixture: Sendable {
    static let settings = NetworkHealthSettings(failuresToOpen: 2, window: 2, backoff: .seconds(30), maxBackoff: .seconds(120), probes: 1)
    /// The back-off of `bad`'s first opening under the environment's default seed (1).
    static let firstBackoff = NetworkHealth.backoff(failedProbes: 0, settings: settings, jitter: HealthJitter.unit(seed: 1, networkID: "bad", opening: 0))

    let clock = ManualClock()
    let bad: ScriptedAdapter
    let good: ScriptedAdapter
    let engine: MediationEngine
    let recorder = EventRecorder()
    let logger = RecordingLogger()

    /// - Parameters:
    ///   - store: the engine's state store (shared across a relaunch).
    ///   - wallClock: the wall clock.
    ///   - badAnswer: `bad`'s answer to its request `i` (default: an error after 200 ms).
    init(
        store: any StateStore = MemoryStateStore(),
        wallClock: @escaping @Sendable () -> Date = { Date(timeIntervalSince1970: 1_000_000) },
        badAnswer: @escaping @Sendable (Int) -> ScriptedAnswer = { _ in .after(.milliseconds(200), .error) },
        badLineItems: Int = 1
    ) throws {
        bad = ScriptedAdapter(network: "bad", pricing: .fixedPrice, clock: clock) { index, _ in badAnswer(index) }
        good = ScriptedAdapter(network: "good", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)])
        var networks = PrebuiltNetworks()
        networks.add("bad", pricing: .fixedPrice, adapter: bad, health: Self.settings)
        networks.add("good", pricing: .fixedPrice, adapter: good, health: Self.settings)
        let placement = MediationConfiguration.Placement(
            id: "level_end",
            format: .interstitial,
            mode: .waterfall,
            sources: (1...badLineItems).map { .fixedPrice("bad_\($0)", network: "bad", eCPM: 2.0 - 0.1 * Double($0 - 1)) } + [.fixedPrice("good_1", network: "good", eCPM: 1.0)]
        )
        engine = try MediationEngine(
            configuration: networks.configuration(placements: [placement]),
            registry: networks.registry,
            environment: MediationEnvironment(clock: clock, logger: logger, wallClock: wallClock, stateStore: store),
            onEvent: recorder.handler
        )
    }

    /// Runs one auction from the clock's instant, moving the clock 3 s on.
    func auction() async throws -> MediationEngine.AuctionOutcome {
        let engine = engine
        let task = clock.startTask { await engine.runAuction(placementID: "level_end") }
        await clock.runUntilIdle()
        await clock.advance(by: .seconds(3))
        return try #require(await task.value)
    }

    var pauses: [MediationEvent.NetworkPause] {
        recorder.events.compactMap { if case .networkPaused(let pause) = $0 { pause } else { nil } }
    }

    var resumes: [String] {
        recorder.events.compactMap { if case .networkResumed(let id, _, _, _, _) = $0 { id } else { nil } }
    }
}

/// Engine rule R24 through the engine: pausing, probing, resuming, the waterfall passing a
/// paused tier at once, and the state kept across a relaunch.
@Suite("Network health: the engine (R24)")
struct HealthEngineTests {
    @Test("after the rule's failures the network is paused: its tier is passed at once, the next asked at the instant the paused one would have been")
    func pausedTierIsSkippedAtTheSameInstant() async throws {
        let fixture = try HealthFixture()
        let first = try await fixture.auction()
        #expect(first.trace.source("good_1")?.startOffsetMilliseconds == 200) // waited for bad's error
        #expect(fixture.pauses.isEmpty)
        _ = try await fixture.auction() // starts at 3000; bad fails at 3200; ends at 3300
        let openedAt = MediationInstant.origin + .milliseconds(3300)
        let retryAt = openedAt + HealthFixture.firstBackoff
        #expect(fixture.pauses == [MediationEvent.NetworkPause(networkID: "bad", cause: .failures, failures: 2, outcomes: 2, failedProbes: 0, backoffMilliseconds: HealthFixture.firstBackoff.milliseconds, retryAt: retryAt, at: openedAt)])
        #expect(fixture.engine.networkHealth("bad")?.state == .open)
        #expect(fixture.engine.networkHealth("bad")?.retryAt == retryAt)
        #expect(fixture.engine.networkHealth("good")?.state == .closed)

        let third = try await fixture.auction() // starts at 6000
        #expect(fixture.bad.requestCount == 2)
        #expect(third.trace.source("bad_1")?.outcome == .notAsked(.networkPaused))
        #expect(third.trace.source("bad_1")?.retryAtMilliseconds == retryAt.milliseconds)
        #expect(third.trace.source("bad_1")?.tier == 1)
        #expect(fixture.good.requestInstants.last == .origin + .seconds(6))
        #expect(third.trace.source("good_1")?.startOffsetMilliseconds == 0)
        #expect(third.winner?.lineItem.id == "good_1")
        #expect(third.trace.description.contains("not_asked (network_paused); retry at"))
        let json = String(decoding: try JSONEncoder().encode(third.trace), as: UTF8.self)
        #expect(json.contains("\"retry_at_ms\":\(Int(retryAt.milliseconds))"))
    }

    @Test("at the back-off instant one auction probes the network; an answer resumes it")
    func probesAtTheBackoffInstantAndResumes() async throws {
        let fixture = try HealthFixture(badAnswer: { $0 < 2 ? .after(.milliseconds(200), .error) : .after(.milliseconds(100), .fill) })
        _ = try await fixture.auction()
        _ = try await fixture.auction()
        let retryAt = MediationInstant.origin + .milliseconds(3300) + HealthFixture.firstBackoff
        await fixture.clock.advance(to: retryAt - .milliseconds(1))
        #expect(fixture.engine.networkHealth("bad")?.state == .open)
        #expect(fixture.bad.requestCount == 2)
        await fixture.clock.advance(to: retryAt)
        let probe = try await fixture.auction()
        #expect(fixture.bad.requestInstants.last == retryAt)
        #expect(probe.winner?.lineItem.id == "bad_1")
        #expect(fixture.resumes == ["bad"])
        #expect(fixture.engine.networkHealth("bad")?.state == .closed)
    }

    @Test("a failed probe pauses the network again for a back-off 1.25 times longer (its own seeded jitter)")
    func failedProbeDoublesTheBackoff() async throws {
        let fixture = try HealthFixture()
        _ = try await fixture.auction()
        _ = try await fixture.auction()
        let retryAt = MediationInstant.origin + .milliseconds(3300) + HealthFixture.firstBackoff
        await fixture.clock.advance(to: retryAt)
        let probe = try await fixture.auction() // bad fails at +200, good fills at +300
        #expect(fixture.bad.requestInstants.last == retryAt)
        #expect(probe.winner?.lineItem.id == "good_1")
        let second = NetworkHealth.backoff(failedProbes: 1, settings: HealthFixture.settings, jitter: HealthJitter.unit(seed: 1, networkID: "bad", opening: 1))
        let failedAt = retryAt + .milliseconds(300)
        #expect(fixture.pauses.last == MediationEvent.NetworkPause(networkID: "bad", cause: .probeFailed, failures: 1, outcomes: 1, failedProbes: 1, backoffMilliseconds: second.milliseconds, retryAt: failedAt + second, at: failedAt))
        #expect(second > .milliseconds(18_750) && second <= .milliseconds(37_500))
        #expect(fixture.engine.networkHealth("bad")?.failedProbes == 1)
    }

    @Test("one verdict per network per auction: two failing line items of one network count once")
    func oneVerdictPerNetworkPerAuction() async throws {
        let fixture = try HealthFixture(badLineItems: 2)
        _ = try await fixture.auction()
        #expect(fixture.bad.requestCount == 2)
        #expect(fixture.pauses.isEmpty)
        #expect(fixture.engine.networkHealth("bad")?.recentFailures == 1)
        #expect(fixture.engine.networkHealth("bad")?.recentOutcomes == 1)
        _ = try await fixture.auction()
        #expect(fixture.pauses.map(\.failures) == [2])
        let third = try await fixture.auction()
        #expect(third.trace.source("bad_1")?.outcome == .notAsked(.networkPaused))
        #expect(third.trace.source("bad_2")?.outcome == .notAsked(.networkPaused))
        #expect(third.trace.source("good_1")?.startOffsetMilliseconds == 0)
    }

    @Test("the events' records carry the network, the cause, the counts and the retry instant")
    func eventRecords() async throws {
        let fixture = try HealthFixture()
        _ = try await fixture.auction()
        _ = try await fixture.auction()
        let event = try #require(fixture.recorder.events.first { $0.name == "network_paused" })
        let record = EventRecord(event)
        #expect(record.network == "bad")
        #expect(record.reason == "failures")
        #expect(record.failures == 2 && record.outcomes == 2)
        #expect(record.retryAtMilliseconds == (MediationInstant.origin + .milliseconds(3300) + HealthFixture.firstBackoff).milliseconds)
        #expect(event.placementID.isEmpty)
        #expect(event.description.contains("network_paused bad (failures: 2 of 2 failed)"))
    }

    @Test("a network that always answers no-fill is never paused")
    func noFillNeverPauses() async throws {
        let fixture = try HealthFixture(badAnswer: { _ in .after(.milliseconds(200), .noFill) })
        for _ in 0..<6 { _ = try await fixture.auction() }
        #expect(fixture.bad.requestCount == 6)
        #expect(fixture.pauses.isEmpty)
        #expect(fixture.engine.networkHealth("bad")?.state == .closed)
    }

    @Test("the pause is kept across a relaunch on the same state store, and ends with its back-off")
    func pauseSurvivesARelaunch() async throws {
        let store = MemoryStateStore()
        let wall = Locked(Date(timeIntervalSince1970: 1_000_000))
        let before = try HealthFixture(store: store, wallClock: { wall.withLock { $0 } })
        _ = try await before.auction()
        _ = try await before.auction()
        #expect(try store.data(forKey: "health.bad") != nil)
        await before.engine.shutdown()

        wall.withLock { $0 += 10 } // relaunched 10 s later on the wall clock
        let after = try HealthFixture(store: store, wallClock: { wall.withLock { $0 } })
        let retryAt = MediationInstant.origin + HealthFixture.firstBackoff - .seconds(10)
        #expect(after.engine.networkHealth("bad")?.state == .open)
        #expect(after.engine.networkHealth("bad")?.retryAt == retryAt)
        #expect(after.pauses.map(\.cause) == [.restored])
        let paused = try await after.auction()
        #expect(paused.trace.source("bad_1")?.outcome == .notAsked(.networkPaused))
        #expect(after.bad.requestCount == 0)
        await after.clock.advance(to: retryAt)
        _ = try await after.auction()
        #expect(after.bad.requestInstants == [retryAt])
    }

    @Test("a tampered stored state is discarded with a warning; one far in the future is clamped to the longest back-off")
    func tamperedStateIsDiscarded() throws {
        let store = MemoryStateStore()
        try store.setData(Data(#"{"version":1,"retry_at_wall_ms":-5,"backoff_ms":30000,"failed_probes":0,"openings":1}"#.utf8), forKey: "health.bad")
        try store.setData(Data("not json".utf8), forKey: "health.good")
        let fixture = try HealthFixture(store: store)
        #expect(fixture.engine.networkHealth("bad")?.state == .closed)
        #expect(fixture.engine.networkHealth("good")?.state == .closed)
        #expect(try store.data(forKey: "health.bad") == nil)
        #expect(try store.data(forKey: "health.good") == nil)
        #expect(fixture.logger.warnings.filter { $0.contains("was discarded") }.count == 2)
        #expect(fixture.pauses.isEmpty)

        let future = MemoryStateStore()
        try future.setData(Data(#"{"version":1,"retry_at_wall_ms":1e15,"backoff_ms":30000,"failed_probes":0,"openings":1}"#.utf8), forKey: "health.bad")
        let clamped = try HealthFixture(store: future)
        #expect(clamped.engine.networkHealth("bad")?.retryAt == .origin + HealthFixture.settings.maxBackoff)
    }
}

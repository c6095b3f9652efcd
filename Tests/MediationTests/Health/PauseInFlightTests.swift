import Foundation
import MediationTestKit
import Testing
@testable import Mediation

/// Engine rule R24 at an outage's onset: when a network is paused, the auctions already
/// waiting for it stop waiting at the pause's instant (`timeout (network_paused)`), instead of
/// each waiting its full limit; an answer that still comes is a late answer, its ad released
/// once.
@Suite("Network health: auctions in flight when their network is paused (R24)")
struct PauseInFlightTests {
    /// Three auctions of `HealthFixture`'s waterfall (pause after 2 failures of 2) start at 0,
    /// 500 and 1000 ms while `bad` hangs for the first two; the third's request would answer a
    /// fill at 3200 ms after it was asked. The first times out at its 3000 ms deadline, the
    /// second at 3500 ms: its verdict pauses `bad` at 3500 ms, while the third still waits.
    @Test("an auction in flight when its network is paused stops waiting at the pause's instant, not at its limit; its late ad is released once")
    func inFlightAuctionEndsAtThePauseInstant() async throws {
        let fixture = try HealthFixture(badAnswer: { $0 < 2 ? .never : .after(.milliseconds(3200), .fill) })
        let engine = fixture.engine
        let clock = fixture.clock
        var tasks: [Task<MediationEngine.AuctionOutcome?, Never>] = []
        for start in [0, 500, 1000] {
            await clock.advance(to: .origin + .milliseconds(start))
            tasks.append(clock.startTask { await engine.runAuction(placementID: "level_end") })
            await clock.runUntilIdle()
        }
        await clock.advance(to: .origin + .milliseconds(3499))
        #expect(fixture.pauses.isEmpty)
        await clock.advance(to: .origin + .milliseconds(3500))
        let pausedAt = MediationInstant.origin + .milliseconds(3500)
        let retryAt = pausedAt + HealthFixture.firstBackoff
        #expect(fixture.pauses.map(\.at) == [pausedAt])

        // The third auction no longer waits for `bad` (its limit was 4000 ms): at the pause's
        // instant its tier is passed and `good` asked, which fills 100 ms later.
        #expect(fixture.good.requestInstants.last == pausedAt)
        await clock.advance(to: .origin + .milliseconds(3600))
        await clock.advance(to: .origin + .milliseconds(5000))
        let third = try #require(await tasks[2].value)
        let bad = try #require(third.trace.source("bad_1"))
        #expect(bad.outcome == .timeout(.networkPaused))
        #expect(bad.retryAtMilliseconds == retryAt.milliseconds)
        #expect(bad.errors.map(\.code) == ["timeout"])
        #expect(third.trace.source("good_1")?.startOffsetMilliseconds == 2500)
        #expect(third.trace.endedAtMilliseconds == 3600)
        #expect(third.winner?.lineItem.id == "good_1")
        #expect(third.trace.description.contains("timeout (network_paused)"))

        // The first two waited their full limit (the deadline), as before.
        let first = try #require(await tasks[0].value)
        let second = try #require(await tasks[1].value)
        #expect(first.trace.source("bad_1")?.outcome == .timeout(.deadline))
        #expect(second.trace.source("bad_1")?.outcome == .timeout(.deadline))

        // `bad`'s answer to the third auction came at 4200 ms: released once, on arrival.
        #expect(fixture.bad.requestCount == 3)
        let late = try #require(fixture.bad.ads.last)
        #expect(late.releaseCount == 1)
        #expect(fixture.bad.ads.count == 1)
        // One pause only: the third auction's verdict, admitted before the pause, is ignored.
        #expect(fixture.pauses.count == 1)
        #expect(fixture.engine.networkHealth("bad")?.retryAt == retryAt)
    }

    @Test("the state machine: an outstanding source paused at t ends at the end of t; an answer at t still counts; a tier not reached is not asked")
    func machineEndsOutstandingSourcesAtThePause() throws {
        let placement = MediationConfiguration.Placement(
            id: "p", format: .interstitial, mode: .waterfall,
            sources: [
                .fixedPrice("a", network: "n", eCPM: 3),
                .fixedPrice("b", network: "m", eCPM: 2),
                .fixedPrice("c", network: "n", eCPM: 1),
            ]
        )
        var machine = AuctionStateMachine(placement: placement, sources: placement.sources)
        let start = MediationInstant.origin
        _ = machine.start(at: start)
        let pausedAt = start + .milliseconds(700)
        let retryAt = pausedAt + .seconds(5)
        // `a` (tier 1) is outstanding, `c` (tier 3) not reached: both are network n's.
        let actions = machine.networkPaused(sourcesAt: [0, 2], until: retryAt, at: pausedAt)
        #expect(actions.count == 1) // decide at the end of the instant
        #expect(machine.nextWakeup == start + .seconds(3))
        _ = machine.endOfInstant(at: pausedAt)
        #expect(!machine.isFinished) // tier 2 (`b`) is asked now
        let outcome = machine.outcome(auctionID: "x")
        #expect(outcome.trace.source("a")?.outcome == .timeout(.networkPaused))
        #expect(outcome.trace.source("c")?.outcome == .notAsked(.networkPaused))
        #expect(outcome.trace.source("b")?.startOffsetMilliseconds == 700)

        // An answer at the pause's instant itself counts (R6a).
        var other = AuctionStateMachine(placement: placement, sources: placement.sources)
        _ = other.start(at: start)
        _ = other.networkPaused(sourcesAt: [0], until: retryAt, at: pausedAt)
        _ = other.answer(0, result: .noFill(.noInventory), at: pausedAt)
        _ = other.endOfInstant(at: pausedAt)
        #expect(other.outcome(auctionID: "y").trace.source("a")?.outcome == .noFill(.noInventory))
        #expect(other.outcome(auctionID: "y").trace.source("a")?.retryAtMilliseconds == nil)
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Mediation

/// Caps kept across a relaunch on time the device clock cannot reset (`docs/caps.md`): each
/// relaunch is a new engine on a new manual clock (its monotonic time starts again at the
/// origin) with the same state store and wall clock.
@Suite("Caps across a relaunch")
struct CapsRelaunchTests {
    /// 2 an hour on `level_end`; no gap.
    static let placements = [CapsHarness.interstitial("level_end", caps: .init(caps: [.init(impressions: 2, window: .seconds(3600))]))]
    static let app = MediationConfiguration.AppSettings(fullScreenGapSeconds: 0)

    /// Shows twice (at 0 and 10 min) in a first launch, then relaunches after the wall clock
    /// moved by `wallSeconds`; returns the second launch's next show instant.
    static func relaunch(afterWallMoves wallSeconds: Double, store: MemoryStateStore = MemoryStateStore()) async throws -> (CapsHarness, MediationInstant?) {
        let wall = TestWallClock()
        let first = try CapsHarness(placements: placements, app: app, store: store, wall: wall)
        #expect(try await first.showAndDismiss("level_end").isImpression)
        await first.advance(to: 600)
        wall.move(by: 600)
        #expect(try await first.showAndDismiss("level_end").isImpression)
        #expect(await (try first.placement("level_end")).nextShowInstant == at(3600))
        wall.move(by: wallSeconds)
        let second = try CapsHarness(placements: placements, app: app, store: store, wall: wall)
        return (second, await (try second.placement("level_end")).nextShowInstant)
    }

    @Test("a relaunch mid-window keeps the cap: 20 minutes later the first impression frees 30 minutes after the relaunch")
    func relaunchMidWindow() async throws {
        let (second, next) = try await Self.relaunch(afterWallMoves: 1200)
        #expect(next == at(1800))
        await second.advance(to: 1799.999)
        _ = try await second.load("level_end")
        #expect(try await second.showCurrent("level_end").capRefusal == CapRefusal(cap: "placement:level_end 2/3600s", retryAt: at(1800)))
        await second.advance(to: 1800)
        #expect(try await second.showCurrent("level_end").isImpression)
    }

    @Test("the wall clock set back a day frees nothing: the cap binds as if no time had passed")
    func clockSetBack() async throws {
        let (_, next) = try await Self.relaunch(afterWallMoves: -86_400)
        #expect(next == at(3000))
    }

    @Test("the wall clock set forward frees at most what it jumped: 15 minutes forward, 15 minutes freed")
    func clockSetForward() async throws {
        let (_, next) = try await Self.relaunch(afterWallMoves: 900)
        #expect(next == at(2100))
        let (_, later) = try await Self.relaunch(afterWallMoves: 86_400)
        #expect(later == .origin)
    }

    @Test("an app killed with a full-screen ad on screen: the next launch counts the 30 s gap from its own start (29.999 s refused, 30 s shown)")
    func killedWhilePresenting() async throws {
        let store = MemoryStateStore()
        let wall = TestWallClock()
        let gap = MediationConfiguration.AppSettings(fullScreenGapSeconds: 30)
        let placements = [CapsHarness.interstitial("level_end")]
        let first = try CapsHarness(placements: placements, app: gap, store: store, wall: wall)
        _ = try await first.load("level_end")
        #expect(try await first.showCurrent("level_end").isImpression)
        // The system kills the app 20 s later, the ad still on screen: no dismissal is reported.
        await first.advance(to: 20)
        wall.move(by: 25)
        let second = try CapsHarness(placements: placements, app: gap, store: store, wall: wall)
        #expect(await (try second.placement("level_end")).nextShowInstant == at(30))
        _ = try await second.load("level_end")
        await second.advance(to: 29.999)
        #expect(try await second.showCurrent("level_end").capRefusal != nil)
        await second.advance(to: 30)
        #expect(try await second.showCurrent("level_end").isImpression)
    }

    @Test("tampered cap state is discarded with a warning and the caps count from zero (fail open)")
    func tamperedState() async throws {
        let store = MemoryStateStore()
        let wall = TestWallClock()
        let first = try CapsHarness(placements: Self.placements, app: Self.app, store: store, wall: wall)
        #expect(try await first.showAndDismiss("level_end").isImpression)
        #expect(try await first.showAndDismiss("level_end").isImpression)
        let key = StoredCaps.key(of: .placement("level_end"), chunk: 0)
        var record = try #require(store.record(forKey: key))
        record[record.count - 40] ^= 0x01 // one bit of the value: the checksum no longer matches
        store.setRecord(record, forKey: key)
        let second = try CapsHarness(placements: Self.placements, app: Self.app, store: store, wall: wall)
        #expect(second.logger.warnings.contains { $0.contains("stored cap state of placement:level_end was discarded") })
        #expect(await (try second.placement("level_end")).nextShowInstant == .origin)
        #expect(store.record(forKey: key) == nil)
    }

    @Test("a well-formed stored clock near the end of Int64 is refused with a warning, and the timeline never overflows", arguments: [
        (time: Int64.max - 807, wall: Int64(1_796_000_000_000)),
        (time: StoredCaps.maximumTime, wall: Int64.min),
        (time: StoredCaps.maximumTime, wall: Int64(0)),
        (time: Int64(0), wall: Int64.min + 1),
    ])
    func storedClockAtTheEdge(time: Int64, wall: Int64) async throws {
        let store = MemoryStateStore()
        try store.setValue(StoredCaps.Clock(time: time, wall: wall, fullScreenEnd: nil), forKey: StoredCaps.clockKey)
        let launch = try CapsHarness(placements: Self.placements, app: Self.app, store: store, wall: TestWallClock())
        if time > StoredCaps.maximumTime {
            #expect(launch.logger.warnings.contains { $0.contains("the stored cap state was discarded") && $0.contains("cap_ms") })
        }
        // The launch runs auctions and shows as usual, and nothing traps: two impressions,
        // then the placement's cap of 2 an hour refuses the third.
        #expect(try await launch.showAndDismiss("level_end").isImpression)
        #expect(try await launch.showAndDismiss("level_end").isImpression)
        #expect(!(try await launch.showAndDismiss("level_end").isImpression))
    }

    @Test("a well-formed chunk with an instant after the stored clock is refused too")
    func instantAfterTheClock() async throws {
        let store = MemoryStateStore()
        let wall = TestWallClock()
        let first = try CapsHarness(placements: Self.placements, app: Self.app, store: store, wall: wall)
        #expect(try await first.showAndDismiss("level_end").isImpression)
        let key = StoredCaps.key(of: .placement("level_end"), chunk: 0)
        try store.setValue(StoredCaps.Chunk(scope: StoredCaps.identity(of: .placement("level_end")), instants: [0, 99_999_999]), forKey: key)
        let second = try CapsHarness(placements: Self.placements, app: Self.app, store: store, wall: wall)
        #expect(second.logger.warnings.contains { $0.contains("after the stored clock") })
        #expect(await (try second.placement("level_end")).nextShowInstant == .origin)
    }

    @Test("the stored state stays bounded: a cap of 2 keeps one chunk of at most 2 instants after a year of impressions")
    func boundedAfterAYear() async throws {
        let store = MemoryStateStore()
        let harness = try CapsHarness(placements: Self.placements, app: Self.app, store: store)
        for day in 0..<365 {
            await harness.advance(to: Double(day) * 86_400)
            #expect(try await harness.showAndDismiss("level_end").isImpression)
        }
        let keys = try store.keys().filter { $0.hasPrefix("caps.") }
        #expect(keys.count == 2) // the clock and one chunk
        let chunk = try #require(try store.value(StoredCaps.Chunk.self, forKey: StoredCaps.key(of: .placement("level_end"), chunk: 0)))
        #expect(chunk.instants.count == 2)
    }
}

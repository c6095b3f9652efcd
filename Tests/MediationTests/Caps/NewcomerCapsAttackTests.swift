import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Mediation

/// A newcomer's attacks on caps kept across relaunches (`docs/caps.md`, "Kept across a
/// relaunch, bounded"). Each relaunch is a new engine on a
/// new manual clock with the same state store and wall clock.
@Suite("newcomer attacks: caps across relaunches")
struct NewcomerCapsAttackTests {
    /// No full-screen gap.
    static let noGap = MediationConfiguration.AppSettings(fullScreenGapSeconds: 0)

    /// 33 shows 601 s apart under 40 per 30 s (never binding, but a ring 40 deep: the 33rd
    /// impression sits in slot 32, the second chunk) and pacing 600 s.
    static func thirtyThreeShowsUnderADeepCap() async throws -> (CapsHarness, MemoryStateStore, TestWallClock) {
        let store = MemoryStateStore()
        let wall = TestWallClock()
        let deep = [CapsHarness.interstitial("level_end", caps: .init(caps: [.init(impressions: 40, window: .seconds(30))], pacingSeconds: 600))]
        let first = try CapsHarness(placements: deep, app: noGap, store: store, wall: wall)
        for index in 0..<33 {
            await first.advance(to: Double(index) * 601)
            if index > 0 { wall.move(by: 601) }
            #expect(try await first.showAndDismiss("level_end").isImpression)
        }
        return (first, store, wall)
    }

    @Test("a configuration whose largest cap shrinks below 33 keeps the newest impressions across a relaunch (pacing still binds)")
    func shrunkDepthKeepsTheNewest() async throws {
        let (first, store, wall) = try await Self.thirtyThreeShowsUnderADeepCap()
        // The 33rd impression sits in slot 32, the second chunk. A fetched configuration keeps
        // the pacing but drops the deep cap; the app relaunches at once.
        let shallow = [CapsHarness.interstitial("level_end", caps: .init(pacingSeconds: 600))]
        let second = try CapsHarness(placements: shallow, app: Self.noGap, store: store, wall: wall)
        #expect(await (try second.placement("level_end")).nextShowInstant == at(600))
        _ = try await second.load("level_end")
        #expect(try await second.showCurrent("level_end").capRefusal != nil)
        withExtendedLifetime(first) {}
    }
    @Test("a fetched configuration that shrinks the largest cap below 33 while the app runs keeps the newest impression for the next launch")
    func shrunkDepthAtRuntime() async throws {
        let (first, store, wall) = try await Self.thirtyThreeShowsUnderADeepCap()
        // Version 2 keeps the pacing, drops the deep cap; no impression follows before the app ends.
        var shrunk = first.engine.configuration
        shrunk.placements[0].caps = .init(pacingSeconds: 600)
        try await SwapHarness.apply(shrunk, version: 2, to: first.engine, clock: first.clock)
        let shallow = [CapsHarness.interstitial("level_end", caps: .init(pacingSeconds: 600))]
        let second = try CapsHarness(placements: shallow, app: Self.noGap, store: store, wall: wall)
        #expect(await (try second.placement("level_end")).nextShowInstant == at(600))
    }

    @Test("plain relaunches keep a ring of more than 32 that wrapped: after 50 shows (cap 40 a day) and one more in a second launch, a third launch still sees the 2 per 4000 s cap")
    func wrappedDeepRingAcrossTwoRelaunches() async throws {
        let store = MemoryStateStore()
        let wall = TestWallClock()
        // 40 a day and 2 per 4000 s on one placement, one show every 2200 s: neither binds a show.
        let placements = [CapsHarness.interstitial("level_end", caps: .init(caps: [.init(impressions: 40, window: .seconds(86_400)), .init(impressions: 2, window: .seconds(4000))]))]
        let first = try CapsHarness(placements: placements, app: Self.noGap, store: store, wall: wall)
        for index in 0..<50 {
            await first.advance(to: Double(index) * 2200)
            if index > 0 { wall.move(by: 2200) }
            #expect(try await first.showAndDismiss("level_end").isImpression)
        }
        // The 40-deep ring wrapped (slots 0-9 hold shows 41-50). Relaunch 2200 s later, show once.
        wall.move(by: 2200)
        let second = try CapsHarness(placements: placements, app: Self.noGap, store: store, wall: wall)
        #expect(try await second.showAndDismiss("level_end").isImpression)
        // Relaunch at once: the last two shows were 2200 s apart, so 2 per 4000 s frees 1800 s on.
        let third = try CapsHarness(placements: placements, app: Self.noGap, store: store, wall: wall)
        #expect(await (try third.placement("level_end")).nextShowInstant == at(1800))
        _ = try await third.load("level_end")
        #expect(try await third.showCurrent("level_end").capRefusal?.cap == "placement:level_end 2/4000s")
    }
}

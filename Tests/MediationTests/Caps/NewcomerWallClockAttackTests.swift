import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Mediation

/// A newcomer's attack on "On time the device clock cannot reset" (`docs/caps.md`): the wall
/// clock set back, one impression stored with the set-back wall time, then the clock set right.
/// The relaunch after it counts the whole set-back as time passed (the stored wall is the
/// set-back one), so a cap frees at once. By the documented model this is a forward jump while
/// the app was not running ("frees at most what it jumped"), but the user never moved the clock
/// past the real time: a set-back and its correction free a window each cycle. A fix needs a
/// decision (remembering the wall time the timeline believes in penalises a device whose clock
/// was set forward by mistake and then corrected), so these stay failing for the lead.
@Suite("newcomer attacks: wall clock set back, then set right")
struct NewcomerWallClockAttackTests {
    /// 2 an hour on `level_end`; no full-screen gap.
    static let twoAnHour = [CapsHarness.interstitial("level_end", caps: .init(caps: [.init(impressions: 2, window: .seconds(3600))]))]
    /// 3 an hour on `level_end`.
    static let threeAnHour = [CapsHarness.interstitial("level_end", caps: .init(caps: [.init(impressions: 3, window: .seconds(3600))]))]
    static let noGap = MediationConfiguration.AppSettings(fullScreenGapSeconds: 0)

    @Test("the wall clock set back a day while the app runs, one ad shown, then set right: a relaunch frees nothing (docs: a change while the app runs changes nothing)")
    func setBackWhileRunningThenRestored() async throws {
        let store = MemoryStateStore()
        let wall = TestWallClock()
        let first = try CapsHarness(placements: Self.twoAnHour, app: Self.noGap, store: store, wall: wall)
        #expect(try await first.showAndDismiss("level_end").isImpression)
        await first.advance(to: 600)
        wall.move(by: 600)
        wall.move(by: -86_400) // the user sets the device clock back a day; the app keeps running
        #expect(try await first.showAndDismiss("level_end").isImpression)
        wall.move(by: 86_400) // and sets it right again, then relaunches at once
        let second = try CapsHarness(placements: Self.twoAnHour, app: Self.noGap, store: store, wall: wall)
        // Real time since the first impression: 600 s; the cap of 2 an hour frees at 3600 s of
        // it, 3000 s after the relaunch. With the set-back wall stored, the relaunch counts the
        // day the clock was set right by as time passed and frees the cap at once.
        #expect(await (try second.placement("level_end")).nextShowInstant == at(3000))
        _ = try await second.load("level_end")
        #expect(try await second.showCurrent("level_end").capRefusal != nil)
    }

    @Test("the wall clock set back a day across a relaunch, one ad shown, then set right: the next relaunch frees nothing")
    func setBackAcrossRelaunchThenRestored() async throws {
        let store = MemoryStateStore()
        let wall = TestWallClock()
        let first = try CapsHarness(placements: Self.threeAnHour, app: Self.noGap, store: store, wall: wall)
        #expect(try await first.showAndDismiss("level_end").isImpression)
        await first.advance(to: 600)
        wall.move(by: 600)
        #expect(try await first.showAndDismiss("level_end").isImpression)
        wall.move(by: -86_400) // set back a day, then relaunch: the caps bind as if no time passed
        let second = try CapsHarness(placements: Self.threeAnHour, app: Self.noGap, store: store, wall: wall)
        #expect(try await second.showAndDismiss("level_end").isImpression) // the third of the hour
        wall.move(by: 86_400) // set right, relaunch at once: 600 s of real time since the first
        let third = try CapsHarness(placements: Self.threeAnHour, app: Self.noGap, store: store, wall: wall)
        #expect(await (try third.placement("level_end")).nextShowInstant == at(3000))
        _ = try await third.load("level_end")
        #expect(try await third.showCurrent("level_end").capRefusal != nil)
    }
}

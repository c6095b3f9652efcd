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
/// past the real time: a set-back and its correction free a window each cycle. The fix: the wall time
/// stored with the cap time is never one the clock reached by going back
/// (``CapTimeline/storedWall(at:reading:)``).
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

/// The rule that answers it, on the pure timeline: the wall time stored is never one the clock
/// reached by going back (within the longest window), so a set-back and its correction credit
/// nothing at the next launch.
@Suite("cap timeline: the stored wall time never goes back")
struct CapTimelineStoredWallTests {
    static let wall: Int64 = 1_796_000_000_000
    static let day: Int64 = 86_400_000

    @Test("a reading behind the reckoned wall time stores the reckoned one; a reading not behind becomes the reference")
    func reckonedWhenBehind() {
        var timeline = CapTimeline(time: 0, at: .origin, wall: Self.wall)
        #expect(timeline.storedWall(at: 600_000, reading: Self.wall + 600_000) == Self.wall + 600_000)
        // Set back a day, 100 s later: the reckoned wall time is stored.
        #expect(timeline.storedWall(at: 700_000, reading: Self.wall + 700_000 - Self.day) == Self.wall + 700_000)
        // Set right again (and a little fast): the reading is the reference again.
        #expect(timeline.storedWall(at: 800_000, reading: Self.wall + 805_000) == Self.wall + 805_000)
        #expect(timeline.storedWall(at: 900_000, reading: Self.wall + 905_000 - Self.day) == Self.wall + 905_000)
    }

    @Test("a reading behind by more than 30 days is a corrected clock: it becomes the reference")
    func longSetBackIsACorrection() {
        var timeline = CapTimeline(time: 0, at: .origin, wall: Self.wall)
        let behind = Self.wall - 31 * Self.day
        #expect(timeline.storedWall(at: 1000, reading: behind) == behind)
        #expect(timeline.storedWall(at: 2000, reading: behind + 1000) == behind + 1000)
        var edge = CapTimeline(time: 0, at: .origin, wall: Self.wall)
        #expect(edge.storedWall(at: 0, reading: Self.wall - 30 * Self.day) == Self.wall)
    }

    @Test("a launch with the wall clock behind the stored one keeps the stored wall time as the reference")
    func resumedBehind() {
        var timeline = CapTimeline.resumed(from: (time: 600_000, wall: Self.wall), wallNow: Self.wall - Self.day, at: .origin)
        #expect(timeline.time(at: .origin) == 600_000)
        #expect(timeline.storedWall(at: 600_000, reading: Self.wall - Self.day) == Self.wall)
        var ahead = CapTimeline.resumed(from: (time: 600_000, wall: Self.wall), wallNow: Self.wall + 5000, at: .origin)
        #expect(ahead.time(at: .origin) == 605_000)
        #expect(ahead.storedWall(at: 605_000, reading: Self.wall + 5000) == Self.wall + 5000)
    }
}

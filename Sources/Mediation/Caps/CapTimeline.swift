/// The time caps count on (`docs/caps.md`): milliseconds that never go back, whatever the
/// device clock does. Within a process it is the engine's injected monotonic clock; across a
/// relaunch it goes on from the last stored instant by the wall-clock time since it was stored,
/// counted as zero when the wall clock went back. So a wall clock set back frees nothing, and
/// one set forward while the app was not running frees at most what it jumped.
///
/// The wall time stored beside a cap time is never one the clock reached by going back: it is
/// the wall clock's reading or, when that is behind, the last reading not behind plus the cap
/// time since (``storedWall(at:reading:)``). So a clock set back and then set right again
/// credits nothing at the next launch: only a jump past every wall time seen counts. A reading
/// behind by more than the longest cap window (30 days) is taken as a correction of a clock that
/// was ahead, and becomes the reference: a device whose clock was once set forward by mistake
/// loses the credit of time between launches for at most 30 days, and a set-back of more than
/// 30 days followed by its correction frees what a forward jump of 30 days would (every window).
package struct CapTimeline: Hashable, Sendable {
    /// The longest a wall clock may be behind the reckoned wall time and still be taken as set
    /// back (the reckoned time stays the reference): the longest cap window, 30 days, in ms.
    package static let longestSetBack = Int64(MediationConfiguration.Cap.maximumWindowSeconds) * 1000

    /// The engine instant the timeline was anchored at (the launch).
    package var anchorInstant: MediationInstant
    /// The cap time at ``anchorInstant``, in ms.
    package var anchorTime: Int64
    /// The cap time of the last wall-clock reading that was not behind (ms).
    private var trustedTime: Int64
    /// That reading, ms since 1970.
    private var trustedWall: Int64

    /// A timeline reading `time` at `instant`, whose wall clock read `wall` (ms since 1970)
    /// at that time.
    package init(time: Int64, at instant: MediationInstant, wall: Int64 = 0) {
        anchorInstant = instant
        anchorTime = time
        trustedTime = time
        trustedWall = wall
    }

    /// The wall time to store with cap time `time` when the wall clock reads `wallNow` (ms
    /// since 1970): `wallNow` unless it is behind the last reading not behind it plus the cap
    /// time since, which is then stored instead (the clock was set back). A reading not behind
    /// becomes the new reference.
    package mutating func storedWall(at time: Int64, reading wallNow: Int64) -> Int64 {
        let (reckoned, overflow) = trustedWall.addingReportingOverflow(max(0, time - trustedTime))
        if !overflow, wallNow < reckoned, reckoned - wallNow <= Self.longestSetBack { return reckoned }
        trustedTime = time
        trustedWall = wallNow
        return wallNow
    }

    /// The timeline of a launch at `instant`: it goes on from a stored pair (cap time, wall
    /// time in ms since 1970), adding the wall-clock time since, never less than zero.
    /// - Parameters:
    ///   - stored: the last stored cap time and the wall time it was stored at, if any.
    ///   - wallNow: the wall clock now, ms since 1970.
    ///   - instant: the engine's instant now.
    package static func resumed(from stored: (time: Int64, wall: Int64)?, wallNow: Int64, at instant: MediationInstant) -> CapTimeline {
        guard let stored else { return CapTimeline(time: 0, at: instant, wall: wallNow) }
        let (elapsed, overflow) = wallNow.subtractingReportingOverflow(stored.wall)
        let gained = overflow ? 0 : max(0, elapsed)
        // A stored time is at most ``StoredCaps/maximumTime``; the gain is capped there too,
        // so no later arithmetic on the timeline can overflow.
        let start = min(max(0, stored.time), StoredCaps.maximumTime)
        // A wall clock behind the stored one (set back) is not a reference: the stored wall
        // time stays the reference, at the stored cap time (no time passed since).
        let behind = stored.wall > wallNow && stored.wall - wallNow <= longestSetBack
        return CapTimeline(time: start + min(gained, StoredCaps.maximumTime - start), at: instant, wall: behind ? stored.wall : wallNow)
    }

    /// The cap time of engine instant `instant` (never before the anchor).
    package func time(at instant: MediationInstant) -> Int64 {
        let elapsed = (instant - anchorInstant).milliseconds
        guard elapsed.isFinite, elapsed > 0 else { return anchorTime }
        return anchorTime + Int64(min(elapsed, 1e15))
    }

    /// The engine instant of cap time `time`.
    package func instant(at time: Int64) -> MediationInstant {
        anchorInstant + .milliseconds(time - anchorTime)
    }
}

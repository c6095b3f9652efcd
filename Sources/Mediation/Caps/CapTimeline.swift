/// The time caps count on (`docs/caps.md`): milliseconds that never go back, whatever the
/// device clock does. Within a process it is the engine's injected monotonic clock; across a
/// relaunch it goes on from the last stored instant by the wall-clock time since it was stored,
/// counted as zero when the wall clock went back. So a wall clock set back frees nothing, and
/// one set forward while the app was not running frees at most what it jumped.
package struct CapTimeline: Hashable, Sendable {
    /// The engine instant the timeline was anchored at (the launch).
    package var anchorInstant: MediationInstant
    /// The cap time at ``anchorInstant``, in ms.
    package var anchorTime: Int64

    /// A timeline reading `time` at `instant`.
    package init(time: Int64, at instant: MediationInstant) {
        anchorInstant = instant
        anchorTime = time
    }

    /// The timeline of a launch at `instant`: it goes on from a stored pair (cap time, wall
    /// time in ms since 1970), adding the wall-clock time since, never less than zero.
    /// - Parameters:
    ///   - stored: the last stored cap time and the wall time it was stored at, if any.
    ///   - wallNow: the wall clock now, ms since 1970.
    ///   - instant: the engine's instant now.
    package static func resumed(from stored: (time: Int64, wall: Int64)?, wallNow: Int64, at instant: MediationInstant) -> CapTimeline {
        guard let stored else { return CapTimeline(time: 0, at: instant) }
        let (elapsed, overflow) = wallNow.subtractingReportingOverflow(stored.wall)
        let gained = overflow ? 0 : max(0, elapsed)
        // A stored time is at most ``StoredCaps/maximumTime``; the gain is capped there too,
        // so no later arithmetic on the timeline can overflow.
        let start = min(max(0, stored.time), StoredCaps.maximumTime)
        return CapTimeline(time: start + min(gained, StoredCaps.maximumTime - start), at: instant)
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

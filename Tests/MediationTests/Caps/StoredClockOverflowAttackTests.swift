import Foundation
@testable import Mediation
import Testing

/// A newcomer's attack on the stored cap clock (docs/caps.md: "Stored cap state is untrusted
/// input"). `Tests/attacks/stored-cap-clock-overflow-crash.sh` is the end-to-end reproduction:
/// a `caps.clock` file with a valid checksum and `cap_ms` 9223372036854775000 crashes every
/// launch with "arithmetic overflow" at `CapKeeper.cappedSources` (`now + horizon`).
/// This test shows the cause without crashing the runner: `StoredCaps.Clock.problem` only refuses
/// a negative `cap_ms`, and `CapTimeline.resumed` keeps a stored time that leaves no room for
/// the engine's own arithmetic (it clamps to `Int64.max / 2` only when adding the wall-clock
/// gain overflows).
@Suite("attack: a stored cap clock near Int64.max")
struct StoredClockOverflowAttackTests {
    @Test("a stored cap_ms near Int64.max is refused or clamped to leave headroom")
    func hugeStoredClockIsRefusedOrClamped() throws {
        let stored = Int64.max - 1_000
        let json = #"{"cap_ms":\#(stored),"version":1,"wall_ms":1796000000000}"#
        let clock = try JSONDecoder().decode(StoredCaps.Clock.self, from: Data(json.utf8))
        let refused = clock.problem != nil
        let timeline = CapTimeline.resumed(from: (clock.timeMilliseconds, clock.wallMilliseconds), wallNow: 1_796_000_000_000, at: .origin)
        // Expected: refused, or a timeline with room for an hour's horizon and 30 days of window.
        // Happens: accepted, and the timeline starts 1,000 ms below Int64.max.
        #expect(refused || timeline.anchorTime <= Int64.max / 2, "cap_ms \(stored) accepted; timeline anchored at \(timeline.anchorTime)")
    }
}

import Mediation

/// How far a running simulation is: auctions done out of auctions to run (a comparison or a
/// sweep counts each configuration's auctions). Give one in ``SimulationOptions/progress`` and
/// read it from another task (a progress bar polls ``fractionDone``); it never changes a report.
///
/// Equal only to itself (identity), so options carrying different progress objects differ.
public final class SimulationProgress: Hashable, Sendable {
    private struct State {
        var done = 0
        var total = 0
    }

    private let state = Locked(State())

    /// Creates a progress at 0 of 0.
    public init() {}

    /// Auctions finished so far (every configuration's).
    public var auctionsDone: Int { state.withLock { $0.done } }
    /// Auctions the run has to do, once it started (0 before).
    public var auctionsTotal: Int { state.withLock { $0.total } }
    /// done ÷ total, from 0 to 1 (0 before the run starts).
    public var fractionDone: Double {
        state.withLock { $0.total > 0 ? min(1, Double($0.done) / Double($0.total)) : 0 }
    }

    /// Adds `total` auctions to run (a run calls it once it knows how many).
    func begin(total: Int) {
        state.withLock { $0.total += total }
    }

    /// Counts `count` more auctions done.
    func advance(by count: Int) {
        state.withLock { $0.done += count }
    }

    /// Identity.
    public static func == (lhs: SimulationProgress, rhs: SimulationProgress) -> Bool { lhs === rhs }
    /// Identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

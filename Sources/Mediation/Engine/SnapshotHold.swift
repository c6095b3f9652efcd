/// A one-shot winner's use of the configuration snapshot its auction ran under (engine rule R22,
/// "nothing lost"): ``MediationEngine/runAuction(placementID:context:)`` hands its auction's use
/// to the ``MediationEngine/AuctionOutcome/Winner`` it returns, so a configuration change that
/// removes or changes the winner's network does not shut that network's adapter down while the
/// caller still holds the ad. Every copy of the winner shares the one hold; the use ends once, when
/// the last copy is gone (`deinit`).
///
/// The engine is held weakly: a hold that outlives the engine ends as a no-op, and one that
/// outlives its ``MediationEngine/shutdown()`` releases a use of adapters already shut down
/// (nothing more is shut down). One allocation per filled one-shot auction.
///
/// `@unchecked Sendable`: `engine` is written only by `init` (a `weak var` because a `weak let`
/// needs a newer compiler than the package's tools version), and loading a weak reference is
/// thread-safe.
final class SnapshotHold: @unchecked Sendable {
    private weak var engine: MediationEngine?
    private let generation: UInt64

    /// A hold of one use of `engine`'s snapshot `generation`, which it ends.
    init(of generation: UInt64, on engine: MediationEngine) {
        self.engine = engine
        self.generation = generation
    }

    deinit {
        engine?.release(generation)
    }
}

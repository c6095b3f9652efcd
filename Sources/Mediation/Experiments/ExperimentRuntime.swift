import Foundation

/// The engine's side of experiments: which experiment and variant a placement's next auction
/// runs under for this install, and whether that auction is the install's first of the
/// placement under the experiment (its exposure).
///
/// An experiment applies to a placement it names from its `start` (inclusive) to its `end`
/// (exclusive) on the engine's wall clock (``MediationEnvironment/wallClock``). The install id
/// is read from the state store on first use (``InstallID``) and replaced by
/// ``installIDChanged(to:)`` when the host forgets the user: the assignment is a pure function
/// of the salt and the install id (``ExperimentAssignment``). Exposures are remembered for the
/// engine's life, per experiment, placement and unit: a relaunch exposes again at its first
/// auction (reports count distinct units).
final class ExperimentRuntime: Sendable {
    private struct State {
        var installID: String?
        var exposed = Set<String>()
    }

    private let store: any StateStore
    private let wallClock: @Sendable () -> Date
    private let state = Locked(State())

    /// What a placement's auction runs under.
    struct Resolution {
        /// The experiment, variant and unit, or `nil` outside every experiment.
        var arm: MediationEvent.ExperimentArm?
        /// The runner of the variant's overridden placement, or `nil` for the configured one.
        var entry: PlacementEntry?
        /// The exposure to publish before the auction's start, on the install's first auction
        /// of the placement under the experiment.
        var exposure: MediationEvent.Exposure?
    }

    /// Creates the runtime.
    /// - Parameters:
    ///   - store: the host's state store, which keeps the install id.
    ///   - wallClock: the engine's wall clock.
    init(store: any StateStore, wallClock: @escaping @Sendable () -> Date) {
        self.store = store
        self.wallClock = wallClock
    }

    /// The key of a variant's runner in ``PlacementEntry/variants``.
    /// - Parameters:
    ///   - experimentID: the experiment's id.
    ///   - variantID: the variant's id.
    static func variantKey(experimentID: String, variantID: String) -> String {
        experimentID + "\u{0}" + variantID
    }

    /// The install id (read from the store on first use).
    var installID: String {
        state.withLock { state in
            if let id = state.installID { return id }
            let id = InstallID.current(in: store).id
            state.installID = id
            return id
        }
    }

    /// The host forgot the user: later assignments use `id`.
    /// - Parameter id: the new install id.
    func installIDChanged(to id: String) {
        state.withLock { $0.installID = id }
    }

    /// What the auction of `entry`'s placement starting now runs under: the first experiment
    /// naming it that is active on the wall clock and in whose allocation the install is; an
    /// install outside the allocation runs the configured placement and carries nothing.
    /// - Parameters:
    ///   - entry: the placement's runner under the configuration in force.
    ///   - at: the auction's start on the engine's clock.
    func resolve(_ entry: PlacementEntry, at instant: MediationInstant) -> Resolution {
        guard !entry.experiments.isEmpty else { return Resolution() }
        let now = WallClockTime(wallClock())
        guard let experiment = entry.experiments.first(where: { $0.isActive(at: now) }) else { return Resolution() }
        let installID = self.installID
        guard let variant = experiment.variant(of: installID) else { return Resolution() }
        let arm = MediationEvent.ExperimentArm(experimentID: experiment.id, variantID: variant.id, unit: ExperimentAssignment.unit(salt: experiment.salt, installID: installID))
        let placementID = entry.configuration.id
        let first = state.withLock { $0.exposed.insert(experiment.id + "\u{0}" + placementID + "\u{0}" + arm.unit).inserted }
        let exposure = first ? MediationEvent.Exposure(placementID: placementID, arm: arm, day: now.utcDay, configVersion: entry.auction.configVersion, at: instant) : nil
        return Resolution(arm: arm, entry: entry.variants[Self.variantKey(experimentID: experiment.id, variantID: variant.id)], exposure: exposure)
    }

    /// The wall-clock day (UTC) now, `YYYY-MM-DD`.
    var today: String { WallClockTime(wallClock()).utcDay }
}

import Foundation

/// The engine's side of experiments: which experiment and variant a placement's next auction
/// runs under for this install, and whether that auction is the install's first of the
/// placement under the experiment (its exposure).
///
/// An experiment applies to a placement it names from its `start` (inclusive) to its `end`
/// (exclusive) on the engine's wall clock (``MediationEnvironment/wallClock``). The install id
/// is read from the state store on first use (``InstallID``) and replaced by
/// ``installIDChanged(to:)`` when the host forgets the user: the assignment is a pure function
/// of the salt and the install id (``ExperimentAssignment``). Exposures are kept in the state
/// store (``StoredExposures``), one per experiment × placement with its variant and unit, read
/// on first use: a relaunch does not expose again; a new variant or unit (a new install id after
/// ``MediationEngine/forgetUser()``, which also removes them, or a new salt) does.
final class ExperimentRuntime: Sendable {
    private struct State {
        var installID: String?
        /// The install's exposures by ``StoredExposures/slot(experiment:placement:)``, once read.
        var exposed: [String: StoredExposures.Record]?
        /// The configuration's experiments, which bound the stored exposures.
        var experiments: [MediationConfiguration.Experiment] = []
    }

    private let store: any StateStore
    private let wallClock: @Sendable () -> Date
    private let logger: any MediationLogger
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
    ///   - store: the host's state store, which keeps the install id and the exposures.
    ///   - wallClock: the engine's wall clock.
    ///   - experiments: the experiments of the configuration in force.
    ///   - logger: where a discarded or unwritable exposure record is reported.
    init(store: any StateStore, wallClock: @escaping @Sendable () -> Date, experiments: [MediationConfiguration.Experiment] = [], logger: any MediationLogger = SilentLogger()) {
        self.store = store
        self.wallClock = wallClock
        self.logger = logger
        state.withLock { $0.experiments = experiments }
    }

    /// A configuration came into force: its experiments bound the exposures written from now on.
    /// - Parameter experiments: its experiments.
    func configurationChanged(_ experiments: [MediationConfiguration.Experiment]) {
        state.withLock { $0.experiments = experiments }
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

    /// The host forgot the user: later assignments use `id`, and the exposures of the old id
    /// are forgotten (in memory and in the store).
    /// - Parameter id: the new install id.
    func installIDChanged(to id: String) {
        state.withLock { state in
            state.installID = id
            state.exposed = [:]
            do {
                try store.setData(nil, forKey: StoredExposures.key)
            } catch {
                logger.warning("the stored experiment exposures could not be removed: \(error)", source: "experiments")
            }
        }
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
        let first = state.withLock { state in exposeIfNew(&state, arm: arm, placementID: placementID, at: now) }
        let exposure = first ? MediationEvent.Exposure(placementID: placementID, arm: arm, day: now.utcDay, configVersion: entry.auction.configVersion, at: instant) : nil
        return Resolution(arm: arm, entry: entry.variants[Self.variantKey(experimentID: experiment.id, variantID: variant.id)], exposure: exposure)
    }

    /// The wall-clock day (UTC) now, `YYYY-MM-DD`.
    var today: String { WallClockTime(wallClock()).utcDay }

    // MARK: - Stored exposures

    /// Whether the install is exposed to `arm` in `placementID` for the first time (no record
    /// of this experiment and placement with this variant and unit): then it is recorded and
    /// the records are written (bounded, ``StoredExposures``). A store that cannot be written
    /// costs a warning; the exposure is remembered for the process all the same.
    private func exposeIfNew(_ state: inout State, arm: MediationEvent.ExperimentArm, placementID: String, at now: WallClockTime) -> Bool {
        var exposed = state.exposed ?? readExposures()
        let slot = StoredExposures.slot(experiment: arm.experimentID, placement: placementID)
        if let record = exposed[slot], record.variant == arm.variantID, record.unit == arm.unit {
            state.exposed = exposed
            return false
        }
        exposed[slot] = StoredExposures.Record(experiment: arm.experimentID, placement: placementID, variant: arm.variantID, unit: arm.unit, wallMilliseconds: now.millisecondsSince1970)
        let kept = StoredExposures.kept(exposed, under: state.experiments, at: now)
        var bounded = Dictionary(kept.map { ($0.slot, $0) }, uniquingKeysWith: { first, _ in first })
        bounded[slot] = exposed[slot] // this one stays for the process, even if it was not kept
        state.exposed = bounded
        do {
            try store.setValue(StoredExposures.Value(records: kept), forKey: StoredExposures.key)
        } catch {
            logger.warning("the experiment exposures could not be stored (a relaunch exposes again): \(error)", source: "experiments")
        }
        return true
    }

    /// The exposures in the store, by slot; none (with a warning, the value removed) when the
    /// stored value is refused: the install is then exposed again.
    private func readExposures() -> [String: StoredExposures.Record] {
        var value: StoredExposures.Value?
        do {
            value = try store.value(StoredExposures.Value.self, forKey: StoredExposures.key)
        } catch {
            logger.warning("the stored experiment exposures were discarded (the next auction of each placement under an experiment exposes again): \(error)", source: "experiments")
            return [:]
        }
        if let problem = value?.problem {
            logger.warning("the stored experiment exposures were discarded (the next auction of each placement under an experiment exposes again): \(StoredExposures.key): \(problem)", source: "experiments")
            try? store.setData(nil, forKey: StoredExposures.key)
            return [:]
        }
        return Dictionary((value?.records ?? []).map { ($0.slot, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

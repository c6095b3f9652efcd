import Foundation

/// The engine a host app embeds, and the only way to get auctions and placements: built from a
/// configuration, a registry of network kinds and an environment, it builds one adapter per
/// configured network, owns one ``Placement`` controller per placement id, runs one-shot
/// auctions, forwards the app's life cycle to every adapter, and publishes the event stream.
///
/// ```swift
/// import Adapters
/// import Mediation
///
/// let engine = try MediationEngine(contentsOf: URL(fileURLWithPath: "Config/mediation.json"),
///                                  registry: .standard,
///                                  environment: MediationEnvironment(clock: SystemClock()))
/// let banner = engine.placement("home_banner")
/// let view = await banner?.attachView(visible: true)   // loads, then refreshes while seen
/// for await event in engine.events() { print(event) }
/// await engine.willResignActive()                      // a call, the app switcher, termination
/// await engine.setForeground(false)                    // the app went to the background
/// await engine.shutdown()                              // nothing is sent afterwards
/// ```
public final class MediationEngine: Sendable {
    private struct State {
        var placements: [String: Placement] = [:]
        var foreground = true
        var foregroundSequence: UInt64 = 0
        var template: RequestTemplate
        var isShutDown = false
        /// The configuration in force (R22): each placement's next auction runs under it.
        var current: EngineSnapshot
        /// When the adapters of removed or changed networks may be shut down.
        var retirement = AdapterRetirement()
        /// The remote configuration's updater, when the engine has one.
        var remote: RemoteConfigurationUpdater?
        /// What the launch should tell the host (a damaged cache, the device clock behind).
        var launchWarnings: [MediationEngine.RemoteConfiguration.Update] = []
    }

    /// The configuration in force: each placement's next auction runs under it (a newer verified
    /// remote configuration replaces it between auctions, engine rule R22).
    public var configuration: MediationConfiguration { snapshot.configuration }
    /// The `config_version` of the configuration in force (0 for an unsigned bundled one).
    public var configurationVersion: Int { snapshot.version }
    /// Where the configuration in force came from: bundled, the cache, or the server.
    package var configurationSource: MediationEngine.RemoteConfiguration.Update.Source { snapshot.source }
    /// The environment the engine and its adapters run in (clock, logger, seed, transport).
    public let environment: MediationEnvironment
    /// The clock every auction, refresh and expiry runs on (the environment's).
    public var clock: any MediationClock { environment.clock }
    /// Where log lines go (the environment's).
    public var logger: any MediationLogger { environment.logger }

    /// What the configuration in force does that its author should know (engine rule R19), in
    /// order: per network, what its factory clamps or ignores and whether it answers from its
    /// sandbox (`sandbox_endpoint`); then per line item, what its network's factory warns
    /// about. Each names its JSON path.
    public var configurationWarnings: [MediationConfiguration.Warning] { snapshot.warnings }
    /// The ids of the networks whose endpoint is `"sandbox"` (their in-process simulated
    /// servers answer, not real ad servers), in configuration order.
    public var sandboxNetworks: [String] { snapshot.sandboxNetworks }

    /// The network kinds the engine builds adapters with.
    private let registry: NetworkRegistry
    private let hostContext: @Sendable (String) -> AdRequest.Context
    private let eventHub: EventHub
    /// Every network's health, shared by every auction and configuration (R24).
    private let health: NetworkHealthMonitor
    /// The experiments' assignments and exposures.
    let experiments: ExperimentRuntime
    /// Caps, pacing and the one-full-screen-ad rule of every placement (`docs/caps.md`).
    let caps: CapKeeper
    private let state: Locked<State>
    /// Configuration changes, one at a time.
    private let applying = AsyncGate()

    /// Builds the engine: one adapter per configured network, by the factory its `adapter`
    /// kind names in `registry`. The configuration runs as its `config_version` (0 when it has
    /// none: an unsigned bundled configuration).
    /// - Parameters:
    ///   - configuration: the loaded configuration
    ///     (``MediationConfiguration/init(contentsOf:registry:)``).
    ///   - registry: the network kinds this engine can build (`NetworkRegistry.standard` from
    ///     the `Adapters` library, plus the host's own).
    ///   - environment: clock, logger, seed, transport, storage and request signals.
    ///   - hostContext: given a placement id, the conversation and screen context for its next
    ///     request, unless the placement was given its own (``Placement/setHostContext(_:)``).
    ///     Never logged or put into events.
    ///   - onEvent: called synchronously for every event, in order; it must not block.
    /// - Throws: ``ConfigurationError`` naming the JSON path: `networks.<id>.adapter` when the
    ///   registry has no factory for a kind, whatever a factory rejects (a credential, an
    ///   option, an endpoint), or a line item its network's factory says can never fill its
    ///   placement (R19, `placements.<id>.sources[<n>]`). No network is asked anything when
    ///   building fails.
    public convenience init(
        configuration: MediationConfiguration,
        registry: NetworkRegistry,
        environment: MediationEnvironment = MediationEnvironment(),
        hostContext: @escaping @Sendable (String) -> AdRequest.Context = { _ in AdRequest.Context() },
        onEvent: (@Sendable (MediationEvent) -> Void)? = nil
    ) throws(ConfigurationError) {
        try self.init(candidates: [LaunchCandidate(configuration: configuration, version: configuration.version, source: .bundled)], registry: registry, environment: environment, hostContext: hostContext, onEvent: onEvent)
    }

    /// A configuration the engine may start on.
    struct LaunchCandidate: Sendable {
        var configuration: MediationConfiguration
        var version: Int
        var source: MediationEngine.RemoteConfiguration.Update.Source
    }

    /// Builds the engine on the first of `candidates` that builds (best first: the cache, then
    /// the bundled configuration). Each earlier candidate that fails to build is in
    /// ``launchFailures``.
    /// - Throws: the last candidate's ``ConfigurationError`` when none builds.
    init(
        candidates: [LaunchCandidate],
        registry: NetworkRegistry,
        environment: MediationEnvironment,
        hostContext: @escaping @Sendable (String) -> AdRequest.Context,
        onEvent: (@Sendable (MediationEvent) -> Void)?
    ) throws(ConfigurationError) {
        // Adapters log through the engine's attributing logger: a warning logged while a task
        // works for an auction source goes on that source's trace line too. The default
        // SilentLogger discards every line, so there is nothing to attribute.
        var environment = environment
        if !(environment.logger is AttributingLogger), !(environment.logger is SilentLogger) {
            environment.logger = AttributingLogger(base: environment.logger, warnings: AdapterWarnings())
        }
        let hub = EventHub(handler: onEvent)
        let health = NetworkHealthMonitor(seed: environment.seed, store: environment.stateStore, wallClock: environment.wallClock, logger: environment.logger, emit: { hub.emit($0) })
        var snapshot: EngineSnapshot?
        var failures: [(LaunchCandidate, ConfigurationError)] = []
        for candidate in candidates {
            switch EngineSnapshot.build(candidate.configuration, version: candidate.version, source: candidate.source, generation: 1, registry: registry, environment: environment, previous: nil, health: health) {
            case .success(let built):
                snapshot = built
            case .failure(let failure):
                failures.append((candidate, failure.error))
                for adapter in failure.unusedAdapters {
                    environment.clock.startTask { await adapter.shutdown() }
                }
            }
            if snapshot != nil { break }
        }
        guard let snapshot else {
            throw failures.last?.1 ?? ConfigurationError(code: .missingField, path: "$", message: "no configuration to start on")
        }
        self.environment = environment
        self.registry = registry
        self.hostContext = hostContext
        launchFailures = failures
        eventHub = hub
        self.health = health
        experiments = ExperimentRuntime(store: environment.stateStore, wallClock: environment.wallClock, experiments: snapshot.configuration.experiments, logger: environment.logger)
        state = Locked(State(template: environment.requestTemplate, current: snapshot))
        caps = CapKeeper(configuration: snapshot.configuration, at: environment.clock.now, store: environment.stateStore, wallClock: environment.wallClock, logger: environment.logger)
        logDroppedAudienceKeys(of: environment.requestTemplate)
    }

    /// Logs a warning for each custom audience key of `template` that was out of bounds (it was
    /// dropped, never a crash).
    private func logDroppedAudienceKeys(of template: RequestTemplate) {
        for line in template.droppedAudienceKeys {
            environment.logger.warning(line, source: "audience")
        }
    }

    /// The launch candidates that failed to build, with their errors.
    let launchFailures: [(LaunchCandidate, ConfigurationError)]

    /// Loads the configuration file at `url`
    /// (``MediationConfiguration/init(contentsOf:registry:)``, with the pricing of `registry`'s
    /// kinds) and builds the engine.
    /// - Parameters:
    ///   - url: the configuration file.
    ///   - registry: the network kinds.
    ///   - environment: clock, logger, seed, transport, storage and request signals.
    ///   - hostContext: the conversation and screen context of a placement's next request.
    ///   - onEvent: called synchronously for every event, in order; it must not block.
    /// - Throws: ``ConfigurationError`` naming the JSON path of the first mistake.
    public convenience init(
        contentsOf url: URL,
        registry: NetworkRegistry,
        environment: MediationEnvironment = MediationEnvironment(),
        hostContext: @escaping @Sendable (String) -> AdRequest.Context = { _ in AdRequest.Context() },
        onEvent: (@Sendable (MediationEvent) -> Void)? = nil
    ) throws(ConfigurationError) {
        let configuration = try ConfigurationLoader(registry: registry).load(contentsOf: url)
        try self.init(configuration: configuration, registry: registry, environment: environment, hostContext: hostContext, onEvent: onEvent)
    }

    /// A new stream of every event from now on, in order (buffering the newest 10,000 for a
    /// slow consumer). Each call makes an independent stream. Every stream finishes when
    /// ``shutdown()`` has finished (a stream asked for afterwards is finished at once), so a
    /// host's `for await` loop over it ends instead of waiting forever.
    public func events() -> AsyncStream<MediationEvent> {
        let stream = eventHub.stream()
        if isShutDown { eventHub.finish() } // shutdown may already have finished the others
        return stream
    }

    // MARK: - Placements and auctions

    /// The one controller of placement `id`, made on first use (a destroyed one is replaced by
    /// a new one).
    /// - Parameter id: the placement id, e.g. `"home_banner"`.
    /// - Returns: the controller, or `nil` when the configuration in force has no such
    ///   placement or the engine was shut down.
    public func placement(_ id: String) -> Placement? {
        state.withLock { state -> Placement? in
            guard !state.isShutDown, let entry = state.current.entries[id] else { return nil }
            if let existing = state.placements[id] { return existing }
            let placement = makePlacement(entry, foreground: state.foreground)
            state.placements[id] = placement
            return placement
        }
    }

    /// Runs one auction of `placementID` outside any placement's life cycle (the CLI's one-shot
    /// mode, a host's own ad cache), under the configuration in force when it starts (R22). The
    /// events `auction_started`, `auction_finished` and any `late_answer` are published as for
    /// a placement's auctions. The winner's ad belongs to the caller, who must show it or call
    /// `releaseResources()` on it.
    ///
    /// The winner holds this configuration for as long as the caller holds it
    /// (``MediationEngine/AuctionOutcome/Winner``): a configuration change that removes or changes
    /// its network shuts that network's adapter down only once the caller has dropped the winner
    /// (and the outcome), so drop it once its ad is released or no longer shown. An outcome without
    /// a winner holds nothing.
    /// - Parameters:
    ///   - placementID: the placement whose sources take part.
    ///   - context: the conversation and screen context; `nil` asks the engine's provider.
    /// - Returns: the outcome, or `nil` when the configuration has no such placement or the
    ///   engine was shut down.
    public func runAuction(placementID: String, context: AdRequest.Context? = nil) async -> MediationEngine.AuctionOutcome? {
        await runAuction(placementID: placementID, context: context, signals: nil)
    }

    /// ``runAuction(placementID:context:)`` with this auction's own host signals in place of the
    /// engine's request template (the simulation's market gives each auction its country).
    /// - Parameters:
    ///   - placementID: the placement whose sources take part.
    ///   - context: the conversation and screen context; `nil` asks the engine's provider.
    ///   - signals: the auction's signals; `nil` for the engine's template.
    /// - Returns: as ``runAuction(placementID:context:)``.
    package func runAuction(placementID: String, context: AdRequest.Context?, signals: RequestTemplate?) async -> MediationEngine.AuctionOutcome? {
        let started: (template: RequestTemplate, entry: PlacementEntry)? = state.withLock { state in
            guard !state.isShutDown, let entry = state.current.entries[placementID] else { return nil }
            state.retirement.acquire(entry.generation) // the auction holds its configuration
            return (signals ?? state.template, entry)
        }
        guard let (template, entry) = started else { return nil }
        let start = clock.now
        let resolution = experiments.resolve(entry, at: start)
        let run = resolution.entry ?? entry
        let arm = resolution.arm
        let request = template.request(for: run.configuration, slot: run.configuration.slot, context: context ?? hostContext(placementID), at: start)
        let choice = run.auction.choice(for: request) // the segment and country, before the start is published
        let events = eventHub
        if let exposure = resolution.exposure { events.emit(.exposure(exposure)) }
        events.emit(.auctionStarted(placementID: placementID, reason: .oneShot, configVersion: entry.auction.configVersion, at: start, experiment: arm, country: choice.audience?.country, segment: choice.audience?.segment))
        // Without an experiment arm the closure captures the hub alone, which is then its
        // context: no closure box is allocated per auction.
        let onLateAnswer: @Sendable (MediationEvent.LateAnswer) -> Void
        if let arm {
            onLateAnswer = { late in events.emit(MediationEvent.lateAnswer(late).tagged(with: arm)) }
        } else {
            onLateAnswer = { late in events.emit(MediationEvent.lateAnswer(late)) }
        }
        var outcome = await run.auction.run(request: request, choice: choice, excluding: [], onLateAnswer: onLateAnswer)
        if let arm { outcome.trace.experiment = arm }
        events.emit(.auctionFinished(placementID: placementID, trace: outcome.trace, at: clock.now))
        // The winner's ad now belongs to the caller, unshown: the auction's use of its snapshot
        // passes to the winner, and ends when the caller drops it. No winner, no use.
        if outcome.winner != nil {
            outcome.winner?.hold = SnapshotHold(of: entry.generation, on: self)
        } else {
            release(entry.generation)
        }
        return outcome
    }

    // MARK: - Configuration changes

    /// Replaces the configuration in force by `configuration` as version `version` (engine rule
    /// R22), whole and between auctions:
    /// - it is built first (adapters of new or changed networks by their factories, the R19
    ///   checks); a configuration that fails is refused with its JSON path and nothing changes;
    /// - an auction that started finishes under its configuration; each placement's next
    ///   auction runs under the new one; a placement's current ad stays until its normal
    ///   refresh or expiry;
    /// - a placement the new configuration removes (or gives another format or banner sizing)
    ///   is destroyed (its unshown ads released once, its shown ones retired) and a
    ///   `placement_removed` event tells its views;
    /// - the adapter of a network removed or changed is shut down once no running auction, no
    ///   placement's current ad and no one-shot winner a caller still holds
    ///   (``runAuction(placementID:context:)``) uses it; unchanged networks keep their adapters.
    ///
    /// Changes run one at a time. The remote configuration (``MediationEngine/RemoteConfiguration``) calls this
    /// only for verified configurations.
    /// - Parameters:
    ///   - configuration: the new configuration.
    ///   - version: its `config_version`.
    ///   - source: where it came from.
    ///   - announce: runs once the new configuration is in force and before the placements
    ///     take it or are removed, so that what announces it (the remote configuration's
    ///     `config_applied`) comes before its consequences (ads retired or released,
    ///     `placement_removed`); not run when it is refused.
    /// - Throws: ``ConfigurationError`` naming the JSON path when it cannot be built, or when
    ///   the engine was shut down (`$`).
    package func apply(_ configuration: MediationConfiguration, version: Int, source: MediationEngine.RemoteConfiguration.Update.Source, announce: (@Sendable () async -> Void)? = nil) async throws(ConfigurationError) {
        let error: ConfigurationError? = await applying.run { [self] in
            do throws(ConfigurationError) {
                try await swap(to: configuration, version: version, source: source, announce: announce)
                return nil
            } catch {
                return error
            }
        }
        if let error { throw error }
    }

    /// ``apply(_:version:source:announce:)``'s body, run inside the gate.
    private func swap(to configuration: MediationConfiguration, version: Int, source: MediationEngine.RemoteConfiguration.Update.Source, announce: (@Sendable () async -> Void)?) async throws(ConfigurationError) {
        let current: (snapshot: EngineSnapshot, template: RequestTemplate)? = state.withLock { $0.isShutDown ? nil : ($0.current, $0.template) }
        guard let (previous, template) = current else {
            throw ConfigurationError(code: .invalidValue, path: "$", message: "the engine was shut down")
        }
        // A network built for the new configuration starts from the host's current signals (a
        // consent withdrawn since launch included), not the launch template.
        var buildEnvironment = environment
        buildEnvironment.requestTemplate = template
        let new: EngineSnapshot
        switch EngineSnapshot.build(configuration, version: version, source: source, generation: previous.generation + 1, registry: registry, environment: buildEnvironment, previous: previous, health: health) {
        case .success(let built):
            new = built
        case .failure(let failure):
            shutDown(failure.unusedAdapters)
            throw failure.error
        }
        // The swap: from here every new placement and one-shot auction uses `new`; the old
        // snapshot is held until every existing placement has taken the new one.
        let swapped: (kept: [(Placement, PlacementEntry)], removed: [Placement], free: [NetworkHandle], missed: Bool)? = state.withLock { state in
            guard !state.isShutDown else { return nil }
            state.current = new
            // Signals the host changed while `new` was built (a consent withdrawal) reached the
            // old snapshot's adapters only: the adapters built for `new` hear them below.
            let missed = state.template != template
            state.retirement.acquire(previous.generation)
            let free = state.retirement.supersede(previous, by: new)
            var kept: [(Placement, PlacementEntry)] = []
            var removed: [Placement] = []
            for (id, placement) in state.placements {
                if let entry = new.entries[id], Self.isSamePlacement(entry.configuration, as: placement.configuration) {
                    kept.append((placement, entry))
                } else {
                    removed.append(placement)
                    state.placements[id] = nil
                }
            }
            return (kept, removed, free.map(\.self), missed)
        }
        guard let swapped else {
            shutDown(new.networks.filter { handle in !previous.networks.contains { $0 === handle } }.map(\.adapter))
            throw ConfigurationError(code: .invalidValue, path: "$", message: "the engine was shut down")
        }
        if swapped.missed {
            let latest = state.withLock { $0.template } // the newest, should the host change them again
            for handle in new.networks where !previous.networks.contains(where: { $0 === handle }) {
                handle.adapter.requestTemplateDidChange(latest)
            }
        }
        shutDown(swapped.free.map(\.adapter))
        // R24: a line item the new configuration removed (or moved) no longer speaks for its
        // network's other line items.
        health.configurationChanged(lineItems: new.entries.values.lazy.flatMap(\.auction.healthLineItems))
        caps.configurationChanged(new.configuration)
        experiments.configurationChanged(new.configuration.experiments)
        if let announce { await announce() }
        for (placement, entry) in swapped.kept.sorted(by: { $0.0.id < $1.0.id }) {
            await placement.adopt(entry)
        }
        for placement in swapped.removed.sorted(by: { $0.id < $1.id }) {
            await placement.destroy()
            eventHub.emit(.placementRemoved(placementID: placement.id, configVersion: version, at: clock.now))
        }
        release(previous.generation)
    }

    /// Whether `new` is the same placement as `old` for its controller: the same format and
    /// banner sizing (the current ad stays); otherwise the controller is replaced.
    private static func isSamePlacement(_ new: MediationConfiguration.Placement, as old: MediationConfiguration.Placement) -> Bool {
        new.format == old.format && new.bannerSizing == old.bannerSizing
    }

    /// The current snapshot.
    private var snapshot: EngineSnapshot { state.withLock { $0.current } }

    /// Ends one use of snapshot `generation`, shutting down the adapters nothing uses any more
    /// (a one-shot winner's ``SnapshotHold`` ends its use here).
    func release(_ generation: UInt64) {
        let free = state.withLock { state in state.retirement.release(generation, current: state.current) }
        shutDown(free.map(\.adapter))
    }

    /// Tells each adapter to shut down (R18), in a task on the clock.
    private func shutDown(_ adapters: [any AdNetworkAdapter]) {
        for adapter in adapters {
            clock.startTask { await adapter.shutdown() }
        }
    }

    // MARK: - Remote configuration

    /// Gives the engine its remote configuration's updater (``MediationEngine/RemoteConfiguration``), once, with
    /// what the launch found.
    func attach(_ updater: RemoteConfigurationUpdater, launchWarnings: [MediationEngine.RemoteConfiguration.Update]) {
        state.withLock { state in
            guard state.remote == nil else { return }
            state.remote = updater
            state.launchWarnings = launchWarnings
        }
    }

    /// What the launch should tell the host about the configuration it started on (each a
    /// warning: a damaged or no longer valid cache removed, the device clock behind the cache's
    /// fetch time, a state store that cannot be written). They were also published as
    /// `config_warning` events to the `onEvent` handler while the engine was built.
    public var launchWarnings: [MediationEngine.RemoteConfiguration.Update] { state.withLock { $0.launchWarnings } }

    /// The remote configuration's updater, if any.
    var remoteUpdater: RemoteConfigurationUpdater? { state.withLock { $0.remote } }

    /// Publishes `event` (the remote configuration's updates).
    func emit(_ event: MediationEvent) {
        eventHub.emit(event)
    }

    // MARK: - Host state and life cycle

    /// Whether the app is in the foreground (the default).
    public var isForeground: Bool { state.withLock { $0.foreground } }

    /// Whether ``shutdown()`` was called.
    public var isShutDown: Bool { state.withLock { $0.isShutDown } }

    /// Records the app moving to the foreground or background and tells every placement
    /// (refresh counts freeze in the background, R13), every network's adapter (R18:
    /// `didEnterBackground()` flushes queued events; `willEnterForeground()`) and the remote
    /// configuration (back in the foreground, it checks the server when its interval has
    /// passed). Returns once every adapter has handled it.
    /// - Parameter foreground: whether the app is now in the foreground.
    public func setForeground(_ foreground: Bool) async {
        let change: (placements: [Placement], sequence: UInt64, remote: RemoteConfigurationUpdater?)? = state.withLock { state in
            guard !state.isShutDown, state.foreground != foreground else { return nil }
            state.foreground = foreground
            state.foregroundSequence += 1
            caps.setForeground(foreground, at: clock.now) // at once: no full-screen ad counts in the background
            return (Array(state.placements.values), state.foregroundSequence, state.remote)
        }
        guard let change else { return }
        for placement in change.placements {
            await placement.setForeground(foreground, sequence: change.sequence)
        }
        await forEachAdapter { adapter in
            if foreground {
                await adapter.willEnterForeground()
            } else {
                await adapter.didEnterBackground()
            }
        }
        await change.remote?.setForeground(foreground)
    }

    /// The app is about to resign active (iOS `applicationWillResignActive`, which also comes
    /// before termination): every network's adapter flushes its queued events
    /// (`willResignActive()`, R18). Refresh counts are not affected (the app is still in the
    /// foreground until ``setForeground(_:)`` says otherwise). Returns once every adapter has
    /// handled it; does nothing after ``shutdown()``.
    public func willResignActive() async {
        guard !isShutDown else { return }
        await forEachAdapter { await $0.willResignActive() }
    }

    /// Shuts the engine down (R18): the remote configuration stops checking, every placement is
    /// destroyed (a running auction cancelled, unshown ads released), every adapter is told to
    /// stop (`shutdown()`: no network sends anything afterwards, not even for ads handed out
    /// earlier; adapters a configuration change retired included), and later calls find no
    /// placement and run no auction. Returns once every adapter has stopped. Later calls do
    /// nothing.
    public func shutdown() async {
        let stopping: (placements: [Placement], remote: RemoteConfigurationUpdater?)? = state.withLock { state in
            guard !state.isShutDown else { return nil }
            state.isShutDown = true
            defer { state.placements.removeAll() }
            return (Array(state.placements.values), state.remote)
        }
        guard let stopping else { return }
        await stopping.remote?.stop()
        for placement in stopping.placements.sorted(by: { $0.id < $1.id }) {
            await placement.destroy()
        }
        let retiring = state.withLock { $0.retirement.takeAll() }
        await forEachAdapter(including: retiring) { await $0.shutdown() }
        eventHub.finish() // the streams end; the `onEvent` handler still hears late releases
    }

    /// Replaces the host's request signals (e.g. after the user answered a consent prompt); they
    /// apply from the next auction. Every network's adapter hears of them before this returns
    /// (``AdNetworkAdapter/requestTemplateDidChange(_:)``): a consent withdrawal
    /// (`privacy.userConsent == false`) deletes at once what each network stores of the
    /// identity the user withdrew (Nitx's profile and consent record, Elo's user identifier and
    /// user data), also after ``shutdown()``.
    /// - Parameter template: the new signals.
    public func updateRequestTemplate(_ template: RequestTemplate) {
        logDroppedAudienceKeys(of: template)
        let handles = state.withLock { state in
            state.template = template
            return state.current.networks + state.retirement.retiringNetworks
        }
        for handle in handles {
            handle.adapter.requestTemplateDidChange(template)
        }
    }

    /// Forgets the user (an erasure request, a "reset my identifiers" setting): every network
    /// erases the identifiers and data it stores of the user and makes new anonymous ones
    /// (``AdNetworkAdapter/forgetUser()``: Elo its user identifier, user data, install id and
    /// session; Nitx its visitor id, profile and consent record, with its forget request), so
    /// the next request of each network, and the tracking of ads handed out earlier, carries no
    /// old identifier; then the engine's install id is replaced by a new random one, so the
    /// staged-rollout bucket and every experiment's variant and unit are drawn again (the
    /// configuration running stays). Consent the user
    /// gave a network must be given again. Returns once every network has forgotten.
    /// - Throws: an error (the state store's, whose description says what and where) when the
    ///   new install id cannot be stored (the networks have forgotten the user all the same; the
    ///   new id lasts for the process).
    public func forgetUser() async throws {
        let handles = state.withLock { $0.current.networks + $0.retirement.retiringNetworks }
        let tasks = handles.map { handle in clock.startTask { await handle.adapter.forgetUser() } }
        for task in tasks { await task.value }
        try await resetInstallID()
    }

    /// The status of the adapter of `networkID` (``AdNetworkAdapter/status(for:)``) for the
    /// current request template, or `nil` for an unknown network. Sends nothing.
    /// - Parameter networkID: a key of the configuration's `networks`.
    public func networkStatus(_ networkID: String) async -> NetworkStatus? {
        let (handle, template) = state.withLock { ($0.current.network(networkID), $0.template) }
        guard let handle else { return nil }
        return await handle.adapter.status(for: template)
    }

    /// The health of network `networkID` (engine rule R24): closed (asked by every auction),
    /// open (paused until its ``MediationEngine/HealthStatus/retryAt``) or half-open (its back-off
    /// ended: a probe may ask it), with the counts behind it; `nil` for a network the
    /// configuration in force does not have. A network paused when the engine last stopped
    /// reads as paused from its stored state (`health.<network id>`). Sends nothing.
    /// - Parameter networkID: a key of the configuration's `networks`.
    package func networkHealth(_ networkID: String) -> MediationEngine.HealthStatus? {
        guard let network = snapshot.configuration.network(networkID) else { return nil }
        return health.status(.network(networkID), settings: network.health, at: clock.now)
    }

    /// The health of line item `lineItemID` of placement `placementID` on its own (engine rule
    /// R24), beside its network's (``networkHealth(_:)``): open when it kept failing while its
    /// network answered for its other line items (its sources are `not_asked` with
    /// `network_paused` until its ``MediationEngine/HealthStatus/retryAt``), under its network's
    /// settings; `nil` when the configuration in force has no such line item. The only line
    /// item of its network has no health of its own (its network's is its): it reads closed.
    /// A line item paused when the engine last stopped reads as paused from its stored state.
    /// Sends nothing.
    /// - Parameters:
    ///   - lineItemID: a source's `id` in the placement.
    ///   - placementID: a key of the configuration's `placements`.
    package func lineItemHealth(_ lineItemID: String, placementID: String) -> MediationEngine.HealthStatus? {
        let configuration = snapshot.configuration
        guard let lineItem = configuration.placement(placementID)?.sources.first(where: { $0.id == lineItemID }),
              let network = configuration.network(lineItem.network) else { return nil }
        guard configuration.networksWithLineItemHealth.contains(network.id) else {
            return MediationEngine.HealthStatus(NetworkHealth(), enabled: network.health.enabled)
        }
        return health.status(.lineItem(lineItemID, placementID: placementID, networkID: network.id), settings: network.health, at: clock.now)
    }

    // MARK: - Building

    /// Runs `body` for every adapter of the configuration in force (and `extra`) at once, each
    /// in a task started on the clock (so virtual time sees the work), and returns when all are
    /// done.
    private func forEachAdapter(including extra: [NetworkHandle] = [], _ body: @escaping @Sendable (any AdNetworkAdapter) async -> Void) async {
        let handles = snapshot.networks + extra
        let tasks = handles.map { handle in
            clock.startTask { await body(handle.adapter) }
        }
        for task in tasks { await task.value }
    }

    /// Every cap and pacing rule that applies to line item `lineItemID` of placement
    /// `placementID` (the app's, the placement's, its network's, its own; `docs/caps.md`), each
    /// with the instant it frees: now when it allows an impression now, `nil` when only a new
    /// session frees it. Empty when there is no such line item or no rule. The placement's
    /// rules are those of its form for the engine's audience (its segment's caps, when a
    /// segment sets them), as the engine's own auctions and shows apply them.
    package func capStatus(lineItemID: String, placementID: String) -> [(rule: String, freeAt: MediationInstant?)] {
        guard let placement = placementForm(placementID), let lineItem = placement.sources.first(where: { $0.id == lineItemID }) else { return [] }
        return caps.status(placement: placement, lineItem: lineItem, at: clock.now)
    }

    /// Placement `placementID` in the form the engine's audience gets (its segment's changes
    /// applied: sources, prices, floor, refresh, mode, caps), or `nil` when there is none.
    package func placementForm(_ placementID: String) -> MediationConfiguration.Placement? {
        let (entry, template) = state.withLock { ($0.current.entries[placementID], $0.template) }
        return entry?.auction.placement(for: template.resolvedAudience)
    }

    private func makePlacement(_ entry: PlacementEntry, foreground: Bool) -> Placement {
        Placement(
            entry: entry,
            clock: clock,
            logger: logger,
            events: eventHub,
            foreground: foreground,
            buildRequest: { [weak self] configuration, slot, context, start in
                self?.makeRequest(configuration, slot: slot, context: context, at: start)
                    ?? RequestTemplate().request(for: configuration, slot: slot, context: context ?? AdRequest.Context(), at: start)
            },
            leases: PlacementLeases(
                acquire: { [weak self] generation in self?.state.withLock { $0.retirement.acquire(generation) } },
                release: { [weak self] generation in self?.release(generation) }
            ),
            experiments: experiments,
            caps: caps,
            onDestroy: { [weak self] placement in
                self?.forget(placement)
            }
        )
    }

    /// Removes a destroyed controller from the registry (unless a newer one took its place).
    private func forget(_ placement: Placement) {
        state.withLock { state in
            if let existing = state.placements[placement.id], existing === placement {
                state.placements[placement.id] = nil
            }
        }
    }

    private func makeRequest(_ placementConfiguration: MediationConfiguration.Placement, slot: SlotSize, context: AdRequest.Context?, at start: MediationInstant) -> AdRequest {
        let template = state.withLock { $0.template }
        return template.request(for: placementConfiguration, slot: slot, context: context ?? hostContext(placementConfiguration.id), at: start)
    }
}

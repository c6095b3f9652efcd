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
///                                  environment: MediationEnvironment(transport: URLSessionTransport()))
/// let banner = engine.placement("home_banner")
/// let view = await banner?.attachView(visible: true)   // loads, then refreshes while seen
/// for await event in engine.events() { … }
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
    }

    /// The configuration.
    public let configuration: MediationConfiguration
    /// The environment the engine and its adapters run in (clock, logger, seed, transport).
    public let environment: MediationEnvironment
    /// The clock every auction, refresh and expiry runs on (the environment's).
    public var clock: any MediationClock { environment.clock }
    /// Where log lines go (the environment's).
    public var logger: any MediationLogger { environment.logger }

    /// What the configuration does that its author should know (engine rule R19), in order:
    /// per network, what its factory clamps or ignores and whether it answers from its sandbox
    /// (`sandbox_endpoint`); then per line item, what its network's factory warns about. Each
    /// names its JSON path.
    public let configurationWarnings: [ConfigurationWarning]
    /// The ids of the networks whose endpoint is `"sandbox"` (their in-process simulated
    /// servers answer, not real ad servers), in configuration order.
    public let sandboxNetworks: [String]

    /// The adapters, in the configuration's network order.
    private let adapters: [(networkID: String, adapter: any AdNetworkAdapter)]
    /// The auction runner and configuration of each placement, by placement id (boxed: a
    /// lookup costs one retain, not a copy of the runner).
    private let auctions: [String: PlacementEntry]
    private let hostContext: @Sendable (String) -> HostContext
    private let eventHub: EventHub
    private let state: Locked<State>

    /// Builds the engine: one adapter per configured network, by the factory its `adapter`
    /// kind names in `registry`.
    /// - Parameters:
    ///   - configuration: the loaded configuration (``ConfigurationLoader``).
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
    public init(
        configuration: MediationConfiguration,
        registry: NetworkRegistry,
        environment: MediationEnvironment = MediationEnvironment(),
        hostContext: @escaping @Sendable (String) -> HostContext = { _ in HostContext() },
        onEvent: (@Sendable (MediationEvent) -> Void)? = nil
    ) throws(ConfigurationError) {
        var adapters: [(networkID: String, adapter: any AdNetworkAdapter)] = []
        var byNetwork: [String: (network: NetworkConfiguration, factory: any NetworkAdapterFactory, adapter: any AdNetworkAdapter)] = [:]
        var warnings: [ConfigurationWarning] = []
        var sandboxNetworks: [String] = []
        for network in configuration.networks {
            guard let factory = registry.factory(forKind: network.adapter) else {
                let known = registry.kinds.map { "\"\($0)\"" }.joined(separator: ", ")
                throw ConfigurationError(code: .unknownAdapter, path: network.path(of: "adapter"), message: "no network kind \(ConfigurationText.quoted(network.adapter)) is registered; known kinds: \(known)")
            }
            var adapter = try factory.makeAdapter(for: network, environment: environment)
            if let recorder = environment.exchangeRecorder {
                // Debugging (`mediate --debug`): every loadAd call is recorded too.
                adapter = RecordingAdapter(base: adapter, networkID: network.id, clock: environment.clock, recorder: recorder)
            }
            adapters.append((network.id, adapter))
            byNetwork[network.id] = (network, factory, adapter)
            warnings += factory.warnings(for: network)
            if network.endpoint == .sandbox {
                sandboxNetworks.append(network.id)
                warnings.append(ConfigurationWarning(code: .sandboxEndpoint, path: network.path(of: "endpoint"), message: "\"sandbox\": this network's in-process simulated server answers, not a real ad server"))
            }
        }
        var auctions: [String: PlacementEntry] = [:]
        for placement in configuration.placements {
            var sources: [AuctionSource] = []
            sources.reserveCapacity(placement.sources.count)
            for (sourceIndex, lineItem) in placement.sources.enumerated() {
                guard let entry = byNetwork[lineItem.network] else {
                    throw ConfigurationError(code: .unknownNetwork, path: placement.path(ofSourceAt: sourceIndex) + ".network", message: "no network \(ConfigurationText.quoted(lineItem.network)) in this configuration")
                }
                // R19: the network says whether this line item could ever fill its placement.
                let validation = entry.factory.validate(lineItem, in: placement, network: entry.network)
                if let error = validation.errors.first { throw error }
                let servesInline = entry.factory.servesInlineBanners
                if !servesInline, let error = Self.anchoredBannerNeverFits(lineItem, in: placement) { throw error }
                warnings += validation.warnings
                sources.append(AuctionSource(lineItem: lineItem, adapter: entry.adapter, networkTimeout: entry.network.timeout, usesSandbox: entry.network.endpoint == .sandbox, servesInlineBanners: servesInline))
            }
            var auction = Auction(placement: placement, sources: sources, clock: environment.clock, wallClock: { [wallClock = environment.wallClock] in WallClockTime(wallClock()) })
            auction.attributesSources = environment.exchangeRecorder != nil
            auctions[placement.id] = PlacementEntry(auction: auction, configuration: placement)
        }
        configurationWarnings = warnings
        self.sandboxNetworks = sandboxNetworks
        self.configuration = configuration
        self.environment = environment
        self.adapters = adapters
        self.auctions = auctions
        self.hostContext = hostContext
        eventHub = EventHub(handler: onEvent)
        state = Locked(State(template: environment.requestTemplate))
    }

    /// Loads the configuration file at `url` (``ConfigurationLoader``, with the pricing of
    /// `registry`'s kinds) and builds the engine.
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
        hostContext: @escaping @Sendable (String) -> HostContext = { _ in HostContext() },
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
    /// - Returns: the controller, or `nil` when the configuration has no such placement or the
    ///   engine was shut down.
    public func placement(_ id: String) -> Placement? {
        guard let entry = auctions[id] else { return nil }
        return state.withLock { state -> Placement? in
            guard !state.isShutDown else { return nil }
            if let existing = state.placements[id] { return existing }
            let placement = makePlacement(entry.configuration, auction: entry.auction, foreground: state.foreground)
            state.placements[id] = placement
            return placement
        }
    }

    /// Runs one auction of `placementID` outside any placement's life cycle (the CLI's one-shot
    /// mode, a host's own ad cache). The events `auction_started`, `auction_finished` and any
    /// `late_answer` are published as for a placement's auctions. The winner's ad belongs to
    /// the caller, who must show it or call `releaseResources()` on it.
    /// - Parameters:
    ///   - placementID: the placement whose sources take part.
    ///   - context: the conversation and screen context; `nil` asks the engine's provider.
    /// - Returns: the outcome, or `nil` when the configuration has no such placement or the
    ///   engine was shut down.
    public func runAuction(placementID: String, context: HostContext? = nil) async -> AuctionOutcome? {
        guard let entry = auctions[placementID] else { return nil }
        let placementConfiguration = entry.configuration
        let template: RequestTemplate? = state.withLock { $0.isShutDown ? nil : $0.template }
        guard let template else { return nil }
        let start = clock.now
        let request = template.request(for: placementConfiguration, slot: placementConfiguration.slot, context: context ?? hostContext(placementID), at: start)
        let events = eventHub
        events.emit(.auctionStarted(placementID: placementID, reason: .oneShot, at: start))
        let outcome = await entry.auction.run(request: request, excluding: []) { late in
            events.emit(.lateAnswer(late))
        }
        events.emit(.auctionFinished(placementID: placementID, trace: outcome.trace, at: clock.now))
        return outcome
    }

    // MARK: - Host state and life cycle

    /// Whether the app is in the foreground (the default).
    public var isForeground: Bool { state.withLock { $0.foreground } }

    /// Whether ``shutdown()`` was called.
    public var isShutDown: Bool { state.withLock { $0.isShutDown } }

    /// Records the app moving to the foreground or background and tells every placement
    /// (refresh counts freeze in the background, R13) and every network's adapter (R18:
    /// `didEnterBackground()` flushes queued events; `willEnterForeground()`). Returns once
    /// every adapter has handled it.
    /// - Parameter foreground: whether the app is now in the foreground.
    public func setForeground(_ foreground: Bool) async {
        let change: (placements: [Placement], sequence: UInt64)? = state.withLock { state in
            guard !state.isShutDown, state.foreground != foreground else { return nil }
            state.foreground = foreground
            state.foregroundSequence += 1
            return (Array(state.placements.values), state.foregroundSequence)
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

    /// Shuts the engine down (R18): every placement is destroyed (a running auction cancelled,
    /// unshown ads released), every adapter is told to stop (`shutdown()`: no network sends
    /// anything afterwards, not even for ads handed out earlier), and later calls find no
    /// placement and run no auction. Returns once every adapter has stopped. Later calls do
    /// nothing.
    public func shutdown() async {
        let placements: [Placement]? = state.withLock { state in
            guard !state.isShutDown else { return nil }
            state.isShutDown = true
            defer { state.placements.removeAll() }
            return Array(state.placements.values)
        }
        guard let placements else { return }
        for placement in placements.sorted(by: { $0.id < $1.id }) {
            await placement.destroy()
        }
        await forEachAdapter { await $0.shutdown() }
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
        state.withLock { $0.template = template }
        for entry in adapters {
            entry.adapter.requestTemplateDidChange(template)
        }
    }

    /// The status of the adapter of `networkID` (``AdNetworkAdapter/status(for:)``) for the
    /// current request template, or `nil` for an unknown network. Sends nothing.
    /// - Parameter networkID: a key of the configuration's `networks`.
    public func networkStatus(_ networkID: String) async -> NetworkStatus? {
        guard let adapter = adapters.first(where: { $0.networkID == networkID })?.adapter else { return nil }
        let template = state.withLock { $0.template }
        return await adapter.status(for: template)
    }

    // MARK: - Building

    /// R19 for a source whose network serves no inline banners: in an inline banner placement it
    /// is asked for its anchored adaptive banner, at least 50 pt high, which a max height under
    /// 50 pt can never take.
    /// - Returns: the `unfillable` error at the source's path, or `nil`.
    private static func anchoredBannerNeverFits(_ lineItem: LineItem, in placement: PlacementConfiguration) -> ConfigurationError? {
        guard placement.format == .banner, placement.bannerSizing == .inline,
              let maxHeight = placement.slot.maxHeight, maxHeight + 0.5 < AnchoredAdaptiveSizing.minimumHeight else { return nil }
        return LineItemValidation.unfillable(
            at: placement.path(of: lineItem),
            "network \(ConfigurationText.quoted(lineItem.network)) serves no inline banners: its anchored adaptive banner (at least \(Int(AnchoredAdaptiveSizing.minimumHeight)) pt high) never fits placement \(placement.id)'s max height of \(maxHeight == maxHeight.rounded() && abs(maxHeight) < 1e9 ? String(Int(maxHeight)) : String(maxHeight)) pt"
        ).errors.first
    }

    /// Runs `body` for every adapter at once, each in a task started on the clock (so virtual
    /// time sees the work), and returns when all are done.
    private func forEachAdapter(_ body: @escaping @Sendable (any AdNetworkAdapter) async -> Void) async {
        let tasks = adapters.map { entry in
            clock.startTask { await body(entry.adapter) }
        }
        for task in tasks { await task.value }
    }

    private func makePlacement(_ placementConfiguration: PlacementConfiguration, auction: Auction, foreground: Bool) -> Placement {
        Placement(
            configuration: placementConfiguration,
            auction: auction,
            clock: clock,
            logger: logger,
            events: eventHub,
            foreground: foreground,
            buildRequest: { [weak self] configuration, slot, context, start in
                self?.makeRequest(configuration, slot: slot, context: context, at: start)
                    ?? RequestTemplate().request(for: configuration, slot: slot, context: context ?? HostContext(), at: start)
            },
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

    private func makeRequest(_ placementConfiguration: PlacementConfiguration, slot: SlotSize, context: HostContext?, at start: MediationInstant) -> AdRequest {
        let template = state.withLock { $0.template }
        return template.request(for: placementConfiguration, slot: slot, context: context ?? hostContext(placementConfiguration.id), at: start)
    }
}

/// One placement's auction runner and configuration, built once with the engine.
private final class PlacementEntry: Sendable {
    let auction: Auction
    let configuration: PlacementConfiguration

    init(auction: Auction, configuration: PlacementConfiguration) {
        self.auction = auction
        self.configuration = configuration
    }
}

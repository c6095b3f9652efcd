/// The engine a host app embeds: built from a configuration and one adapter per network, it
/// owns one ``Placement`` controller per placement id, the app's foreground state, and the
/// event stream.
///
/// ```swift
/// let engine = MediationEngine(configuration: config, adapters: adapters, clock: SystemClock())
/// let banner = engine.placement("home_banner")
/// let view = await banner?.attachView(visible: true)   // loads, then refreshes while seen
/// for await event in engine.events() { … }
/// ```
public final class MediationEngine: Sendable {
    private struct State {
        var placements: [String: Placement] = [:]
        var foreground = true
        var foregroundSequence: UInt64 = 0
        var template: RequestTemplate
    }

    /// The configuration.
    public let configuration: MediationConfiguration
    /// The clock every auction, refresh and expiry runs on.
    public let clock: any MediationClock
    /// Where log lines go.
    public let logger: any MediationLogger
    private let adapters: [String: any AdNetworkAdapter]
    private let hostContext: @Sendable (String) -> HostContext
    private let eventHub: EventHub
    private let state: Locked<State>

    /// Creates an engine.
    /// - Parameters:
    ///   - configuration: the loaded configuration (networks, placements, currency rates).
    ///   - adapters: one adapter per network, by the config's network id (e.g. `"elo"`). A
    ///     source whose network has none is left out of its auctions, with a warning.
    ///   - clock: the clock (``SystemClock`` in apps, ``ManualClock`` in tests and `--fast`).
    ///   - logger: where log lines go.
    ///   - requestTemplate: the screen, device, app and privacy signals of every request.
    ///   - hostContext: given a placement id, the conversation and screen context for its next
    ///     request, unless the placement was given its own (``Placement/setHostContext(_:)``).
    ///   - onEvent: called synchronously for every event, in order; it must not block.
    public init(
        configuration: MediationConfiguration,
        adapters: [String: any AdNetworkAdapter],
        clock: any MediationClock = SystemClock(),
        logger: any MediationLogger = SilentLogger(),
        requestTemplate: RequestTemplate = RequestTemplate(),
        hostContext: @escaping @Sendable (String) -> HostContext = { _ in HostContext() },
        onEvent: (@Sendable (MediationEvent) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.adapters = adapters
        self.clock = clock
        self.logger = logger
        self.hostContext = hostContext
        eventHub = EventHub(handler: onEvent)
        state = Locked(State(template: requestTemplate))
    }

    /// A new stream of every event from now on, in order (buffering the newest 10,000 for a
    /// slow consumer). Each call makes an independent stream.
    public func events() -> AsyncStream<MediationEvent> {
        eventHub.stream()
    }

    /// The one controller of placement `id`, made on first use (a destroyed one is replaced by
    /// a new one).
    /// - Parameter id: the placement id, e.g. `"home_banner"`.
    /// - Returns: the controller, or `nil` when the configuration has no such placement.
    public func placement(_ id: String) -> Placement? {
        guard let placementConfiguration = configuration.placement(id) else { return nil }
        let (auction, missing) = makeAuction(placementConfiguration)
        let (placement, created): (Placement, Bool) = state.withLock { state in
            if let existing = state.placements[id] { return (existing, false) }
            let placement = makePlacement(placementConfiguration, auction: auction, foreground: state.foreground)
            state.placements[id] = placement
            return (placement, true)
        }
        if created { warnAboutMissingAdapters(missing, placementID: id) }
        return placement
    }

    /// Runs one auction for `placementID` outside any placement's life cycle (the CLI's one-shot
    /// mode). The winner's ad belongs to the caller, who must show it or release it.
    /// - Parameters:
    ///   - placementID: the placement whose sources take part.
    ///   - request: the request; `nil` builds one from the template and the host context.
    /// - Returns: the outcome, or `nil` when the configuration has no such placement.
    public func runAuction(placementID: String, request: AdRequest? = nil) async -> AuctionOutcome? {
        guard let placementConfiguration = configuration.placement(placementID) else { return nil }
        let (auction, missing) = makeAuction(placementConfiguration)
        warnAboutMissingAdapters(missing, placementID: placementID)
        let start = clock.now
        let request = request ?? makeRequest(placementConfiguration, slot: placementConfiguration.slot, context: nil, at: start)
        let events = eventHub
        events.emit(.auctionStarted(placementID: placementID, reason: .oneShot, at: start))
        let outcome = await auction.run(request: request, excluding: []) { late in
            events.emit(.lateAnswer(late))
        }
        events.emit(.auctionFinished(placementID: placementID, trace: outcome.trace, at: clock.now))
        return outcome
    }

    /// Whether the app is in the foreground (the default).
    public var isForeground: Bool { state.withLock { $0.foreground } }

    /// Records the app moving to the foreground or background and tells every placement:
    /// refresh counts freeze in the background (R13).
    /// - Parameter foreground: whether the app is now in the foreground.
    public func setForeground(_ foreground: Bool) async {
        let (placements, sequence) = state.withLock { state in
            state.foreground = foreground
            state.foregroundSequence += 1
            return (Array(state.placements.values), state.foregroundSequence)
        }
        for placement in placements {
            await placement.setForeground(foreground, sequence: sequence)
        }
    }

    /// Replaces the request template (e.g. after the user answered a consent prompt); it
    /// applies from the next auction.
    /// - Parameter template: the new template.
    public func updateRequestTemplate(_ template: RequestTemplate) {
        state.withLock { $0.template = template }
    }

    // MARK: - Building

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

    /// The placement's auction, and the line items left out because their network has no adapter.
    private func makeAuction(_ placementConfiguration: PlacementConfiguration) -> (Auction, [LineItem]) {
        var sources: [AuctionSource] = []
        var missing: [LineItem] = []
        for lineItem in placementConfiguration.sources {
            guard let adapter = adapters[lineItem.network] else {
                missing.append(lineItem)
                continue
            }
            sources.append(AuctionSource(lineItem: lineItem, adapter: adapter))
        }
        return (Auction(placement: placementConfiguration, sources: sources, clock: clock), missing)
    }

    private func warnAboutMissingAdapters(_ missing: [LineItem], placementID: String) {
        for lineItem in missing {
            logger.warning("no adapter for network \(lineItem.network); line item \(lineItem.id) is left out", source: "placement.\(placementID)")
        }
    }

    private func makeRequest(_ placementConfiguration: PlacementConfiguration, slot: SlotSize, context: HostContext?, at start: MediationInstant) -> AdRequest {
        let template = state.withLock { $0.template }
        return template.request(for: placementConfiguration, slot: slot, context: context ?? hostContext(placementConfiguration.id), at: start)
    }
}

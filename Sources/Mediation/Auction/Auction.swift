/// One source of an auction: its line item and the adapter that speaks to its network.
package struct AuctionSource: Sendable {
    /// The line item (id, network, pricing, eCPM, floor, timeout).
    package var lineItem: LineItem
    /// The network's adapter.
    package var adapter: any AdNetworkAdapter
    /// The network's `timeout_ms`, if any (R3a).
    package var networkTimeout: Duration?
    /// Whether the network's endpoint is its in-process sandbox.
    package var usesSandbox: Bool
    /// Whether the network serves inline banners (``NetworkAdapterFactory/servesInlineBanners``);
    /// when not, an inline banner auction asks it for its anchored adaptive banner.
    package var servesInlineBanners: Bool
    /// Its network's health settings (R24; they apply when the runner has a health monitor).
    package var health: NetworkHealthSettings
    /// Whether the line item keeps a health of its own beside its network's (R24): set when
    /// its network has other line items in the configuration. A network's only line item has
    /// none: its verdicts are its network's, so its own machine could never open.
    package var lineItemHealth: Bool
    /// Whether its adapter hears notices (``AdNetworkAdapter/receivesAuctionNotices``, read
    /// once here): when not, auctions build none for it.
    package var receivesNotices: Bool

    /// Pairs a line item with its adapter.
    package init(lineItem: LineItem, adapter: any AdNetworkAdapter, networkTimeout: Duration? = nil, usesSandbox: Bool = false, servesInlineBanners: Bool = true, health: NetworkHealthSettings = .standard, lineItemHealth: Bool = true) {
        self.health = health
        self.lineItemHealth = lineItemHealth
        self.lineItem = lineItem
        self.adapter = adapter
        receivesNotices = adapter.receivesAuctionNotices
        self.networkTimeout = networkTimeout
        self.usesSandbox = usesSandbox
        self.servesInlineBanners = servesInlineBanners
    }
}

/// Runs auctions for one placement: races its sources under the deadline by engine rules R1
/// to R9 and returns the winner with a trace.
///
/// ``MediationEngine`` keeps one runner per placement and reuses it: its auctions share one
/// timer task on the clock and one auction-id stream, and start from a prepared state machine.
/// Copies share them too; changing ``placement``, ``sources`` or ``clock`` rebuilds what
/// depends on it. Hosts get auctions through ``MediationEngine/runAuction(placementID:context:)``
/// and placements.
package struct Auction: Sendable {
    /// The placement.
    package var placement: MediationConfiguration.Placement {
        didSet { routes = makeRoutes() }
    }
    /// Its sources, in config order.
    package var sources: [AuctionSource] {
        didSet { routes = makeRoutes() }
    }
    /// The clock.
    package var clock: any MediationClock {
        didSet { timer = AuctionTimer(clock: clock) }
    }
    /// The wall clock that stamps each trace's `started_at` (``MediationEnvironment/wallClock``).
    package var wallClock: @Sendable () -> WallClockTime
    /// The `config_version` of the configuration this runner was built from, named by every
    /// trace (R22).
    package var configVersion: Int {
        didSet { routes = makeRoutes() }
    }
    /// Where the warnings adapters log for a source are filed (the engine's, from its
    /// ``AttributingLogger``, when the host gave a logger); each is put on the source's trace
    /// line. With it, or with ``attributesSources``, each adapter call runs with its
    /// ``SourceAttribution`` set; with neither the auction pays nothing for it.
    package var adapterWarnings: AdapterWarnings?
    /// Whether each adapter call runs with its ``SourceAttribution`` set for debug recording
    /// (``MediationEnvironment/exchangeRecorder``).
    package var attributesSources = false
    /// The engine's network health (R24): paused networks are not asked, and each auction's
    /// signals go to it; `nil` (a runner outside an engine) asks every network.
    var health: NetworkHealthMonitor? {
        didSet { routes = makeRoutes() }
    }
    /// An experiment variant's override, applied after the segment's to every route (`nil`
    /// outside experiments).
    var variantOverride: MediationConfiguration.PlacementOverride? {
        didSet { routes = makeRoutes() }
    }
    /// One timer task for all of this runner's auctions (see ``AuctionTimer``).
    private var timer: AuctionTimer
    private var auctionIDs = AuctionIDGenerator()
    /// Per segment and country, the placement, sources, prepared machine (each auction starts
    /// from a copy) and health plan an auction runs under; ``AuctionRoutes/base`` is the
    /// placement as configured.
    private var routes: AuctionRoutes
    /// The line items with a health of their own among its sources (R24).
    var healthLineItems: [HealthSubject] { routes.base.healthPlan?.lineItems.map(\.subject) ?? [] }

    /// Creates an auction runner.
    package init(placement: MediationConfiguration.Placement, sources: [AuctionSource], clock: any MediationClock, wallClock: @escaping @Sendable () -> WallClockTime = WallClockTime.systemNow, configVersion: Int = 0) {
        self.wallClock = wallClock
        self.placement = placement
        self.sources = sources
        self.clock = clock
        self.configVersion = configVersion
        timer = AuctionTimer(clock: clock)
        routes = Auction.routes(placement: placement, sources: sources, configVersion: configVersion, health: nil)
    }

    /// The routes of this runner's placement and sources.
    private func makeRoutes() -> AuctionRoutes {
        Auction.routes(placement: placement, sources: sources, configVersion: configVersion, health: health, variantOverride: variantOverride)
    }

    /// The routes of `placement` (each segment's form, each country's prices), each with its
    /// machine and health plan.
    private static func routes(placement: MediationConfiguration.Placement, sources: [AuctionSource], configVersion: Int, health: NetworkHealthMonitor?, variantOverride: MediationConfiguration.PlacementOverride? = nil) -> AuctionRoutes {
        AuctionRoutes(placement: placement, sources: sources, variantOverride: variantOverride) { placement, sources in
            AuctionRoute(
                placement: placement,
                sources: sources,
                machine: Auction.machine(placement: placement, sources: sources, configVersion: configVersion),
                healthPlan: health.map { NetworkHealthMonitor.Plan(sources, placementID: placement.id, on: $0) },
                sendsNotices: sources.contains { $0.receivesNotices }
            )
        }
    }

    /// The placement's form an auction for `audience` runs under (its segment's and this
    /// runner's variant's overrides applied): the caps and pacing that bind it (`docs/caps.md`).
    func placement(for audience: Audience) -> MediationConfiguration.Placement {
        routes.route(for: audience).route.placement
    }

    /// The placement's form in the segment with id `segment` (`nil`: the configured form).
    func placement(segment: String?) -> MediationConfiguration.Placement {
        routes.placement(segment: segment)
    }

    /// Makes this runner's auction ids follow from `seed` (``MediationEnvironment/auctionIDSeed``).
    /// - Parameter seed: the seed.
    mutating func seedAuctionIDs(_ seed: UInt64) {
        auctionIDs = AuctionIDGenerator(seed: seed)
    }

    /// A machine for `sources` of `placement`, with their networks' timeouts and the
    /// `sandbox_endpoint` warning when some of their networks use a sandbox.
    private static func machine(placement: MediationConfiguration.Placement, sources: [AuctionSource], configVersion: Int, fixedPrices: [Double?]? = nil) -> AuctionStateMachine {
        var sandboxNetworks: [String] = []
        var seen = Set<String>()
        for source in sources where source.usesSandbox && seen.insert(source.lineItem.network).inserted {
            sandboxNetworks.append(source.lineItem.network)
        }
        return AuctionStateMachine(
            placement: placement,
            sources: sources.map(\.lineItem),
            networkTimeouts: sources.map(\.networkTimeout),
            warnings: sandboxNetworks.isEmpty ? [] : [.sandboxEndpoint(sandboxNetworks)],
            configVersion: configVersion,
            fixedPrices: fixedPrices
        )
    }

    /// Runs one auction for `request` (engine rules R1 to R9).
    ///
    /// Every eligible source is asked (parallel mode) or asked by tier (waterfall mode); the
    /// answer comes as soon as the outcome is decided, and never later than the placement's
    /// deadline (at most 3000 ms from the start), even if an adapter ignores cancellation and
    /// never returns. Losing ads are released before this returns; ads that arrive later are
    /// released on arrival and reported to `onLateAnswer`.
    ///
    /// Cancelling the calling task ends the auction at once with no winner; every ad it
    /// holds is released.
    /// - Parameters:
    ///   - request: the placement's request; each source gets a copy with its own ad unit id
    ///     and deadline.
    ///   - excludedLineItems: line item ids to leave out of this auction (e.g. a source whose
    ///     creative just failed to render).
    ///   - capped: line items a cap keeps out of this auction (`not_asked`, `capped`), by id,
    ///     with when each cap frees (`docs/caps.md`).
    ///   - onLateAnswer: called once for each answer that arrives after the source's outcome
    ///     was decided (its ad already released).
    /// - Returns: the winner, if any, and the trace.
    package func run(
        request: AdRequest,
        excluding excludedLineItems: Set<String> = [],
        capped: [String: CapRefusal] = [:],
        onLateAnswer: (@Sendable (MediationEvent.LateAnswer) -> Void)? = nil
    ) async -> MediationEngine.AuctionOutcome {
        await run(request: request, choice: choice(for: request), excluding: excludedLineItems, capped: capped, onLateAnswer: onLateAnswer)
    }

    /// What an auction of `request` runs under: the route its audience's segment and country
    /// choose (prepared at load), and who it runs for. Chosen before the auction's
    /// `auction_started`, which carries the country and segment.
    struct Choice: Sendable {
        /// The placement's form for this audience, with its sources and prepared machine.
        var route: AuctionRoute
        /// The country and segment (with why), for the trace and the events; `nil` when the
        /// auction has neither.
        var audience: AuctionTrace.AudienceLabel?
    }

    /// The route and audience label of an auction of `request` (``Choice``).
    /// - Parameter request: the auction's request (its signals' resolved audience).
    func choice(for request: AdRequest) -> Choice {
        let audience = request.signals.resolvedAudience
        let (route, segment) = routes.route(for: audience)
        guard audience.country != nil || segment != nil else { return Choice(route: route, audience: nil) }
        // The reason text is made when the trace is read, from the choice kept here.
        let label = segment.map { AuctionTrace.AudienceLabel(country: audience.country, choice: SegmentChoice(segments: routes.segments, index: $0, signals: request.signals)) }
        return Choice(route: route, audience: label ?? AuctionTrace.AudienceLabel(country: audience.country, segment: nil, segmentReason: nil))
    }

    /// ``run(request:excluding:capped:onLateAnswer:)`` under `choice` (made by
    /// ``choice(for:)`` for the same request, before the auction's start was published).
    func run(
        request: AdRequest,
        choice: Choice,
        excluding excludedLineItems: Set<String> = [],
        capped: [String: CapRefusal] = [:],
        onLateAnswer: (@Sendable (MediationEvent.LateAnswer) -> Void)? = nil
    ) async -> MediationEngine.AuctionOutcome {
        let included: [AuctionSource]
        var machine: AuctionStateMachine
        let auctionID = auctionIDs.next()
        // The route's fields are read in place (its placement is not copied per auction).
        let route = choice.route
        let sources = route.sources
        if excludedLineItems.isEmpty, route.placement.exploration == .off {
            included = sources
            machine = route.machine
        } else {
            included = excludedLineItems.isEmpty ? sources : sources.filter { !excludedLineItems.contains($0.lineItem.id) }
            // R23: an exploring placement values its fixed-price sources by this auction's draws.
            let prices = route.placement.exploration == .thompson ? ExplorationDraw.prices(of: included.map(\.lineItem), placementFloorUSD: route.placement.floor, auctionID: auctionID) : nil
            machine = Auction.machine(placement: route.placement, sources: included, configVersion: configVersion, fixedPrices: prices)
        }
        // R24: one admission per network per auction, however many line items it has, then
        // one per line item of each network asked.
        let plan = health.flatMap { health in excludedLineItems.isEmpty ? route.healthPlan : NetworkHealthMonitor.Plan(included, placementID: route.placement.id, on: health) }
        if let audience = choice.audience { machine.audience = audience }
        let run = AuctionRun(
            auctionID: auctionID,
            placementID: route.placement.id,
            machine: machine,
            sources: included,
            request: request,
            clock: clock,
            timer: timer,
            wallClock: wallClock,
            attributesSources: attributesSources,
            adapterWarnings: adapterWarnings,
            sendsNotices: route.sendsNotices,
            preparedMachine: excludedLineItems.isEmpty && route.placement.exploration == .off,
            onLateAnswer: onLateAnswer
        )
        // The run hears of a pause of one of its networks while it runs (it stops waiting for
        // their sources); a network paused already is not asked.
        if !capped.isEmpty {
            run.capped(included.indices.compactMap { index in capped[included[index].lineItem.id].map { (index, $0.retryAt) } })
        }
        let ticket = health.flatMap { health in plan.map { health.admit($0, listener: run, at: clock.now) } }
        if let ticket, !ticket.paused.isEmpty {
            for (index, retryAt) in ticket.paused { run.networkPaused(sourcesAt: [index], until: retryAt) }
        }
        var outcome = await run.outcome()
        if let health, let plan, let ticket {
            health.record(outcome.trace, plan: plan, ticket: ticket, at: clock.now)
        }
        // A segment's or variant's own refresh_seconds; the placement's own is read from the
        // configuration in force when the ad arrives (a newer one may have changed it, R22).
        let refreshSeconds = route.placement.refreshSeconds
        outcome.refreshSeconds = refreshSeconds == self.placement.refreshSeconds ? nil : refreshSeconds
        return outcome
    }
}

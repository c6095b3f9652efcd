import Mediation

/// The engine's networks and auctions, built from a loaded configuration: one adapter per
/// network (by its adapter kind's factory) and, per placement, an ``Auction`` whose sources are
/// the placement's line items, each paired with its network's adapter, in config order.
///
/// A network whose endpoint is `sandbox` gets an adapter that talks to that network's
/// in-process sandbox server; each factory decides how (see the network's folder).
///
/// ```swift
/// let configuration = try ConfigurationLoader(adapterPricing: AdapterRegistry.standard.pricingByKind)
///     .load(contentsOf: URL(fileURLWithPath: "Config/mediation.json"))
/// let auctions = try ConfiguredAuctions(configuration: configuration, environment: AdapterEnvironment())
/// if let auction = auctions.auction(for: "home_banner"), let request = auctions.request(for: "home_banner") {
///     let outcome = await auction.run(request: request)
/// }
/// ```
public struct ConfiguredAuctions: Sendable {
    /// The configuration the auctions come from.
    public let configuration: MediationConfiguration
    /// One adapter per network, by network id.
    public let adapters: [String: any AdNetworkAdapter]
    /// The clock the auctions and adapters run on (the environment's).
    public let clock: any MediationClock

    /// Builds every network's adapter.
    /// - Parameters:
    ///   - configuration: a configuration from ``ConfigurationLoader``.
    ///   - registry: the adapter factories by kind (default: every network this package ships).
    ///   - environment: clock, logger, seed, transport handed to each factory.
    /// - Throws: ``AdapterConfigurationError`` naming the JSON path (e.g.
    ///   `networks.admob.options.fill_rate`) when a factory rejects its network, or
    ///   `networks.<id>.adapter` when the registry has no factory for the kind.
    public init(configuration: MediationConfiguration, registry: AdapterRegistry = .standard, environment: AdapterEnvironment) throws(AdapterConfigurationError) {
        var adapters: [String: any AdNetworkAdapter] = [:]
        for network in configuration.networks {
            guard let factory = registry.factories[network.adapter] else {
                throw AdapterConfigurationError(path: "networks.\(network.id).adapter", message: "no adapter of kind \"\(network.adapter)\" in this build")
            }
            adapters[network.id] = try factory.makeAdapter(for: network, environment: environment)
        }
        self.configuration = configuration
        self.adapters = adapters
        self.clock = environment.clock
    }

    /// The auction of `placementID`, or `nil` when the configuration has no such placement.
    /// - Parameter placementID: a key of the config's `placements`.
    /// - Returns: an auction whose sources are the placement's line items in config order.
    public func auction(for placementID: String) -> Auction? {
        guard let placement = configuration.placement(placementID) else { return nil }
        var sources: [AuctionSource] = []
        for lineItem in placement.sources {
            // The loader guarantees every source names a configured network, and `init`
            // built an adapter for every network.
            guard let adapter = adapters[lineItem.network] else { continue }
            sources.append(AuctionSource(lineItem: lineItem, adapter: adapter))
        }
        return Auction(placement: placement, sources: sources, clock: clock)
    }

    /// A request for `placementID` with the placement's format, sizing and slot, and the
    /// host's signals; the auction fills in each source's ad unit id and deadline.
    /// - Parameters:
    ///   - placementID: a key of the config's `placements`.
    ///   - context: the conversation and screen context.
    ///   - screen: the device's screen (points and scale).
    ///   - device: device signals.
    ///   - app: the host app.
    ///   - privacy: privacy signals.
    /// - Returns: the request, or `nil` when the configuration has no such placement. Its
    ///   ``AdRequest/deadline`` is the placement's deadline from now on the clock.
    public func request(
        for placementID: String,
        context: HostContext = HostContext(),
        screen: ScreenInfo = .phone,
        device: DeviceInfo = DeviceInfo(),
        app: AppInfo = AppInfo(),
        privacy: PrivacySignals = PrivacySignals()
    ) -> AdRequest? {
        guard let placement = configuration.placement(placementID) else { return nil }
        return AdRequest(
            placementID: placement.id,
            format: placement.format,
            bannerSizing: placement.bannerSizing,
            slot: placement.slot,
            screen: screen,
            context: context,
            device: device,
            app: app,
            privacy: privacy,
            deadline: clock.now + placement.deadline,
            timeBudget: placement.deadline
        )
    }
}

/// Builds the adapter of one kind of network from its configuration: the one place a network
/// states its config name, its pricing and its options.
///
/// A host adds a network by writing its adapter, its ad, its factory, and registering the
/// factory once (``NetworkRegistry/registering(_:)``); nothing else in the engine changes.
///
/// Contract for implementers:
/// - ``kind`` is unique in a registry and is what the config's `networks.<id>.adapter` says.
/// - ``pricing`` is the same for every network of the kind: bidders' sources take no `ecpm`,
///   fixed-price sources must have one.
/// - ``makeAdapter(for:environment:)`` validates every credential and option and throws a
///   ``ConfigurationError`` whose ``ConfigurationError/path`` names the JSON path of the first
///   mistake (e.g. `networks.elo.credentials.publisher_id`). It sends nothing over the network.
/// - ``validate(_:in:network:)`` (optional) says whether a line item could ever fill its
///   placement (engine rule R19): the network's formats, the slot's bounds, its options. The
///   engine calls it for every line item when it is built, so `mediate validate` rejects a
///   configuration that can never fill. ``warnings(for:)`` (optional) lists what the factory
///   clamps or ignores in a network's configuration.
public protocol NetworkAdapterFactory: Sendable {
    /// The config's `adapter` value, e.g. `"elo"`.
    var kind: String { get }
    /// How this network's sources are priced.
    var pricing: LineItem.Pricing { get }
    /// Whether this network serves inline banners (the biggest ad that fits the slot's width
    /// and max height). A network that has only anchored banners says `false`: an inline
    /// banner placement then asks each of its sources for the anchored adaptive banner of the
    /// slot's width (Qartvelo document: "adapters without createInlineBanner get their
    /// anchored banner"): the request's ``AdRequest/bannerSizing`` is `.anchored` and its slot
    /// the anchored adaptive size, `floor(width x 50 / 320)` pt within 50...90 pt and 15% of the
    /// screen, at the slot's width (the screen's when unbounded); the source's trace line
    /// carries the warning `anchored_for_inline`, and the auction still checks the ad against
    /// the placement's own slot (R8). A placement whose max height is under 50 pt can never
    /// take such a banner: loading the configuration rejects the source (R19). Default: `true`.
    var servesInlineBanners: Bool { get }

    /// Builds the adapter of one configured network.
    /// - Parameters:
    ///   - network: the network's configuration (id, credentials, endpoint, timeout, options).
    ///   - environment: the clock, logger, seed, HTTP transport and storage the host supplies.
    /// - Returns: the adapter, shared by every source of the network.
    /// - Throws: ``ConfigurationError`` naming the JSON path of a missing, unknown or invalid
    ///   credential, option or endpoint.
    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter

    /// Whether `lineItem` could ever fill `placement` with this network (engine rule R19).
    /// Called once per line item when the engine is built, after ``makeAdapter(for:environment:)``
    /// accepted the network. An error names the JSON path of the source
    /// (``MediationConfiguration/Placement/path(of:)``, e.g. `placements.level_end.sources[0]`) or
    /// of a field inside it. Must be cheap and must not send anything. Default:
    /// ``LineItem/Validation/valid``.
    /// - Parameters:
    ///   - lineItem: the line item.
    ///   - placement: its placement (format, sizing, slot).
    ///   - network: its network's configuration (endpoint, options).
    /// - Returns: the errors (it can never fill) and warnings.
    func validate(_ lineItem: LineItem, in placement: MediationConfiguration.Placement, network: MediationConfiguration.Network) -> LineItem.Validation

    /// What this factory clamps or ignores in `network`'s configuration (engine rule R19), each
    /// warning naming its JSON path (e.g. `networks.elo.options.geo_precision`). Called once per
    /// network when the engine is built. Default: none.
    /// - Parameter network: the network's configuration.
    func warnings(for network: MediationConfiguration.Network) -> [MediationConfiguration.Warning]
}

extension NetworkAdapterFactory {
    /// Serves inline banners.
    public var servesInlineBanners: Bool { true }

    /// Every line item may fill.
    public func validate(_ lineItem: LineItem, in placement: MediationConfiguration.Placement, network: MediationConfiguration.Network) -> LineItem.Validation {
        .valid
    }

    /// No warnings.
    public func warnings(for network: MediationConfiguration.Network) -> [MediationConfiguration.Warning] {
        []
    }
}

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
public protocol NetworkAdapterFactory: Sendable {
    /// The config's `adapter` value, e.g. `"elo"`.
    var kind: String { get }
    /// How this network's sources are priced.
    var pricing: AdSourcePricing { get }

    /// Builds the adapter of one configured network.
    /// - Parameters:
    ///   - network: the network's configuration (id, credentials, endpoint, timeout, options).
    ///   - environment: the clock, logger, seed, HTTP transport and storage the host supplies.
    /// - Returns: the adapter, shared by every source of the network.
    /// - Throws: ``ConfigurationError`` naming the JSON path of a missing, unknown or invalid
    ///   credential, option or endpoint.
    func makeAdapter(for network: NetworkConfiguration, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter
}

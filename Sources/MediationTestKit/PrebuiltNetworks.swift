import Mediation

/// Networks whose adapters are built beforehand (scripted adapters, simulated networks), made
/// into the registry and the `networks` part of a configuration, so a test, a simulation or a
/// benchmark builds its ``MediationEngine`` the one way a host does.
///
/// ```swift
/// var networks = PrebuiltNetworks()
/// networks.add("bid", pricing: .bidder, adapter: bidAdapter)
/// networks.add("neta", pricing: .fixedPrice, adapter: netAAdapter)
/// let engine = try MediationEngine(configuration: networks.configuration(placements: [levelEnd]),
///                                  registry: networks.registry,
///                                  environment: MediationEnvironment(clock: clock))
/// ```
/// Each network gets a kind of its own, `prebuilt.<id>`, whose factory hands out its adapter.
public struct PrebuiltNetworks: Sendable {
    /// The registry with one kind per network.
    public private(set) var registry = NetworkRegistry()
    /// The networks, in the order they were added.
    public private(set) var networks: [MediationConfiguration.Network] = []

    /// Creates an empty set.
    public init() {}

    /// Adds network `id`, served by `adapter` and priced by `pricing`. Adding an id again
    /// replaces it.
    /// - Parameters:
    ///   - id: the network id line items name.
    ///   - pricing: bidder or fixed price.
    ///   - adapter: the adapter every source of the network uses.
    ///   - timeout: the network's `timeout_ms`, if any.
    ///   - servesInlineBanners: whether the network serves inline banners
    ///     (``NetworkAdapterFactory/servesInlineBanners``, default `true`).
    public mutating func add(_ id: String, pricing: LineItem.Pricing, adapter: any AdNetworkAdapter, timeout: Duration? = nil, servesInlineBanners: Bool = true) {
        add(id, pricing: pricing, adapter: adapter, timeout: timeout, servesInlineBanners: servesInlineBanners, health: .standard)
    }

    /// Adds network `id` with its own health settings (R24); see
    /// ``add(_:pricing:adapter:timeout:servesInlineBanners:)``.
    package mutating func add(_ id: String, pricing: LineItem.Pricing, adapter: any AdNetworkAdapter, timeout: Duration? = nil, servesInlineBanners: Bool = true, health: NetworkHealthSettings) {
        let kind = "prebuilt.\(id)"
        registry.register(Factory(kind: kind, pricing: pricing, adapter: adapter, servesInlineBanners: servesInlineBanners))
        networks.removeAll { $0.id == id }
        networks.append(MediationConfiguration.Network(id: id, adapter: kind, timeout: timeout, health: health))
    }

    /// A configuration of `placements` over these networks.
    /// - Parameters:
    ///   - placements: the placements; their line items name these networks.
    ///   - currencyRates: USD per unit of each other currency a line item uses.
    public func configuration(placements: [MediationConfiguration.Placement], currencyRates: [String: Double] = [:]) -> MediationConfiguration {
        MediationConfiguration(networks: networks, placements: placements, currencyRates: currencyRates)
    }

    private struct Factory: NetworkAdapterFactory {
        let kind: String
        let pricing: LineItem.Pricing
        let adapter: any AdNetworkAdapter
        let servesInlineBanners: Bool

        func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
            adapter
        }
    }
}

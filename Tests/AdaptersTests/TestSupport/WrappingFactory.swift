import Mediation

/// A network kind that builds its adapters with `inner` and hands each one to `wrap`, which
/// returns the adapter the engine gets: the same one (kept or counted by the test) or one that
/// forwards to it.
struct WrappingFactory: NetworkAdapterFactory {
    /// What `wrap` is given: the network's id, the adapter `inner` built and the environment.
    typealias Wrap = @Sendable (_ network: String, _ adapter: any AdNetworkAdapter, _ environment: MediationEnvironment) -> any AdNetworkAdapter

    let inner: any NetworkAdapterFactory
    let wrap: Wrap

    var kind: String { inner.kind }
    var pricing: LineItem.Pricing { inner.pricing }

    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        wrap(network.id, try inner.makeAdapter(for: network, environment: environment), environment)
    }
}

extension NetworkRegistry {
    /// This registry with every kind's factory wrapped by `wrap` (see `WrappingFactory`).
    func wrappingAdapters(_ wrap: @escaping WrappingFactory.Wrap) -> NetworkRegistry {
        NetworkRegistry(kinds.compactMap { factory(forKind: $0) }.map { WrappingFactory(inner: $0, wrap: wrap) })
    }
}

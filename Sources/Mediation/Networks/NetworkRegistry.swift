/// The network kinds an engine can build, by their config name (`networks.<id>.adapter`).
///
/// The standard networks come as `NetworkRegistry.standard` from the `Adapters` library; a
/// host adds its own with ``registering(_:)``:
/// ```swift
/// let registry = NetworkRegistry.standard.registering(HouseAdsFactory())
/// let engine = try MediationEngine(contentsOf: configURL, registry: registry)
/// ```
public struct NetworkRegistry: Sendable {
    private var factoriesByKind: [String: any NetworkAdapterFactory]

    /// Creates a registry. When two factories share a kind, the later one is kept.
    /// - Parameter factories: the factories.
    public init(_ factories: [any NetworkAdapterFactory] = []) {
        factoriesByKind = [:]
        for factory in factories { factoriesByKind[factory.kind] = factory }
    }

    /// The factory of `kind`, if registered.
    /// - Parameter kind: a config `adapter` value, e.g. `"nitx"`.
    public func factory(forKind kind: String) -> (any NetworkAdapterFactory)? {
        factoriesByKind[kind]
    }

    /// The pricing of `kind`, if registered.
    /// - Parameter kind: a config `adapter` value.
    public func pricing(forKind kind: String) -> LineItem.Pricing? {
        factoriesByKind[kind]?.pricing
    }

    /// Every registered kind, sorted.
    public var kinds: [String] { factoriesByKind.keys.sorted() }

    /// Adds `factory`, replacing a factory of the same kind.
    /// - Parameter factory: the factory.
    public mutating func register(_ factory: any NetworkAdapterFactory) {
        factoriesByKind[factory.kind] = factory
    }

    /// A copy of this registry with `factory` added (replacing one of the same kind).
    /// - Parameter factory: the factory.
    /// - Returns: the new registry.
    public func registering(_ factory: any NetworkAdapterFactory) -> NetworkRegistry {
        var copy = self
        copy.register(factory)
        return copy
    }
}

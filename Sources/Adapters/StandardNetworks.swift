import Mediation

/// The network kinds this library ships, in the order `mediate networks` lists them: the
/// AdMob-like `fallback`, `elo`, `nitx` and `qartvelo`. Each states its config name and its
/// pricing once, in its factory.
public let standardNetworks: [any NetworkAdapterFactory] = [
    FallbackAdapterFactory(),
    EloAdapterFactory(),
    NitxAdapterFactory(),
    QartveloAdapterFactory(),
]

extension NetworkRegistry {
    /// Every network kind this library ships (``standardNetworks``). Add a host's own with
    /// `NetworkRegistry.standard.registering(MyNetworkFactory())`.
    public static let standard = NetworkRegistry(standardNetworks)
}

import Foundation
import Mediation

/// What an adapter needs from its host when the engine builds it from the configuration.
public struct AdapterEnvironment: Sendable {
    /// The engine's clock.
    public var clock: any MediationClock
    /// Where log lines go.
    public var logger: any MediationLogger
    /// The seed for anything random in sandboxes and the fallback network, so runs repeat.
    public var seed: UInt64
    /// The transport for networks whose endpoint is a URL (one long-lived session).
    public var liveTransport: any HTTPTransport
    /// Simulated network latency of sandbox servers.
    public var sandboxLatency: Duration
    /// A directory where adapters may persist state (identity, consent, last-shown times);
    /// `nil` keeps it in memory.
    public var storageDirectory: URL?

    /// Creates an environment.
    public init(
        clock: any MediationClock = SystemClock(),
        logger: any MediationLogger = SilentLogger(),
        seed: UInt64 = 1,
        liveTransport: any HTTPTransport = URLSessionTransport(),
        sandboxLatency: Duration = .zero,
        storageDirectory: URL? = nil
    ) {
        self.clock = clock
        self.logger = logger
        self.seed = seed
        self.liveTransport = liveTransport
        self.sandboxLatency = sandboxLatency
        self.storageDirectory = storageDirectory
    }
}

/// Builds the adapter of one network kind from its configuration.
public protocol NetworkAdapterFactory: Sendable {
    /// The config's `adapter` value, e.g. `"elo"`.
    var kind: String { get }
    /// How this network's sources are priced (bidders need no `ecpm`; fixed-price sources must have one).
    var pricing: AdSourcePricing { get }
    /// Builds the adapter.
    /// - Parameters:
    ///   - network: the network's configuration (credentials, endpoint, options).
    ///   - environment: clock, logger, seed, transport.
    /// - Throws: ``AdapterConfigurationError`` when credentials or options are wrong.
    func makeAdapter(for network: NetworkConfiguration, environment: AdapterEnvironment) throws(AdapterConfigurationError) -> any AdNetworkAdapter
}

/// A network's configuration is wrong: names the JSON path and what is wrong with it.
public struct AdapterConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The JSON path, e.g. `networks.elo.credentials.publisher_id`.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}

/// The adapter kinds this package ships, by their config name.
public struct AdapterRegistry: Sendable {
    /// The factories by kind.
    public var factories: [String: any NetworkAdapterFactory]

    /// Creates a registry from factories.
    public init(_ factories: [any NetworkAdapterFactory]) {
        var byKind: [String: any NetworkAdapterFactory] = [:]
        for factory in factories { byKind[factory.kind] = factory }
        self.factories = byKind
    }

    /// Every network this package ships.
    public static let standard = AdapterRegistry(standardFactories)

    /// The pricing of each kind, as the configuration loader needs it.
    public var pricingByKind: [String: AdSourcePricing] {
        factories.mapValues(\.pricing)
    }
}

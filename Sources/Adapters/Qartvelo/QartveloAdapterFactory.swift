import Foundation
import Mediation

/// Builds the Qartvelo adapter from the configuration (kind `"qartvelo"`, `fixed_price`).
///
/// Credentials: `app_id` (required, not empty): the app's Qartvelo registration id.
/// Endpoint: `sandbox` talks to ``QartveloSandboxServer`` in-process (host
/// `sandbox.qartvelo.test`, the environment's sandbox latency on its clock); a URL goes through
/// the environment's live transport. Options: see ``QartveloOptions``.
public struct QartveloAdapterFactory: NetworkAdapterFactory {
    /// Creates the factory.
    public init() {}

    /// `"qartvelo"`.
    public var kind: String { "qartvelo" }

    /// Qartvelo answers carry no price: ``AdSourcePricing/fixedPrice``.
    public var pricing: AdSourcePricing { .fixedPrice }

    /// Builds the adapter.
    /// - Throws: ``ConfigurationError`` for a missing or empty `app_id`
    ///   (`networks.<id>.credentials.app_id`), an unknown credential, or a bad option
    ///   (`networks.<id>.options.<key>`).
    public func makeAdapter(for network: NetworkConfiguration, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        let path = "networks.\(network.id)"
        for key in network.credentials.keys.sorted() where key != "app_id" {
            throw ConfigurationError(code: .unknownKey, path: "\(path).credentials.\(key)", message: "unknown Qartvelo credential")
        }
        guard let appID = network.credentials["app_id"], !appID.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ConfigurationError(code: .missingField, path: "\(path).credentials.app_id", message: "required: the app's Qartvelo registration id")
        }
        let options = try QartveloOptions(parsing: network.options, path: "\(path).options")
        let transport: any HTTPTransport
        let baseURL: URL
        switch network.endpoint {
        case .sandbox:
            guard let sandboxURL = QartveloSandboxServer.baseURL else {
                throw ConfigurationError(code: .invalidValue, path: "\(path).endpoint", message: "sandbox URL unavailable")
            }
            baseURL = sandboxURL
            transport = SandboxTransport(
                servers: [QartveloSandboxServer.host: QartveloSandboxServer(options: options)],
                clock: environment.clock,
                latency: environment.sandboxLatency
            )
        case .url(let url):
            baseURL = url
            transport = environment.transport ?? URLSessionTransport.shared
        }
        return QartveloAdapter(
            network: network.id,
            appID: appID,
            baseURL: baseURL,
            adaptive: options.adaptive,
            transport: transport,
            clock: environment.clock,
            logger: environment.logger,
            tracker: nil,
            idPrefix: "\(network.id)-\(environment.seed)"
        )
    }
}

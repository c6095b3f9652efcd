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

    /// Whether `lineItem` can ever fill (engine rule R19): Qartvelo serves banners only. An
    /// anchored banner is at least 50 pt high whatever the slot (the seed leaves its height
    /// free), so a `max_height` under 50 pt never fits; under 90 pt some screens' banners will
    /// not fit (a warning). An inline banner needs `max_height` of at least 32 pt (the loader
    /// checks it).
    /// - Returns: an `unfillable` error at the source's path, a `slot_may_not_fit` warning, or valid.
    public func validate(_ lineItem: LineItem, in placement: PlacementConfiguration, network: NetworkConfiguration) -> LineItemValidation {
        guard placement.format == .banner else {
            return .unfillable(at: placement.path(of: lineItem), "Qartvelo serves banners only; placement \(placement.id) is \(placement.format)")
        }
        guard placement.bannerSizing != .inline, let maxHeight = placement.slot.maxHeight else { return .valid }
        if maxHeight + 0.5 < 50 {
            return .unfillable(at: placement.path(of: lineItem), "an anchored Qartvelo banner is 50 to 90 pt high; slot.max_height \(maxHeight) pt never fits it")
        }
        if maxHeight + 0.5 < 90 {
            return LineItemValidation(warnings: [ConfigurationWarning(code: .slotMayNotFit, path: placement.path(of: lineItem), message: "an anchored Qartvelo banner is up to 90 pt high on wide screens; slot.max_height \(maxHeight) pt does not fit it there")])
        }
        return .valid
    }

    /// What the factory ignores: the sandbox options (`banner_refresh_seconds`,
    /// `sandbox_html5`, `sandbox_html5_bundle_bytes`) with a URL endpoint.
    public func warnings(for network: NetworkConfiguration) -> [ConfigurationWarning] {
        guard case .url = network.endpoint else { return [] }
        return ["banner_refresh_seconds", "sandbox_html5", "sandbox_html5_bundle_bytes"].filter { network.options[$0] != nil }.map { key in
            ConfigurationWarning(code: .optionIgnored, path: network.path(of: "options", key), message: "\(key) applies to the sandbox only; this network's endpoint is a URL")
        }
    }

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
            transport: environment.instrumented(transport, networkID: network.id),
            clock: environment.clock,
            logger: environment.logger,
            tracker: nil,
            idPrefix: "\(network.id)-\(environment.seed)"
        )
    }
}

import Foundation
import Mediation

/// Builds the Qartvelo adapter from the configuration (kind `"qartvelo"`, `fixed_price`).
///
/// Credentials: `app_id` (required, not empty): the app's Qartvelo registration id.
/// Endpoint: `sandbox` talks to ``QartveloSandboxServer`` in-process (host
/// `sandbox.qartvelo.test`, the environment's sandbox latency on its clock); a URL goes through
/// the environment's live transport. Options: see ``QartveloOptions``.
package struct QartveloAdapterFactory: NetworkAdapterFactory {
    /// Creates the factory.
    public init() {}

    /// `"qartvelo"`.
    public var kind: String { "qartvelo" }

    /// Qartvelo answers carry no price: ``LineItem/Pricing/fixedPrice``.
    public var pricing: LineItem.Pricing { .fixedPrice }

    /// Whether `lineItem` can ever fill (engine rule R19): Qartvelo serves banners only. An
    /// anchored banner is at least 50 pt high whatever the slot (the seed leaves its height
    /// free), so a `max_height` under 50 pt never fits; under 90 pt some screens' banners will
    /// not fit (a warning). An inline banner needs `max_height` of at least 32 pt (the loader
    /// checks it).
    /// - Returns: an `unfillable` error at the source's path, a `slot_may_not_fit` warning, or valid.
    public func validate(_ lineItem: LineItem, in placement: MediationConfiguration.Placement, network: MediationConfiguration.Network) -> LineItem.Validation {
        guard placement.format == .banner else {
            return .unfillable(at: placement.path(of: lineItem), "Qartvelo serves banners only; placement \(placement.id) is \(placement.format)")
        }
        guard placement.bannerSizing != .inline, let maxHeight = placement.slot.maxHeight else { return .valid }
        if maxHeight + 0.5 < 50 {
            return .unfillable(at: placement.path(of: lineItem), "an anchored Qartvelo banner is 50 to 90 pt high; slot.max_height \(DisplayText.number(maxHeight)) pt never fits it")
        }
        if maxHeight + 0.5 < 90 {
            return LineItem.Validation(warnings: [MediationConfiguration.Warning(code: .slotMayNotFit, path: placement.path(of: lineItem), message: "an anchored Qartvelo banner is up to 90 pt high on wide screens; slot.max_height \(DisplayText.number(maxHeight)) pt does not fit it there")])
        }
        return .valid
    }

    /// What the factory ignores: the sandbox options (`banner_refresh_seconds`,
    /// `sandbox_html5`, `sandbox_html5_bundle_bytes`) with a URL endpoint.
    public func warnings(for network: MediationConfiguration.Network) -> [MediationConfiguration.Warning] {
        (try? NetworkSettings(network, kind: kind, credentials: ["app_id"], options: QartveloOptions.keys))?
            .sandboxOnlyWarnings(["banner_refresh_seconds", "sandbox_html5", "sandbox_html5_bundle_bytes"]) ?? []
    }

    /// Builds the adapter.
    /// - Throws: ``ConfigurationError`` for a missing or empty `app_id`
    ///   (`networks.<id>.credentials.app_id`), an unknown credential, or a bad option
    ///   (`networks.<id>.options.<key>`).
    public func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        let settings = try NetworkSettings(network, kind: kind, credentials: ["app_id"], options: QartveloOptions.keys)
        let appID = try settings.requiredCredential("app_id", hint: "the app's Qartvelo registration id")
        let options = try QartveloOptions(settings)
        let connection = NetworkConnection(for: network, environment: environment, sandboxURL: QartveloSandboxServer.baseURL) {
            QartveloSandboxServer(options: options)
        }
        return QartveloAdapter(
            network: network.id,
            appID: appID,
            baseURL: connection.baseURL,
            adaptive: options.adaptive,
            transport: connection.transport,
            clock: environment.clock,
            logger: environment.logger,
            tracker: nil,
            idPrefix: "\(network.id)-\(environment.seed)"
        )
    }
}

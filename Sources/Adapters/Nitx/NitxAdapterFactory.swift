import Foundation
import Mediation

/// Builds Nitx adapters from the configuration (`"adapter": "nitx"`).
///
/// - credentials: `source_code` (required): the mobile source code, `SDK-AM-` followed by
///   letters, digits, `_` or `-`.
/// - options (all optional): `personalization` (bool, default true), `request_mode`
///   (`"auto"`, `"get"`, `"post"`, default auto), `bridge_tag` (string, e.g. `"rn-1.0.0"`),
///   `debug` (bool), `app_open_min_interval_seconds` (positive integer, default 14400), and for
///   the sandbox only `sdk_block` (bool, default true: the sandbox's config advertises the POST
///   endpoints).
/// - endpoint: `sandbox` (host `nitx.sandbox`, in-process ``NitxSandboxServer``) or the API
///   base URL.
package struct NitxAdapterFactory: NetworkAdapterFactory {
    /// `"nitx"`.
    public var kind: String { "nitx" }
    /// Fixed price.
    public var pricing: LineItem.Pricing { .fixedPrice }
    /// The sandbox's host name.
    public static let sandboxHost = "nitx.sandbox"
    /// The sandbox's base URL, `https://nitx.sandbox`.
    static let sandboxURL = URL(string: "https://\(sandboxHost)") ?? NitxOptions.defaultAPIBaseURL
    private static let optionKeys: Set<String> = ["personalization", "debug", "sdk_block", "bridge_tag", "request_mode", "app_open_min_interval_seconds"]

    /// Creates the factory.
    public init() {}

    /// Builds the adapter.
    /// - Throws: ``ConfigurationError`` naming the JSON path of a missing or malformed
    ///   credential, an unknown key, or an option of the wrong type or value.
    public func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        let settings = try NetworkSettings(network, kind: kind, credentials: ["source_code"], options: Self.optionKeys)
        let code = try settings.requiredCredential("source_code", hint: "the mobile source code, SDK-AM-...")
        guard Self.isValidSourceCode(code) else {
            throw ConfigurationError(code: .invalidValue, path: settings.credentialPath("source_code"), message: "must be SDK-AM- followed by letters, digits, _ or -")
        }
        var options = NitxOptions()
        options.personalization = try settings.bool("personalization") ?? options.personalization
        options.debug = try settings.bool("debug") ?? options.debug
        options.bridge = try settings.string("bridge_tag") ?? options.bridge
        options.requestMode = try settings.choice("request_mode", of: NitxRequestModeOverride.self) ?? options.requestMode
        if let seconds = try settings.integer("app_open_min_interval_seconds", in: 1...Int.max) {
            options.appOpenMinimumInterval = .seconds(seconds)
        }
        let sdkBlock = try settings.bool("sdk_block") ?? true
        let connection = NetworkConnection(for: network, environment: environment, sandboxURL: Self.sandboxURL) {
            NitxSandboxServer(configuration: NitxSandboxServer.Configuration(sourceCode: code, sdkBlock: sdkBlock, seed: environment.seed))
        }
        options.apiBaseURL = connection.baseURL
        let storage = NitxRecords(store: environment.stateStore, network: network.id, logger: environment.logger)
        let client = NitxClient(
            sourceCode: code,
            options: options,
            networkID: network.id,
            transport: connection.transport,
            clock: environment.clock,
            logger: environment.logger,
            storage: storage
        )
        // A withdrawal the host already knows at launch deletes the stored profile before anything runs.
        client.hostPrivacyDidChange(environment.requestTemplate.privacy)
        return NitxAdapter(network: network.id, client: client)
    }

    /// Whether `lineItem` can ever fill (engine rule R19): Nitx serves banner, interstitial,
    /// app open and native ads; rewarded always fails (`unsupported(5)`, no request). A banner
    /// needs a slot at least 1 pt wide and 50 pt high (its smallest size is 320x50, its adaptive
    /// banner 50 to 90 pt high).
    /// - Returns: an `unfillable` error at the source's path, or valid.
    public func validate(_ lineItem: LineItem, in placement: MediationConfiguration.Placement, network: MediationConfiguration.Network) -> LineItem.Validation {
        switch placement.format {
        case .rewarded:
            return .unfillable(at: placement.path(of: lineItem), "Nitx serves no rewarded ads (rewarded is not available in v1); placement \(placement.id) is rewarded")
        case .banner:
            let slot = placement.slot
            let fixedSizeFits = placement.bannerSizing != .anchored && (slot.fits(AdSize(width: 300, height: 250)) || slot.fits(AdSize(width: 320, height: 50)))
            guard fixedSizeFits || NitxFormatChoice.adaptiveSize(slot: slot, screenWidth: 320) != nil else {
                return .unfillable(at: placement.path(of: lineItem), "no Nitx banner fits a slot under \(Int(NitxFormatChoice.adaptiveMinimumHeight)) pt high or 1 pt wide")
            }
            return .valid
        case .interstitial, .appOpen, .native:
            return .valid
        }
    }

    /// What the factory ignores: `sdk_block` with a URL endpoint (it shapes the sandbox only).
    public func warnings(for network: MediationConfiguration.Network) -> [MediationConfiguration.Warning] {
        (try? NetworkSettings(network, kind: kind, credentials: ["source_code"], options: Self.optionKeys))?.sandboxOnlyWarnings(["sdk_block"]) ?? []
    }

    /// Whether `code` is `SDK-AM-` followed by one or more letters, digits, `_` or `-`.
    package static func isValidSourceCode(_ code: String) -> Bool {
        guard code.hasPrefix("SDK-AM-") else { return false }
        let rest = code.dropFirst("SDK-AM-".count)
        return !rest.isEmpty && rest.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }
}

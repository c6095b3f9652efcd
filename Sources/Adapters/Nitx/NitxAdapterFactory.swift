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
public struct NitxAdapterFactory: NetworkAdapterFactory {
    /// `"nitx"`.
    public var kind: String { "nitx" }
    /// Fixed price.
    public var pricing: AdSourcePricing { .fixedPrice }
    /// The sandbox's host name.
    public static let sandboxHost = "nitx.sandbox"

    /// Creates the factory.
    public init() {}

    /// Builds the adapter.
    /// - Throws: ``ConfigurationError`` naming the JSON path of a missing or malformed
    ///   credential, an unknown key, or an option of the wrong type or value.
    public func makeAdapter(for network: NetworkConfiguration, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        let path = "networks.\(network.id)"
        for key in network.credentials.keys.sorted() where key != "source_code" {
            throw ConfigurationError(code: .unknownKey, path: "\(path).credentials.\(key)", message: "unknown credential for nitx")
        }
        guard let code = network.credentials["source_code"] else {
            throw ConfigurationError(code: .missingField, path: "\(path).credentials.source_code", message: "required (the mobile source code, SDK-AM-...)")
        }
        guard Self.isValidSourceCode(code) else {
            throw ConfigurationError(code: .invalidValue, path: "\(path).credentials.source_code", message: "must be SDK-AM- followed by letters, digits, _ or -")
        }
        var options = NitxOptions()
        var sdkBlock = true
        for (key, value) in network.options.sorted(by: { $0.key < $1.key }) {
            let optionPath = "\(path).options.\(key)"
            switch key {
            case "personalization": options.personalization = try Self.bool(value, optionPath)
            case "debug": options.debug = try Self.bool(value, optionPath)
            case "sdk_block": sdkBlock = try Self.bool(value, optionPath)
            case "bridge_tag":
                guard let tag = value.stringValue else { throw ConfigurationError(code: .wrongType, path: optionPath, message: "must be a string") }
                options.bridge = tag
            case "request_mode":
                guard let text = value.stringValue, let mode = NitxRequestModeOverride(rawValue: text) else {
                    throw ConfigurationError(code: .invalidValue, path: optionPath, message: "must be \"auto\", \"get\" or \"post\"")
                }
                options.requestMode = mode
            case "app_open_min_interval_seconds":
                guard let seconds = value.intValue, seconds > 0 else {
                    throw ConfigurationError(code: .invalidValue, path: optionPath, message: "must be a positive integer")
                }
                options.appOpenMinimumInterval = .seconds(seconds)
            default:
                throw ConfigurationError(code: .unknownKey, path: optionPath, message: "unknown option for nitx")
            }
        }

        let transport: any HTTPTransport
        switch network.endpoint {
        case .sandbox:
            options.apiBaseURL = URL(string: "https://\(Self.sandboxHost)") ?? options.apiBaseURL
            let server = NitxSandboxServer(configuration: NitxSandboxServer.Configuration(sourceCode: code, sdkBlock: sdkBlock, seed: environment.seed))
            transport = SandboxTransport(servers: [Self.sandboxHost: server], clock: environment.clock, latency: environment.sandboxLatency)
        case .url(let url):
            options.apiBaseURL = url
            transport = environment.transport ?? URLSessionTransport.shared
        }
        let storage: any NitxStorage = environment.storageDirectory.map { NitxFileStorage(directory: $0, networkID: network.id, logger: environment.logger) } ?? NitxInMemoryStorage()
        let client = NitxClient(
            sourceCode: code,
            options: options,
            networkID: network.id,
            transport: environment.instrumented(transport, networkID: network.id),
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
    public func validate(_ lineItem: LineItem, in placement: PlacementConfiguration, network: NetworkConfiguration) -> LineItemValidation {
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
    public func warnings(for network: NetworkConfiguration) -> [ConfigurationWarning] {
        guard case .url = network.endpoint, network.options["sdk_block"] != nil else { return [] }
        return [ConfigurationWarning(code: .optionIgnored, path: network.path(of: "options", "sdk_block"), message: "sdk_block applies to the sandbox only; this network's endpoint is a URL")]
    }

    /// Whether `code` is `SDK-AM-` followed by one or more letters, digits, `_` or `-`.
    package static func isValidSourceCode(_ code: String) -> Bool {
        guard code.hasPrefix("SDK-AM-") else { return false }
        let rest = code.dropFirst("SDK-AM-".count)
        return !rest.isEmpty && rest.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }

    private static func bool(_ value: JSONValue, _ path: String) throws(ConfigurationError) -> Bool {
        guard let flag = value.boolValue else { throw ConfigurationError(code: .wrongType, path: path, message: "must be true or false") }
        return flag
    }
}

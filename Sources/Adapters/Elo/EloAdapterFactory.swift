import Foundation
import Mediation

/// Builds ``EloAdapter`` from the configuration's `networks` entry with `"adapter": "elo"`.
///
/// - `credentials`: `publisher_id` (required, not blank), `ad_unit_id` (optional default; each
///   line item's `ad_unit_id` is used first).
/// - `options`: `share_geo` (bool, default true), `geo_precision` (integer clamped to 0 ... 6
///   with a warning, or null for full precision; default 2), `coppa`, `tfua` (bool, default
///   false), `log_level` (`verbose`, `debug`, `info`, `warn`, `error`, `none`; default `warn`),
///   `sandbox_no_bid_rate` (number 0 ... 1, sandbox only, default 0.1).
/// - `endpoint`: `sandbox` uses ``EloSandboxServer`` at `https://sandbox.elo.test` over the
///   sandbox transport; a URL uses the live transport with that base URL.
/// - `timeout`: the client's request timeout, at most 3 s.
/// - The only id sent is the anonymous per-install id, kept in the environment's `stateStore`
///   under `elo.<network id>.install_id`. A plaintext identity file of an earlier version
///   (`<storage>/elo/<network id>-identity.json`) is deleted unread.
package struct EloAdapterFactory: NetworkAdapterFactory {
    /// `"elo"`.
    public let kind = "elo"
    /// Elo is a bidder.
    public let pricing: LineItem.Pricing = .bidder

    private static let credentialKeys: Set<String> = ["publisher_id", "ad_unit_id"]
    private static let optionKeys: Set<String> = ["share_geo", "geo_precision", "coppa", "tfua", "log_level", "sandbox_no_bid_rate"]

    /// Creates the factory.
    public init() {}

    /// Builds the adapter.
    /// - Throws: ``ConfigurationError`` naming the JSON path of a missing or blank
    ///   `publisher_id`, an unknown credential or option, or an option of the wrong type or range.
    public func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        let settings = try NetworkSettings(network, kind: kind, credentials: Self.credentialKeys, options: Self.optionKeys)
        let publisherID = try settings.requiredCredential("publisher_id")
        let shareGeo = try settings.bool("share_geo") ?? true
        let coppa = try settings.bool("coppa") ?? false
        let tfua = try settings.bool("tfua") ?? false
        var precision: Int? = EloConfiguration.defaultGeoPrecision
        switch settings.value("geo_precision") {
        case nil: break
        case .null?: precision = nil
        case .integer(let value)?:
            precision = EloConfiguration.clampPrecision(value)
            if precision != value {
                environment.logger.warning("\(settings.optionPath("geo_precision")) \(value) clamped to \(EloConfiguration.clampPrecision(value))", source: network.id)
            }
        case .some:
            throw ConfigurationError(code: .wrongType, path: settings.optionPath("geo_precision"), message: "must be a whole number or null")
        }
        let logLevel = try settings.choice("log_level", among: [("verbose", EloLogLevel.verbose), ("debug", .debug), ("info", .info), ("warn", .warn), ("error", .error), ("none", .none)]) ?? .warn
        let noBidRate = try settings.number("sandbox_no_bid_rate", in: 0...1) ?? 0.1
        // The user's chat and device signals travel over HTTPS: an endpoint given in code rather
        // than through the configuration loader meets the loader's rule too.
        if case .url(let url) = network.endpoint, url.scheme?.lowercased() != "https", !["127.0.0.1", "localhost"].contains(url.host ?? "") {
            throw ConfigurationError(code: .invalidValue, path: "networks.\(network.id).endpoint", message: "Elo requests carry the user's chat messages: use https (plain http for 127.0.0.1 or localhost only)")
        }
        let connection = NetworkConnection(for: network, environment: environment, sandboxURL: EloSandboxServer.baseURL) {
            EloSandboxServer(seed: environment.seed, noBidRate: noBidRate)
        }
        let configuration = EloConfiguration(
            publisherID: publisherID,
            adUnitID: network.credentials["ad_unit_id"] ?? "",
            coppa: coppa,
            tfua: tfua,
            logLevel: logLevel,
            baseURL: connection.baseURL,
            shareGeoLocation: shareGeo,
            geoLocationPrecision: precision,
            requestTimeout: network.timeout ?? EloConfiguration.maximumRequestTimeout
        )
        if let directory = environment.storageDirectory {
            EloLegacyIdentityFile.delete(in: directory, network: network.id, logger: environment.logger)
        }
        let client = EloClient(
            configuration: configuration,
            network: network.id,
            transport: connection.transport,
            clock: environment.clock,
            logger: environment.logger,
            stateStore: environment.stateStore
        )
        client.hostPrivacyDidChange(environment.requestTemplate.privacy)
        return EloAdapter(network: network.id, client: client)
    }

    /// Whether `lineItem` can ever fill (engine rule R19): Elo serves banner and native ads
    /// only, in a slot at least 72 pt high (its strip; 192 pt for its card), rounded down to
    /// whole points. A banner or native slot from 72 to 191 pt gets only the strip: a warning
    /// is not needed, the strip always fits.
    /// - Returns: an `unfillable` error at the source's path, or valid.
    public func validate(_ lineItem: LineItem, in placement: MediationConfiguration.Placement, network: MediationConfiguration.Network) -> LineItem.Validation {
        guard placement.format == .banner || placement.format == .native else {
            return .unfillable(at: placement.path(of: lineItem), "Elo serves banner and native ads only; placement \(placement.id) is \(placement.format)")
        }
        let height = EloAdFormat.wholePoints(placement.slot.maxHeight)
        if EloAdFormat.choose(forMaxHeight: height) == nil, let maxHeight = placement.slot.maxHeight {
            // The height as configured, not in whole points (1e-9 is not 0, 71.9 not 71).
            return .unfillable(at: placement.path(of: lineItem), "no Elo format fits a slot under \(EloAdFormat.stripMinimumSlotHeight) pt high (slot.max_height \(DisplayText.number(maxHeight)) pt)")
        }
        return .valid
    }

    /// What the factory clamps or ignores: `geo_precision` outside 0 ... 6 is clamped
    /// (`option_clamped`); `sandbox_no_bid_rate` with a URL endpoint is ignored (`option_ignored`).
    public func warnings(for network: MediationConfiguration.Network) -> [MediationConfiguration.Warning] {
        var warnings: [MediationConfiguration.Warning] = []
        if case .integer(let value)? = network.options["geo_precision"], EloConfiguration.clampPrecision(value) != value {
            warnings.append(MediationConfiguration.Warning(code: .optionClamped, path: network.path(of: "options", "geo_precision"), message: "geo_precision \(value) clamped to \(EloConfiguration.clampPrecision(value))"))
        }
        if let settings = try? NetworkSettings(network, kind: kind, credentials: Self.credentialKeys, options: Self.optionKeys) {
            warnings += settings.sandboxOnlyWarnings(["sandbox_no_bid_rate"])
        }
        return warnings
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Engine rule R19: valid means fillable. A line item its network could never fill is an error
/// naming its JSON path when the engine is built; what a network clamps or ignores is a warning.
@Suite("R19 valid means fillable")
struct FillabilityValidationTests {
    /// The shipped configuration's text.
    static func shipped() throws -> String {
        try String(contentsOf: RepositoryFiles.shippedConfiguration, encoding: .utf8)
    }

    /// The shipped configuration with `old` replaced by `new`, loaded and built with the
    /// standard networks.
    static func build(_ edits: [(String, String)]) throws -> MediationEngine {
        var json = try shipped()
        for (old, new) in edits {
            #expect(json.contains(old), "the shipped config has no \(old)")
            json = json.replacingOccurrences(of: old, with: new)
        }
        let configuration = try MediationConfiguration(json: json, registry: .standard)
        return try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: ManualClock()))
    }

    struct Unfillable: Sendable, CustomTestStringConvertible {
        var name: String
        var edits: [(String, String)]
        var code: ConfigurationError.Code
        var path: String
        var testDescription: String { name }
    }

    static let unfillable: [Unfillable] = [
        Unfillable(
            name: "Elo on an interstitial",
            edits: [(#"{ "id": "level_end_premium", "#, #"{ "id": "level_end_elo", "network": "elo", "ad_unit_id": "elo-level-end" }, { "id": "level_end_premium", "#)],
            code: .unfillable, path: "placements.level_end.sources[0]"
        ),
        Unfillable(
            name: "Nitx alone on a rewarded placement",
            edits: [(#""currency_rates": {}"#, #""currency_rates": {}"#), (#""placements": {"#, #""placements": { "reward": { "format": "rewarded", "sources": [ { "id": "reward_nitx", "network": "nitx", "ad_unit_id": "SLOT-REWARD", "ecpm": 9 } ] },"#)],
            code: .unfillable, path: "placements.reward.sources[0]"
        ),
        Unfillable(
            name: "Qartvelo on a native placement",
            edits: [(#"{ "id": "chat_strip_elo", "#, #"{ "id": "chat_strip_qartvelo", "network": "qartvelo", "ad_unit_id": "qv-chat", "ecpm": 3 }, { "id": "chat_strip_elo", "#)],
            code: .unfillable, path: "placements.chat_strip.sources[0]"
        ),
        Unfillable(
            name: "an anchored banner with max_height 10 (under every network's minimum)",
            edits: [(#""slot": { "max_height": 90 }"#, #""slot": { "max_height": 10 }"#)],
            code: .unfillable, path: "placements.home_banner.sources[0]"
        ),
        Unfillable(
            name: "a floor above every fixed eCPM of a placement with no bidder",
            edits: [(#""mode": "waterfall""#, #""floor": 7, "mode": "waterfall""#)],
            code: .unfillable, path: "placements.level_end.floor"
        ),
        Unfillable(
            name: "an ad unit id of \" \"",
            edits: [(#""ad_unit_id": "SLOT-LEVELEND""#, #""ad_unit_id": " ""#)],
            code: .invalidValue, path: "placements.level_end.sources[1].ad_unit_id"
        ),
    ]

    @Test(arguments: unfillable)
    func aConfigurationThatCanNeverFillIsAnError(_ example: Unfillable) throws {
        let error = try #require(throws: ConfigurationError.self) { _ = try Self.build(example.edits) }
        #expect(error.code == example.code)
        #expect(error.path == example.path)
    }

    @Test("each network's rule: Elo needs banner or native at >= 72 pt, Nitx no rewarded and banners >= 50 pt, Qartvelo banners only (anchored >= 50 pt), the fallback a size that fits")
    func eachFactorysRule() {
        func placement(_ format: AdFormat, sizing: MediationConfiguration.Placement.BannerSizing? = nil, slot: SlotSize = SlotSize()) -> MediationConfiguration.Placement {
            MediationConfiguration.Placement(id: "p", format: format, bannerSizing: sizing, slot: slot, sources: [.fixedPrice("s", eCPM: 1)])
        }
        func fills(_ factory: any NetworkAdapterFactory, _ placement: MediationConfiguration.Placement, options: [String: JSONValue] = [:]) -> Bool {
            let network = MediationConfiguration.Network(id: "n", adapter: factory.kind, options: options)
            let result = factory.validate(placement.sources[0], in: placement, network: network)
            if let error = result.errors.first { #expect(error.path == "placements.p.sources[0]") }
            return result.errors.isEmpty
        }
        let elo = EloAdapterFactory(), nitx = NitxAdapterFactory(), qartvelo = QartveloAdapterFactory(), fallback = FallbackAdapterFactory()
        #expect(fills(elo, placement(.banner, sizing: .anchored, slot: SlotSize(maxHeight: 72))))
        #expect(fills(elo, placement(.native)))
        #expect(!fills(elo, placement(.native, slot: SlotSize(maxHeight: 71.9))))
        for format in [AdFormat.interstitial, .appOpen, .rewarded] { #expect(!fills(elo, placement(format))) }
        for format in [AdFormat.interstitial, .appOpen, .native] { #expect(fills(nitx, placement(format))) }
        #expect(!fills(nitx, placement(.rewarded)))
        #expect(fills(nitx, placement(.banner, sizing: .anchored, slot: SlotSize(maxHeight: 50))))
        #expect(!fills(nitx, placement(.banner, sizing: .anchored, slot: SlotSize(maxHeight: 49))))
        #expect(fills(qartvelo, placement(.banner, sizing: .inline, slot: SlotSize(maxHeight: 32))))
        #expect(!fills(qartvelo, placement(.banner, sizing: .anchored, slot: SlotSize(maxHeight: 40))))
        for format in [AdFormat.interstitial, .appOpen, .rewarded, .native] { #expect(!fills(qartvelo, placement(format))) }
        for format in AdFormat.allCases where format != .banner { #expect(fills(fallback, placement(format))) }
        #expect(fills(fallback, placement(.banner, sizing: .anchored, slot: SlotSize(maxHeight: 50))))
        #expect(!fills(fallback, placement(.banner, sizing: .anchored, slot: SlotSize(maxHeight: 10))))
        #expect(fills(fallback, placement(.banner, sizing: .anchored, slot: SlotSize(maxHeight: 10)), options: ["creative_sizes": .object(["banner": .array([.string("320x8")])])]))
    }

    @Test("a slot's height is quoted as configured, never rounded: Elo's 1e-9 is not 0, 71.9 not 71; Qartvelo's 40 is not 40.0")
    func slotHeightsAreQuotedAsGiven() {
        func message(_ factory: any NetworkAdapterFactory, _ format: AdFormat, sizing: MediationConfiguration.Placement.BannerSizing? = nil, maxHeight: Double) -> String? {
            let placement = MediationConfiguration.Placement(id: "p", format: format, bannerSizing: sizing, slot: SlotSize(maxHeight: maxHeight), sources: [.fixedPrice("s", eCPM: 1)])
            let result = factory.validate(placement.sources[0], in: placement, network: MediationConfiguration.Network(id: "n", adapter: factory.kind))
            return (result.errors.first?.message ?? result.warnings.first?.message)
        }
        #expect(message(EloAdapterFactory(), .native, maxHeight: 1e-9) == "no Elo format fits a slot under 72 pt high (slot.max_height 1e-9 pt)")
        #expect(message(EloAdapterFactory(), .native, maxHeight: 71.9) == "no Elo format fits a slot under 72 pt high (slot.max_height 71.9 pt)")
        #expect(message(EloAdapterFactory(), .banner, sizing: .anchored, maxHeight: 0.5) == "no Elo format fits a slot under 72 pt high (slot.max_height 0.5 pt)")
        #expect(message(QartveloAdapterFactory(), .banner, sizing: .anchored, maxHeight: 1e-9) == "an anchored Qartvelo banner is 50 to 90 pt high; slot.max_height 1e-9 pt never fits it")
        #expect(message(QartveloAdapterFactory(), .banner, sizing: .anchored, maxHeight: 40) == "an anchored Qartvelo banner is 50 to 90 pt high; slot.max_height 40 pt never fits it")
        #expect(message(QartveloAdapterFactory(), .banner, sizing: .anchored, maxHeight: 89.4) == "an anchored Qartvelo banner is up to 90 pt high on wide screens; slot.max_height 89.4 pt does not fit it there")
    }

    @Test("warnings: Elo's geo_precision 99 is clamped, sandbox options on a URL endpoint are ignored, an anchored Qartvelo slot under 90 pt may not fit, and every sandbox network is named")
    func warningsAreCollectedOnTheEngine() throws {
        let engine = try Self.build([
            (#""geo_precision": 2"#, #""geo_precision": 99"#),
            (#""slot": { "max_height": 90 }"#, #""slot": { "max_height": 80 }"#),
        ])
        let warnings = engine.configurationWarnings
        #expect(warnings.contains(MediationConfiguration.Warning(code: .optionClamped, path: "networks.elo.options.geo_precision", message: "geo_precision 99 clamped to 6")))
        #expect(warnings.contains { $0.code == .slotMayNotFit && $0.path == "placements.home_banner.sources[1]" })
        #expect(warnings.filter { $0.code == .sandboxEndpoint }.map(\.path) == ["admob_premium", "admob_standard", "admob_backfill", "elo", "nitx", "qartvelo"].map { "networks.\($0).endpoint" })
        #expect(engine.sandboxNetworks == ["admob_premium", "admob_standard", "admob_backfill", "elo", "nitx", "qartvelo"])

        let nitx = NitxAdapterFactory().warnings(for: MediationConfiguration.Network(id: "nitx", adapter: "nitx", endpoint: .url(try #require(URL(string: "https://api.nitx.example"))), options: ["sdk_block": .bool(true)]))
        #expect(nitx.map(\.code) == [.optionIgnored])
        #expect(nitx.map(\.path) == ["networks.nitx.options.sdk_block"])
    }
}

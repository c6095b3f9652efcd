import Testing
@testable import Mediation

@Suite("Placement overrides")
struct PlacementOverrideTests {
    static let placement = MediationConfiguration.Placement(
        id: "level_end",
        format: .interstitial,
        floor: 0.5,
        sources: [
            .bidder("elo"),
            LineItem(id: "nitx_hi", network: "nitx", pricing: .fixedPrice, eCPM: 4, currency: "EUR", usdRate: 1.1, eCPMSD: 0.5, eCPMImpressions: 900),
            .fixedPrice("nitx_lo", network: "nitx", eCPM: 1),
        ]
    )

    /// Reads `json` as an override of ``placement`` (at `$.o`).
    static func decode(_ json: String) throws(ConfigurationError) -> MediationConfiguration.PlacementOverride {
        let node = try StrictJSONReader.parse(Array(json.utf8))
        let object = try ConfigurationObject(node, at: JSONPath.root.appending("o"), allowed: ConfigurationLoader.overrideKeys)
        return try ConfigurationLoader.decodeOverride(object, for: placement)
    }

    @Test func theEmptyOverrideChangesNothing() throws {
        let override = try Self.decode("{}")
        #expect(override.isEmpty)
        #expect(override.applied(to: Self.placement) == Self.placement)
    }

    @Test func anOverrideChangesSourcesPricesFloorAndMode() throws {
        // The listed order is not the placement's: the placement's order is kept.
        let override = try Self.decode(#"{"sources": ["nitx_lo", "nitx_hi"], "ecpm": {"nitx_hi": 2.5}, "floor": 0.75, "mode": "waterfall"}"#)
        let applied = override.applied(to: Self.placement)
        #expect(applied.sources.map(\.id) == ["nitx_hi", "nitx_lo"])
        #expect(applied.sources[0].eCPM == 2.5)
        #expect(applied.sources[0].currency == "USD")
        #expect(applied.sources[0].usdRate == 1)
        #expect(applied.sources[0].eCPMSD == nil)
        #expect(applied.sources[0].eCPMImpressions == nil)
        #expect(applied.sources[1] == Self.placement.sources[2])
        #expect(applied.floor == 0.75)
        #expect(applied.mode == .waterfall)
        #expect(applied.id == Self.placement.id)
    }

    @Test(arguments: [
        (#"{"sources": []}"#, "o.sources", "empty_sources"),
        (#"{"sources": "elo"}"#, "o.sources", "wrong_type"),
        (#"{"sources": ["elo", "nope"]}"#, "o.sources[1]", "invalid_value"),
        (#"{"sources": ["elo", "elo"]}"#, "o.sources[1]", "duplicate_id"),
        (#"{"ecpm": {"elo": 2}}"#, "o.ecpm.elo", "pricing_mismatch"),
        (#"{"ecpm": {"nope": 2}}"#, "o.ecpm.nope", "invalid_value"),
        (#"{"ecpm": {"nitx_hi": -2}}"#, "o.ecpm.nitx_hi", "invalid_price"),
        (#"{"ecpm": {"nitx_hi": "2"}}"#, "o.ecpm.nitx_hi", "wrong_type"),
        (#"{"sources": ["nitx_lo"], "ecpm": {"nitx_hi": 2}}"#, "o.ecpm.nitx_hi", "invalid_value"),
        (#"{"floor": 0}"#, "o.floor", "invalid_price"),
        (#"{"refresh_seconds": 30}"#, "o.refresh_seconds", "invalid_refresh"),
        (#"{"mode": "serial"}"#, "o.mode", "invalid_value"),
        (#"{"sources": ["nitx_lo"], "floor": 2}"#, "o.floor", "unfillable"),
        (#"{"sources": ["nitx_lo"]}"#, "o.sources", "unfillable"),
    ])
    func mistakesNameTheirPath(_ json: String, _ path: String, _ code: String) {
        // The placement floor (0.5) beats nitx_lo's 1 only with the override's floor 2; its
        // own sources list keeps the floor reachable... except when only a cheap source is left.
        let placement = Self.placement
        var cheap = placement
        cheap.floor = 1.5
        let error = #expect(throws: ConfigurationError.self) {
            let node = try StrictJSONReader.parse(Array(json.utf8))
            let object = try ConfigurationObject(node, at: JSONPath.root.appending("o"), allowed: ConfigurationLoader.overrideKeys)
            _ = try ConfigurationLoader.decodeOverride(object, for: json.contains("\"sources\": [\"nitx_lo\"]}") ? cheap : placement)
        }
        #expect(error?.path == path)
        #expect(error?.code.rawValue == code)
    }

    @Test func aLineItemCarriesPricesByCountry() throws {
        let json = ConfigurationFixture.edited(#""ecpm": 5, "timeout_ms": 1500"#, #""ecpm": 5, "ecpm_by_country": {"US": 7.5, "IN": 0.6}, "timeout_ms": 1500"#)
        let configuration = try ConfigurationFixture.load(json)
        #expect(configuration.placement("level_end")?.sources[0].eCPMByCountry == ["US": 7.5, "IN": 0.6])
    }

    @Test(arguments: [
        (#""ecpm_by_country": {"usa": 1}"#, "placements.level_end.sources[0].ecpm_by_country.usa", "invalid_value"),
        (#""ecpm_by_country": {"US": 0}"#, "placements.level_end.sources[0].ecpm_by_country.US", "invalid_price"),
        (#""ecpm_by_country": [1]"#, "placements.level_end.sources[0].ecpm_by_country", "wrong_type"),
    ])
    func pricesByCountryAreStrict(_ field: String, _ path: String, _ code: String) {
        let json = ConfigurationFixture.edited(#""ecpm": 5, "timeout_ms": 1500"#, #""ecpm": 5, \#(field), "timeout_ms": 1500"#)
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationFixture.load(json) }
        #expect(error?.path == path)
        #expect(error?.code.rawValue == code)
    }

    @Test func aBidderTakesNoPricesByCountry() {
        let json = ConfigurationFixture.edited(#""floor": 0.5 }"#, #""floor": 0.5, "ecpm_by_country": {"US": 1} }"#)
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationFixture.load(json) }
        #expect(error?.path == "placements.home_banner.sources[0].ecpm_by_country")
        #expect(error?.code == .pricingMismatch)
    }
}

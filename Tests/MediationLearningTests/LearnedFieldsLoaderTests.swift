import Adapters
import Mediation
import Testing

/// The loader's `ecpm_sd` and `ecpm_impressions` (what `mediate optimize --write` records).
@Suite("Loader: learned eCPM fields")
struct LearnedFieldsLoaderTests {
    static func load(_ source: String) throws(ConfigurationError) -> MediationConfiguration {
        try ConfigurationLoader(registry: .standard).load(json: """
        { "networks": { "bf": { "adapter": "fallback", "endpoint": "sandbox" }, "elo": { "adapter": "elo", "credentials": { "publisher_id": "p" }, "endpoint": "sandbox" } },
          "placements": { "p": { "format": "interstitial", "sources": [ \(source) ] } } }
        """)
    }

    static func code(_ source: String) -> (String, String)? {
        do {
            _ = try load(source)
            return nil
        } catch {
            return (error.code.rawValue, error.path)
        }
    }

    @Test("accepted on fixed-price sources; refused on bidders, zero, negative, fractional")
    func fields() throws {
        let source = try Self.load(#"{ "id": "a", "network": "bf", "ad_unit_id": "u", "ecpm": 1.2, "ecpm_sd": 0.03, "ecpm_impressions": 2000 }"#).placements[0].sources[0]
        #expect(source.eCPMSD == 0.03)
        #expect(source.eCPMImpressions == 2000)
        #expect(Self.code(#"{ "id": "a", "network": "elo", "ad_unit_id": "u", "ecpm_sd": 0.03 }"#)! == ("pricing_mismatch", "placements.p.sources[0].ecpm_sd"))
        #expect(Self.code(#"{ "id": "a", "network": "bf", "ad_unit_id": "u", "ecpm": 1, "ecpm_sd": 0 }"#)!.1 == "placements.p.sources[0].ecpm_sd")
        #expect(Self.code(#"{ "id": "a", "network": "bf", "ad_unit_id": "u", "ecpm": 1, "ecpm_impressions": -1 }"#)!.1 == "placements.p.sources[0].ecpm_impressions")
        #expect(Self.code(#"{ "id": "a", "network": "bf", "ad_unit_id": "u", "ecpm": 1, "ecpm_impressions": 1.5 }"#)!.1 == "placements.p.sources[0].ecpm_impressions")
        // An uncertainty beyond the price itself is no estimate (an exploring placement would
        // value the line item at anything).
        #expect(Self.code(#"{ "id": "a", "network": "bf", "ad_unit_id": "u", "ecpm": 1, "ecpm_sd": 1.01 }"#)! == ("invalid_value", "placements.p.sources[0].ecpm_sd"))
        #expect(Self.code(#"{ "id": "a", "network": "bf", "ad_unit_id": "u", "ecpm": 1, "ecpm_sd": 1e300 }"#)! == ("invalid_value", "placements.p.sources[0].ecpm_sd"))
        #expect(try Self.load(#"{ "id": "a", "network": "bf", "ad_unit_id": "u", "ecpm": 1, "ecpm_sd": 1 }"#).placements[0].sources[0].eCPMSD == 1)
    }
}

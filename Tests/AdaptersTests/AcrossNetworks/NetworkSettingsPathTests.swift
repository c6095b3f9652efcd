import Adapters
import Mediation
import MediationTestKit
import Testing

/// The boundary's error paths (R20) escape a network id as the loader does: an id with a dot
/// or a bracket is `networks["a.b"]`, never the ambiguous `networks.a.b`.
@Suite("Network settings: JSON paths of odd network ids")
struct NetworkSettingsPathTests {
    static func error(_ network: String) -> ConfigurationError? {
        let json = """
        { "networks": { "n.x[0]": \(network) },
          "placements": { "home": { "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 },
            "sources": [ { "id": "a", "network": "n.x[0]", "ad_unit_id": "u", "ecpm": 1 } ] } } }
        """
        do {
            let configuration = try MediationConfiguration(json: json, registry: .standard)
            _ = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: ManualClock()))
            return nil
        } catch {
            return error
        }
    }

    @Test("fallback, nitx and qartvelo name the escaped id in every option and credential error")
    func escapedPaths() {
        #expect(Self.error(#"{ "adapter": "fallback", "endpoint": "sandbox", "options": { "zzz": 1 } }"#)?.path == #"networks["n.x[0]"].options.zzz"#)
        #expect(Self.error(#"{ "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": "x" } }"#)?.path == #"networks["n.x[0]"].options.fill_rate"#)
        #expect(Self.error(#"{ "adapter": "fallback", "endpoint": "sandbox", "options": { "creative_sizes": { "banner": ["1x"] } } }"#)?.path == #"networks["n.x[0]"].options.creative_sizes.banner[0]"#)
        #expect(Self.error(#"{ "adapter": "fallback", "endpoint": "https://a.test" }"#)?.path == #"networks["n.x[0]"].endpoint"#)
        #expect(Self.error(#"{ "adapter": "nitx", "endpoint": "sandbox", "credentials": { "source_code": " " } }"#)?.path == #"networks["n.x[0]"].credentials.source_code"#)
        #expect(Self.error(#"{ "adapter": "qartvelo", "endpoint": "sandbox", "credentials": { "app_id": "a" }, "options": { "adaptive": 1 } }"#)?.path == #"networks["n.x[0]"].options.adaptive"#)
    }
}

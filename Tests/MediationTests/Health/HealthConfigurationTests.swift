import Foundation
import MediationTestKit
import Testing
@testable import Mediation

/// Engine rule R24's `health` settings: the top level, a network's override over it, and strict
/// errors with JSON paths.
@Suite("Network health: the configuration (R24)")
struct HealthConfigurationTests {
    static func loader() -> ConfigurationLoader {
        var networks = PrebuiltNetworks()
        let clock = ManualClock()
        networks.add("a", pricing: .fixedPrice, adapter: ScriptedAdapter(network: "a", pricing: .fixedPrice, clock: clock, script: []))
        networks.add("b", pricing: .fixedPrice, adapter: ScriptedAdapter(network: "b", pricing: .fixedPrice, clock: clock, script: []))
        return ConfigurationLoader(registry: networks.registry)
    }

    static func json(top: String?, a: String?) -> String {
        let health = top.map { #""health": \#($0), "# } ?? ""
        let aHealth = a.map { #", "health": \#($0)"# } ?? ""
        return #"{\#(health)"networks": {"a": {"adapter": "prebuilt.a", "endpoint": "sandbox"\#(aHealth)}, "b": {"adapter": "prebuilt.b", "endpoint": "sandbox"}}, "placements": {"p": {"format": "interstitial", "sources": [{"id": "a1", "network": "a", "ad_unit_id": "u", "ecpm": 1}, {"id": "b1", "network": "b", "ad_unit_id": "u", "ecpm": 1}]}}}"#
    }

    @Test("on by default with the documented defaults; the top level applies to every network and a network's own keys override it")
    func defaultsAndOverrides() throws {
        let plain = try Self.loader().load(json: Self.json(top: nil, a: nil))
        #expect(plain.network("a")?.health == .standard)
        #expect(NetworkHealthSettings.standard == NetworkHealthSettings(enabled: true, failuresToOpen: 7, window: 10, backoff: .seconds(5), maxBackoff: .seconds(600), probes: 1))
        let tuned = try Self.loader().load(json: Self.json(top: #"{"failures_to_open": 3, "backoff_ms": 10000}"#, a: #"{"probes": 2, "backoff_ms": 5000}"#))
        #expect(tuned.network("a")?.health == NetworkHealthSettings(failuresToOpen: 3, window: 10, backoff: .seconds(5), maxBackoff: .seconds(600), probes: 2))
        #expect(tuned.network("b")?.health == NetworkHealthSettings(failuresToOpen: 3, window: 10, backoff: .seconds(10), maxBackoff: .seconds(600), probes: 1))
        let off = try Self.loader().load(json: Self.json(top: #"{"enabled": false}"#, a: #"{"enabled": true}"#))
        #expect(off.network("a")?.health.enabled == true)
        #expect(off.network("b")?.health.enabled == false)
    }

    @Test("mistakes name their JSON path", arguments: [
        (#"{"enabled": "yes"}"#, nil, "health.enabled", ConfigurationError.Code.wrongType),
        (#"{"extra": 1}"#, nil, "health.extra", .unknownKey),
        (#"{"window": 65}"#, nil, "health.window", .invalidValue),
        (#"{"backoff_ms": 999}"#, nil, "health.backoff_ms", .invalidValue),
        (#"{"max_backoff_ms": 30000.0}"#, nil, "health.max_backoff_ms", .wrongType),
        (nil, #"{"probes": 11}"#, "networks.a.health.probes", .invalidValue),
        (nil, #"{"failures_to_open": 0}"#, "networks.a.health.failures_to_open", .invalidValue),
        (nil, "[]", "networks.a.health", .wrongType),
    ] as [(String?, String?, String, ConfigurationError.Code)])
    func mistakesNameTheirPath(top: String?, a: String?, path: String, code: ConfigurationError.Code) {
        #expect(throws: ConfigurationError.self) { try Self.loader().load(json: Self.json(top: top, a: a)) }
        do {
            _ = try Self.loader().load(json: Self.json(top: top, a: a))
        } catch {
            #expect(error.path == path)
            #expect(error.code == code)
        }
    }

    @Test("a window narrower than failures_to_open and a cap under the first back-off are widened, not refused")
    func keysDoNotDependOnEachOther() throws {
        let loaded = try Self.loader().load(json: Self.json(top: #"{"failures_to_open": 20, "backoff_ms": 60000, "max_backoff_ms": 5000}"#, a: nil))
        let settings = try #require(loaded.network("a")?.health).clamped
        #expect(settings.window == 20)
        #expect(settings.maxBackoff == .seconds(60))
    }
}

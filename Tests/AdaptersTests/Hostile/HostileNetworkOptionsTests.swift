import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Red-team attacks on the standard networks' `options` (R15): infinities, negatives, numbers
/// far past `Int`, strings of escapes. Each either fails the engine's build with an error naming
/// the option's JSON path, or builds an engine whose auctions still run and end.
@Suite("Hostile network options (R15)")
struct HostileNetworkOptionsTests {
    /// The shipped configuration with `options` merged into network `network`'s.
    static func configuration(_ network: String, _ options: String) throws -> String {
        let shipped = try String(contentsOf: RepositoryFiles.shippedConfiguration, encoding: .utf8)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(shipped.utf8)) as? [String: Any])
        var networks = try #require(root["networks"] as? [String: Any])
        var entry = try #require(networks[network] as? [String: Any])
        var merged = entry["options"] as? [String: Any] ?? [:]
        let extra = try #require(try JSONSerialization.jsonObject(with: Data(options.utf8)) as? [String: Any])
        merged.merge(extra) { $1 }
        entry["options"] = merged
        networks[network] = entry
        var edited = root
        edited["networks"] = networks
        edited.removeValue(forKey: "$schema")
        return String(decoding: try JSONSerialization.data(withJSONObject: edited), as: UTF8.self)
    }

    static func build(_ json: String, clock: ManualClock) throws(ConfigurationError) -> MediationEngine {
        let configuration = try MediationConfiguration(json: json, registry: .standard)
        return try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: clock))
    }

    @Test("an option out of range fails with its JSON path", arguments: [
        ("admob_premium", #"{"latency_ms": -1}"#, "networks.admob_premium.options.latency_ms"),
        ("admob_premium", #"{"latency_jitter_ms": 1e300}"#, "networks.admob_premium.options.latency_jitter_ms"),
        ("admob_premium", #"{"seed": 1e300}"#, "networks.admob_premium.options.seed"),
        ("admob_premium", #"{"fill_rate": -0.5}"#, "networks.admob_premium.options.fill_rate"),
        ("admob_premium", #"{"creatives": 1000000}"#, "networks.admob_premium.options.creatives"),
        ("elo", #"{"geo_precision": 1e300}"#, "networks.elo.options.geo_precision"),
        ("elo", #"{"sandbox_no_bid_rate": 2}"#, "networks.elo.options.sandbox_no_bid_rate"),
        ("qartvelo", #"{"banner_refresh_seconds": 0}"#, "networks.qartvelo.options.banner_refresh_seconds"),
        ("nitx", #"{"app_open_min_interval_seconds": -1}"#, "networks.nitx.options.app_open_min_interval_seconds"),
        ("nitx", #"{"app_open_min_interval_seconds": 1e300}"#, "networks.nitx.options.app_open_min_interval_seconds"),
    ])
    func outOfRange(_ network: String, _ options: String, _ path: String) throws {
        let json = try Self.configuration(network, options)
        let error = try #require(throws: ConfigurationError.self) { _ = try Self.build(json, clock: ManualClock()) }
        #expect(error.path == path, "\(error)")
        #expect(error.description.count < 600)
    }

    @Test("extreme but valid options build an engine whose auctions all end", arguments: [
        ("nitx", #"{"app_open_min_interval_seconds": 9223372036854775807}"#),
        ("qartvelo", #"{"banner_refresh_seconds": 9223372036854775807}"#),
        ("qartvelo", #"{"sandbox_html5": true, "sandbox_html5_bundle_bytes": 9223372036854775807}"#),
        ("admob_premium", #"{"latency_ms": 60000, "latency_jitter_ms": 60000}"#),
        ("admob_premium", #"{"seed": -9223372036854775808}"#),
        ("elo", #"{"geo_precision": 9223372036854775807, "share_geo": true}"#),
        ("nitx", #"{"bridge_tag": "\u001b[31mRED\nFAKE"}"#),
    ])
    func extremeButValid(_ network: String, _ options: String) async throws {
        let clock = ManualClock()
        let engine = try Self.build(try Self.configuration(network, options), clock: clock)
        for placement in engine.configuration.placements {
            let outcome = try await engine.runAuction(placementID: placement.id, on: clock)
            #expect(outcome.trace.endedAtMilliseconds <= outcome.trace.deadlineMilliseconds)
            outcome.winner?.ad.releaseResources()
        }
        await clock.perform { await engine.shutdown() }
    }
}

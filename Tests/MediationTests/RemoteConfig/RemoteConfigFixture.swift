import Foundation
@testable import Mediation
import MediationTestKit

/// Configurations over prebuilt networks, a signing key, and envelopes signed with it, for the
/// remote-configuration tests.
struct RemoteConfigFixture: Sendable {
    /// A fixed key, so that runs repeat.
    let key: ConfigurationSigningKey

    init() {
        // The RFC 8032 test 1 seed: fixed, so that every run signs with the same key.
        let seed: [UInt8] = [0x9d, 0x61, 0xb1, 0x9d, 0xef, 0xfd, 0x5a, 0x60, 0xba, 0x84, 0x4a, 0xf4, 0x92, 0xec, 0x2c, 0xc4,
                             0x44, 0x49, 0xc5, 0x69, 0x7b, 0x32, 0x69, 0x19, 0x70, 0x3b, 0xac, 0x03, 0x1c, 0xae, 0x7f, 0x60]
        // swiftlint-free: a 32-byte seed always makes a key.
        key = (try? ConfigurationSigningKey(seed: seed)) ?? RemoteConfigFixture.unreachableKey()
    }

    private static func unreachableKey() -> ConfigurationSigningKey {
        preconditionFailure("a 32-byte seed always makes a key")
    }

    /// Network kinds `prebuilt.neta` (fixed price) and `prebuilt.bid` (bidder), for loading.
    static var registry: NetworkRegistry {
        let clock = ManualClock()
        var networks = PrebuiltNetworks()
        networks.add("neta", pricing: .fixedPrice, adapter: ScriptedAdapter(network: "neta", pricing: .fixedPrice, clock: clock, script: []))
        networks.add("bid", pricing: .bidder, adapter: ScriptedAdapter(network: "bid", pricing: .bidder, clock: clock, script: []))
        return networks.registry
    }

    /// A configuration with `home_banner` over `neta`, with the release fields given.
    static func configJSON(version: Int?, issuedAt: String = "2026-12-01T14:00:00Z", rollout: String? = nil, eCPM: String = "1.2") -> String {
        var release = ""
        if let version { release += "\"config_version\": \(version), \"issued_at\": \"\(issuedAt)\", " }
        if let rollout { release += "\"rollout\": \(rollout), " }
        return """
        { \(release)"networks": { "neta": { "adapter": "prebuilt.neta", "endpoint": "sandbox" } },
          "placements": { "home_banner": { "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 },
            "sources": [ { "id": "neta_home", "network": "neta", "ad_unit_id": "u1", "ecpm": \(eCPM) } ] } } }
        """
    }

    /// The envelope of the plain configuration, signed as `version` by ``key``.
    func signed(version: Int, rollout: MediationConfiguration.Rollout? = nil, eCPM: String = "1.2", config: String? = nil) throws -> Data {
        try ConfigurationSigner.sign(
            Data((config ?? Self.configJSON(version: nil, eCPM: eCPM)).utf8),
            key: key,
            version: version,
            issuedAt: WallClockTime(rfc3339: "2026-12-01T14:00:00Z") ?? WallClockTime(millisecondsSince1970: 0),
            rollout: rollout,
            registry: Self.registry
        )
    }

    /// An envelope of `text`'s exact bytes, signed by ``key`` without any check (what a
    /// careless or hostile publisher could sign).
    func sign(raw text: String) throws -> Data {
        let payload = Array(text.utf8)
        return SignedConfiguration(keyID: key.publicKey.id, signature: try key.sign(payload), payload: payload).rendered()
    }
}

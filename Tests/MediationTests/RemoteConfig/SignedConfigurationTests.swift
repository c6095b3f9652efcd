import Foundation
@testable import Mediation
import MediationTestKit
import Testing

/// Signed configurations (engine rule R22): the release fields the loader reads, the envelope,
/// signing and verification, keys and their ids, and staged-rollout buckets.
@Suite("Signed configurations")
struct SignedConfigurationTests {
    @Test("the loader reads config_version, issued_at and rollout, strictly, with their JSON paths")
    func releaseFields() throws {
        let registry = RemoteConfigFixture.registry
        let loader = ConfigurationLoader(registry: registry)
        let plain = try loader.load(json: RemoteConfigFixture.configJSON(version: nil))
        #expect(plain.version == 0 && plain.issuedAt == nil && plain.rollout == nil)
        let signed = try loader.load(json: RemoteConfigFixture.configJSON(version: 7, rollout: #"{"percent": 12.5, "salt": "s1"}"#))
        #expect(signed.version == 7)
        #expect(signed.issuedAt?.description == "2026-12-01T14:00:00.000Z")
        #expect(signed.rollout?.basisPoints == 1250 && signed.rollout?.salt == "s1")
        let cases: [(String, String, String)] = [
            (#""config_version": -1,"#, "config_version", "from 0"),
            (#""config_version": 1.5,"#, "config_version", "whole number"),
            (#""config_version": 9007199254740992,"#, "config_version", "9007199254740991"),
            (#""issued_at": "2026-02-30T00:00:00Z","#, "issued_at", "RFC 3339"),
            (#""issued_at": "2026-12-01 14:00:00","#, "issued_at", "RFC 3339"),
            (#""rollout": {"percent": 100.5, "salt": "s"},"#, "rollout.percent", "0 to 100"),
            (#""rollout": {"percent": 12.345, "salt": "s"},"#, "rollout.percent", "two decimals"),
            (#""rollout": {"percent": 10},"#, "rollout.salt", "missing"),
            (#""rollout": {"percent": 10, "salt": "s", "extra": 1},"#, "rollout.extra", "unknown"),
        ]
        for (field, path, words) in cases {
            let json = RemoteConfigFixture.configJSON(version: nil).replacingOccurrences(of: #""networks":"#, with: field + #" "networks":"#)
            #expect { try loader.load(json: json) } throws: { error in
                guard let error = error as? ConfigurationError else { return false }
                return error.path == path && (error.message.contains(words) || error.code.rawValue.contains(words))
            }
        }
    }

    @Test("sign then verify: version, key id, issued_at and rollout come back; the payload is the configuration")
    func signAndVerify() throws {
        let fixture = RemoteConfigFixture()
        let envelope = try fixture.signed(version: 3, rollout: MediationConfiguration.Rollout(percent: 25, salt: "wave-1"))
        let verified = try SignedConfiguration.verify(envelope, trustedKeys: [fixture.key.publicKey], registry: RemoteConfigFixture.registry).get()
        #expect(verified.version == 3)
        #expect(verified.keyID == fixture.key.publicKey.id)
        #expect(verified.configuration.issuedAt == WallClockTime(rfc3339: "2026-12-01T14:00:00Z"))
        #expect(verified.configuration.rollout == MediationConfiguration.Rollout(percent: 25, salt: "wave-1"))
        #expect(verified.configuration.placements.map(\.id) == ["home_banner"])
        #expect(verified.envelope == envelope)
    }

    @Test("refused: a changed byte anywhere in the configuration, an unknown key, a plain configuration, a missing signature, garbage")
    func refusals() throws {
        let fixture = RemoteConfigFixture()
        let envelope = try fixture.signed(version: 3)
        let trusted = [fixture.key.publicKey]
        func code(_ data: Data, keys: [MediationEngine.RemoteConfiguration.PublicKey]? = nil) -> MediationEngine.RemoteConfiguration.Update.Code? {
            guard case .failure(let rejection) = SignedConfiguration.verify(data, trustedKeys: keys ?? trusted, registry: RemoteConfigFixture.registry) else { return nil }
            return rejection.code
        }
        // Every byte of the signed configuration is covered: change each of a spread of them.
        let parsed = try SignedConfiguration.parse(envelope).get()
        for offset in stride(from: 0, to: parsed.payload.count, by: max(1, parsed.payload.count / 40)) {
            var changed = parsed
            changed.payload[offset] ^= 0x01
            #expect(code(changed.rendered()) == .badSignature, "byte \(offset)")
        }
        var signature = parsed
        signature.signature[0] ^= 0x80
        #expect(code(signature.rendered()) == .badSignature)
        let other = try ConfigurationSigningKey.generate()
        #expect(code(envelope, keys: [other.publicKey]) == .unknownKey)
        #expect(code(Data(RemoteConfigFixture.configJSON(version: 3).utf8)) == .badSignature)
        let unsigned = String(decoding: envelope, as: UTF8.self).replacingOccurrences(of: #""signature": ""#, with: #""signature": "", "x": ""#)
        #expect(code(Data(unsigned.utf8)) == .malformedEnvelope)
        #expect(code(Data("not json".utf8)) == .malformedEnvelope)
        #expect(code(Data(String(decoding: envelope, as: UTF8.self).replacingOccurrences(of: "mediation-signed-config-v1", with: "mediation-signed-config-v9").utf8)) == .malformedEnvelope)
        #expect(code(Data(repeating: 0x20, count: SignedConfiguration.maximumBytes + 1)) == .tooLarge)
    }

    @Test("a configuration that fails the loader inside a valid signature is refused with its JSON path")
    func invalidInsideAValidSignature() throws {
        let fixture = RemoteConfigFixture()
        let invalid = RemoteConfigFixture.configJSON(version: 4).replacingOccurrences(of: #""ecpm": 1.2"#, with: #""ecpm": 0"#)
        let envelope = try fixture.sign(raw: invalid)
        guard case .failure(let rejection) = SignedConfiguration.verify(envelope, trustedKeys: [fixture.key.publicKey], registry: RemoteConfigFixture.registry) else {
            Issue.record("an invalid configuration verified")
            return
        }
        #expect(rejection.code == .invalidConfig)
        #expect(rejection.path == "placements.home_banner.sources[0].ecpm")
        let unversioned = try fixture.sign(raw: RemoteConfigFixture.configJSON(version: nil))
        guard case .failure(let missing) = SignedConfiguration.verify(unversioned, trustedKeys: [fixture.key.publicKey], registry: RemoteConfigFixture.registry) else {
            Issue.record("a signed configuration without a version verified")
            return
        }
        #expect(missing.code == .invalidConfig && missing.path == "config_version")
    }

    @Test("signing an envelope signs its configuration again under the new version (rollback in one command)")
    func resigningAnEnvelope() throws {
        let fixture = RemoteConfigFixture()
        let v3 = try fixture.signed(version: 3, rollout: MediationConfiguration.Rollout(percent: 10, salt: "a"))
        let v9 = try ConfigurationSigner.sign(v3, key: fixture.key, version: 9, issuedAt: WallClockTime(millisecondsSince1970: 0), rollout: nil, registry: RemoteConfigFixture.registry)
        let verified = try SignedConfiguration.verify(v9, trustedKeys: [fixture.key.publicKey], registry: RemoteConfigFixture.registry).get()
        let original = try SignedConfiguration.verify(v3, trustedKeys: [fixture.key.publicKey], registry: RemoteConfigFixture.registry).get()
        #expect(verified.version == 9 && verified.configuration.rollout == nil)
        #expect(verified.configuration.placements == original.configuration.placements)
        #expect(verified.configuration.networks == original.configuration.networks)
        #expect(verified.configuration.issuedAt == WallClockTime(millisecondsSince1970: 0))
    }

    @Test("public key lines: the id is derived from the key; a wrong id, a short key or another format is refused")
    func publicKeyLines() throws {
        let key = try ConfigurationSigningKey.generate()
        let line = key.publicKey.line
        #expect(try MediationEngine.RemoteConfiguration.PublicKey(line) == key.publicKey)
        #expect(try MediationEngine.RemoteConfiguration.PublicKey("  \(line)\n") == key.publicKey)
        #expect(key.publicKey.id.count == 16)
        let words = line.split(separator: " ")
        #expect(throws: MediationEngine.RemoteConfiguration.PublicKey.FormatError.self) { try MediationEngine.RemoteConfiguration.PublicKey("\(words[0]) 0000000000000000 \(words[2])") }
        #expect(throws: MediationEngine.RemoteConfiguration.PublicKey.FormatError.self) { try MediationEngine.RemoteConfiguration.PublicKey("\(words[0]) \(words[1]) AAAA") }
        #expect(throws: MediationEngine.RemoteConfiguration.PublicKey.FormatError.self) { try MediationEngine.RemoteConfiguration.PublicKey("ssh-ed25519 \(words[1]) \(words[2])") }
        #expect(try ConfigurationSigningKey(line: key.line).publicKey == key.publicKey)
        #expect(throws: MediationEngine.RemoteConfiguration.PublicKey.FormatError.self) { try ConfigurationSigningKey(line: line) }
    }

    @Test("rollout buckets: SHA-256(install id + salt) mod 10,000; a wider rollout keeps its installs; a new salt draws anew")
    func rolloutBuckets() throws {
        let ids = (0..<2000).map { String(format: "%032x", $0 &* 2_654_435_761) }
        let ten = try #require(MediationConfiguration.Rollout(percent: 10, salt: "wave"))
        let fifty = try #require(MediationConfiguration.Rollout(percent: 50, salt: "wave"))
        let otherSalt = try #require(MediationConfiguration.Rollout(percent: 10, salt: "wave-2"))
        let inTen = Set(ids.filter(ten.includes))
        let inFifty = Set(ids.filter(fifty.includes))
        #expect(inTen.isSubset(of: inFifty))
        #expect((150...250).contains(inTen.count), "10 % of 2000 installs: \(inTen.count)")
        #expect((900...1100).contains(inFifty.count), "50 % of 2000 installs: \(inFifty.count)")
        #expect(Set(ids.filter(otherSalt.includes)) != inTen)
        #expect(try #require(MediationConfiguration.Rollout(percent: 0, salt: "s")).includes(ids[0]) == false)
        #expect(ids.allSatisfy(try #require(MediationConfiguration.Rollout(percent: 100, salt: "s")).includes))
        // The bucket is the first 8 bytes of the digest, big-endian, mod 10,000.
        let digest = SHA256Digest.hash(Array((ids[0] + "wave").utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(ten.bucket(of: ids[0]) == Int(value % 10_000))
        #expect(MediationConfiguration.Rollout(percent: 12.345, salt: "s") == nil)
        #expect(MediationConfiguration.Rollout(percent: 10, salt: "") == nil)
    }
}

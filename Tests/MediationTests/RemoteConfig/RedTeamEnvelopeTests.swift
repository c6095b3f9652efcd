import Foundation
@testable import Mediation
import MediationTestKit
import Testing

/// Red-team attacks on the signed envelope, the release fields inside it and the HTTP headers
/// (engine rule R22): each forged, malformed or hostile input is refused with a code (and a
/// JSON path where one applies), never accepted, never a crash.
@Suite("Red team: forged and malformed signed configurations")
struct RedTeamEnvelopeTests {
    private let fixture = RemoteConfigFixture()
    private var trusted: [MediationEngine.RemoteConfiguration.PublicKey] { [fixture.key.publicKey] }

    private func rejection(_ data: Data, keys: [MediationEngine.RemoteConfiguration.PublicKey]? = nil) -> SignedConfiguration.Rejection? {
        switch SignedConfiguration.verify(data, trustedKeys: keys ?? trusted, registry: RemoteConfigFixture.registry) {
        case .success: nil
        case .failure(let rejection): rejection
        }
    }

    private func envelope(format: String = SignedConfiguration.format, keyID: String, signature: String, config: String, extra: String = "") -> Data {
        Data(#"{"format": "\#(format)", "key_id": "\#(keyID)", "signature": "\#(signature)", "config": "\#(config)"\#(extra)}"#.utf8)
    }

    @Test("a valid signature over other bytes, moved onto this configuration, does not verify")
    func signatureOverOtherBytes() throws {
        let cheap = try SignedConfiguration.parse(try fixture.signed(version: 5, eCPM: "0.1")).get()
        let dear = try SignedConfiguration.parse(try fixture.signed(version: 5, eCPM: "9.9")).get()
        var forged = dear
        forged.signature = cheap.signature
        #expect(rejection(forged.rendered())?.code == .badSignature)
        // A signature of the envelope's own JSON, or of the base64 text, is not one of the bytes.
        var overText = dear
        overText.signature = try fixture.key.sign(Array(Data(dear.payload).base64EncodedString().utf8))
        #expect(rejection(overText.rendered())?.code == .badSignature)
    }

    @Test("key id swapped to another trusted key, or to an untrusted one: bad_signature or unknown_key")
    func keyIDSwapped() throws {
        let other = try ConfigurationSigningKey.generate()
        let parsed = try SignedConfiguration.parse(try fixture.signed(version: 2)).get()
        var swapped = parsed
        swapped.keyID = other.publicKey.id
        #expect(rejection(swapped.rendered(), keys: [fixture.key.publicKey, other.publicKey])?.code == .badSignature)
        #expect(rejection(swapped.rendered())?.code == .unknownKey)
        // Signed by the other key, but naming the trusted one.
        var named = parsed
        named.signature = try other.sign(parsed.payload)
        #expect(rejection(named.rendered())?.code == .badSignature)
        // Case and padding games on the key id never match a trusted key.
        var upper = parsed
        upper.keyID = parsed.keyID.uppercased()
        #expect(rejection(upper.rendered())?.code == .unknownKey)
        var padded = parsed
        padded.keyID = parsed.keyID + " "
        #expect(rejection(padded.rendered())?.code == .unknownKey)
    }

    @Test("a malleated signature (S + L, the same point) is refused: one configuration has one valid signature")
    func malleatedSignature() throws {
        let parsed = try SignedConfiguration.parse(try fixture.signed(version: 2)).get()
        // L, the group order, little-endian.
        let order: [UInt8] = [0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
                              0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10]
        var s = Array(parsed.signature[32..<64])
        var carry = 0
        for index in 0..<32 {
            let sum = Int(s[index]) + Int(order[index]) + carry
            s[index] = UInt8(sum & 0xff)
            carry = sum >> 8
        }
        #expect(carry == 0)
        var malleated = parsed
        malleated.signature = Array(parsed.signature[0..<32]) + s
        #expect(rejection(malleated.rendered())?.code == .badSignature)
    }

    @Test("duplicated envelope keys are refused, whichever copy a lenient reader would take")
    func duplicatedKeys() throws {
        let good = try SignedConfiguration.parse(try fixture.signed(version: 3)).get()
        let other = try SignedConfiguration.parse(try fixture.signed(version: 9, eCPM: "9.9")).get()
        let signature = Data(good.signature).base64EncodedString()
        let config = Data(good.payload).base64EncodedString()
        let cases = [
            #", "config": "\#(Data(other.payload).base64EncodedString())""#,
            #", "signature": "\#(Data(other.signature).base64EncodedString())""#,
            #", "key_id": "ffffffffffffffff""#,
            #", "format": "mediation-signed-config-v1""#,
        ]
        for extra in cases {
            let data = envelope(keyID: good.keyID, signature: signature, config: config, extra: extra)
            let refused = rejection(data)
            #expect(refused?.code == .malformedEnvelope, "\(extra): \(String(describing: refused))")
            #expect(refused?.message.contains("appears twice") == true)
        }
    }

    @Test("a truncated envelope, cut anywhere, never verifies and never traps")
    func truncated() throws {
        let data = try fixture.signed(version: 3)
        for length in stride(from: 0, to: data.count - 2, by: max(1, data.count / 120)) {
            #expect(rejection(data.prefix(length)) != nil, "cut at \(length)")
        }
        // The closing brace cut, the last newline kept.
        #expect(rejection(Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "}", with: "").utf8))?.code == .malformedEnvelope)
    }

    @Test("huge or hostile fields: a 1 MB key id, a 65-byte key id, a signature of the wrong length, a huge format, a non-string field, nested JSON")
    func hugeFields() throws {
        let good = try SignedConfiguration.parse(try fixture.signed(version: 3)).get()
        let signature = Data(good.signature).base64EncodedString()
        let config = Data(good.payload).base64EncodedString()
        #expect(rejection(envelope(keyID: String(repeating: "a", count: 1 << 20), signature: signature, config: config))?.code == .malformedEnvelope)
        #expect(rejection(envelope(keyID: String(repeating: "a", count: 65), signature: signature, config: config))?.code == .malformedEnvelope)
        #expect(rejection(envelope(keyID: good.keyID, signature: Data(good.signature + [0]).base64EncodedString(), config: config))?.code == .badSignature)
        #expect(rejection(envelope(keyID: good.keyID, signature: Data(good.signature.prefix(63)).base64EncodedString(), config: config))?.code == .badSignature)
        #expect(rejection(envelope(keyID: good.keyID, signature: "!!not base64!!", config: config))?.code == .badSignature)
        #expect(rejection(envelope(keyID: good.keyID, signature: signature, config: "!!"))?.code == .malformedEnvelope)
        #expect(rejection(envelope(keyID: good.keyID, signature: signature, config: ""))?.code == .malformedEnvelope)
        let hugeFormat = envelope(format: String(repeating: "f", count: 500_000), keyID: good.keyID, signature: signature, config: config)
        let refused = try #require(rejection(hugeFormat))
        #expect(refused.code == .malformedEnvelope && refused.message.utf8.count < 300)
        let numeric = Data(#"{"format": "mediation-signed-config-v1", "key_id": 7, "signature": "\#(signature)", "config": "\#(config)"}"#.utf8)
        #expect(rejection(numeric)?.code == .malformedEnvelope)
        let nested = Data(#"{"format": "mediation-signed-config-v1", "key_id": "\#(good.keyID)", "signature": "\#(signature)", "config": {"networks": {}}}"#.utf8)
        #expect(rejection(nested)?.code == .malformedEnvelope)
        #expect(rejection(Data("[]".utf8))?.code == .malformedEnvelope)
        #expect(rejection(Data(String(repeating: "[", count: 100_000).utf8)) != nil)
        #expect(rejection(Data()) != nil)
    }

    @Test("an envelope signed inside an envelope is not a configuration", arguments: [false, true])
    func envelopeInsideAnEnvelope(resign: Bool) throws {
        let inner = String(decoding: try fixture.signed(version: 3), as: UTF8.self)
        let outer = try fixture.sign(raw: inner)
        let refused = try #require(rejection(outer))
        #expect(refused.code == .invalidConfig && refused.path != nil)
    }

    @Test("config_version inside a valid signature: non-integer, negative, overflowing, a string, null or missing is refused at config_version",
          arguments: [#""2""#, "-1", "0", "1.5", "1e2", "1e400", "99999999999999999999999", "9007199254740992", "null", "true", "[3]", "-0"])
    func hostileVersion(value: String) throws {
        let json = RemoteConfigFixture.configJSON(version: 1).replacingOccurrences(of: #""config_version": 1"#, with: #""config_version": \#(value)"#)
        let refused = try #require(rejection(try fixture.sign(raw: json)), "\(value) verified")
        #expect(refused.code == .invalidConfig)
        #expect(refused.path == "config_version", "\(value): \(refused)")
    }

    @Test("rollout inside a valid signature: out of range, overflowing, not a number, a missing or empty or huge salt is refused at its JSON path",
          arguments: [
              (#"{"percent": -0.01, "salt": "s"}"#, "rollout.percent"),
              (#"{"percent": 100.01, "salt": "s"}"#, "rollout.percent"),
              (#"{"percent": 1e400, "salt": "s"}"#, "rollout.percent"),
              (#"{"percent": -1e400, "salt": "s"}"#, "rollout.percent"),
              (#"{"percent": "50", "salt": "s"}"#, "rollout.percent"),
              (#"{"percent": null, "salt": "s"}"#, "rollout.percent"),
              (#"{"percent": 50}"#, "rollout.salt"),
              (#"{"percent": 50, "salt": ""}"#, "rollout.salt"),
              (#"{"percent": 50, "salt": 7}"#, "rollout.salt"),
              (#"{"percent": 50, "salt": "\#(String(repeating: "s", count: 101))"}"#, "rollout.salt"),
              (#"{"salt": "s"}"#, "rollout.percent"),
              (#"[50, "s"]"#, "rollout"),
              (#""50%""#, "rollout"),
          ])
    func hostileRollout(rollout: String, path: String) throws {
        let json = RemoteConfigFixture.configJSON(version: 4, rollout: rollout)
        let refused = try #require(rejection(try fixture.sign(raw: json)), "\(rollout) verified")
        #expect(refused.code == .invalidConfig)
        #expect(refused.path == path, "\(rollout): \(refused)")
    }

    @Test("NaN or infinity cannot reach a rollout built in code either")
    func rolloutInCode() {
        #expect(MediationConfiguration.Rollout(percent: .nan, salt: "s") == nil)
        #expect(MediationConfiguration.Rollout(percent: .infinity, salt: "s") == nil)
        #expect(MediationConfiguration.Rollout(percent: -.infinity, salt: "s") == nil)
        #expect(MediationConfiguration.Rollout(percent: -0.0, salt: "s")?.basisPoints == 0)
        #expect(MediationConfiguration.Rollout(percent: 100, salt: "s")?.includes("00112233445566778899aabbccddeeff") == true)
        #expect(MediationConfiguration.Rollout(percent: 0, salt: "s")?.includes("00112233445566778899aabbccddeeff") == false)
    }

    @Test("hostile caching headers: negative, garbage, fractional, overflowing or repeated directives and an absurd Retry-After stay within the bounds")
    func hostileHeaders() {
        let wall = WallClockTime(millisecondsSince1970: 1_796_220_000_000)
        let settings = MediationEngine.RemoteConfiguration(url: URL(string: "https://c.example/x")!, trustedKeys: [], transport: ScriptedTransport(clock: ManualClock()))
        for header in ["max-age=-1", "max-age=abc", "max-age=1.5", "max-age=", "max-age", "max-age=0x10", "max-age=+60", "max-age=" + String(repeating: "9", count: 40)] {
            let parsed = HTTPCacheHeaders(["Cache-Control": header], wallClock: wall)
            #expect(parsed.maxAge == nil || parsed.maxAge == HTTPCacheHeaders.maximumSeconds, "\(header)")
            var policy = RemoteFetchPolicy(settings: settings, seed: 1, now: .origin)
            policy.record(.answered(parsed), at: .origin)
            let next = policy.nextCheck - .origin
            #expect(next >= settings.minimumInterval && next <= settings.maximumInterval, "\(header): \(next)")
        }
        var zero = RemoteFetchPolicy(settings: settings, seed: 1, now: .origin)
        zero.record(.answered(HTTPCacheHeaders(["Cache-Control": "max-age=0"], wallClock: wall)), at: .origin)
        #expect(zero.nextCheck == .origin + settings.minimumInterval) // never a busy loop
        for retry in ["-5", "1e9", "99999999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 0001 00:00:00 GMT", "garbage", ""] {
            let parsed = HTTPCacheHeaders(["Retry-After": retry, "Date": "Tue, 01 Dec 2026 14:45:00 GMT"], wallClock: wall)
            var policy = RemoteFetchPolicy(settings: settings, seed: 1, now: .origin)
            policy.record(.busy(retryAfter: parsed.retryAfter), at: .origin)
            let next = policy.nextCheck - .origin
            #expect(next >= settings.minimumInterval && next <= settings.maximumInterval, "Retry-After \(retry): \(next)")
        }
    }

    @Test("a tampered cache's metadata at the limits of Int64 never traps the schedule")
    func tamperedMetadataExtremes() {
        let settings = MediationEngine.RemoteConfiguration(url: URL(string: "https://c.example/x")!, trustedKeys: [], transport: ScriptedTransport(clock: ManualClock()))
        let wall = WallClockTime(millisecondsSince1970: 1_796_220_000_000)
        for fetched in [Int64.min, Int64.min + 1, -1, 0, Int64.max, Int64.max - 1, -9_000_000_000_000_000_000] {
            for maxAge in [Int.min, -1, 0, Int.max] {
                var policy = RemoteFetchPolicy(settings: settings, seed: 1, now: .origin + .seconds(5))
                _ = policy.resume(entityTag: "\"x\"", fetchedAt: WallClockTime(millisecondsSince1970: fetched), maxAgeSeconds: maxAge, staleSeconds: maxAge, wallClock: wall, now: .origin + .seconds(5))
                let next = policy.nextCheck - (.origin + .seconds(5))
                #expect(next >= .zero && next <= settings.maximumInterval, "fetched \(fetched), max-age \(maxAge): \(next)")
            }
        }
    }
}

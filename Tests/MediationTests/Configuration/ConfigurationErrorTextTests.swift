import Foundation
import MediationTestKit
import Testing
@testable import Mediation

/// Errors stay short and on one line whatever the file holds (a 3.9 MB key, control characters),
/// and the R19 floor rule leaves fillable placements alone.
@Suite("Configuration error text")
struct ConfigurationErrorTextTests {
    /// The error loading `json` gives, worked out on a thread of its own (megabytes of JSON).
    static func loadError(_ json: String) async -> ConfigurationError? {
        await onOwnThread {
            do throws(ConfigurationError) {
                _ = try ConfigurationFixture.load(json)
                return nil
            } catch {
                return error
            }
        }
    }

    @Test("a 3.9 MB unknown key gives a one-line error of a few hundred characters, quoting an 80-character excerpt")
    func aHugeUnknownKeyIsQuotedAsAnExcerpt() async throws {
        let key = String(repeating: "k", count: 3_900_000)
        let json = ConfigurationFixture.edited(#""networks": {"#, "\"\(key)\": 1, \"networks\": {")
        let error = try #require(await Self.loadError(json))
        #expect(error.code == .unknownKey)
        #expect(error.description.count < 800, "\(error.description.count) characters")
        #expect(error.message.contains("\"" + String(repeating: "k", count: 80) + "…\""))
        #expect(!error.message.contains(String(repeating: "k", count: 81)))
        #expect(error.path.hasPrefix("[\"kkkk"))
        #expect(error.path.count <= 90)
    }

    @Test("a huge string value, a huge adapter name and a huge network reference are quoted as excerpts")
    func hugeValuesAreExcerpts() async throws {
        let long = String(repeating: "x", count: 1_000_000)
        let edits: [(String, String)] = [
            (#""mode": "waterfall""#, "\"mode\": \"\(long)\""),
            (#""adapter": "fallback""#, "\"adapter\": \"\(long)\""),
            (#""network": "fb", "ad_unit_id": "u3""#, "\"network\": \"\(long)\", \"ad_unit_id\": \"u3\""),
            (#""endpoint": "sandbox""#, "\"endpoint\": \"https://\(long)/ x\""),
        ]
        for (old, new) in edits {
            let error = try #require(await Self.loadError(ConfigurationFixture.edited(old, new)))
            #expect(error.description.count < 800, "\(error.code): \(error.description.count) characters")
        }
    }

    @Test("a whole number out of range with thousands of digits is quoted as a 24-character excerpt; a fractional config_version reads as English")
    func hugeWholeNumbersAreExcerpts() throws {
        let digits = "3" + String(repeating: "0", count: 5000)
        let json = ConfigurationFixture.edited(#""refresh_seconds": 60"#, "\"refresh_seconds\": \(digits)")
        let error = try #require(throws: ConfigurationError.self) { try ConfigurationFixture.load(json) }
        #expect(error.path == "placements.home_banner.refresh_seconds")
        #expect(error.message.hasSuffix("found " + String(digits.prefix(24)) + "…"), "\(error.message)")
        #expect(error.description.count < 200, "\(error.description.count) characters")
        let fractional = ConfigurationFixture.edited(#""$schema": "./mediation.schema.json","#, #""$schema": "./mediation.schema.json", "config_version": 1.5,"#)
        let versionError = try #require(throws: ConfigurationError.self) { try ConfigurationFixture.load(fractional) }
        #expect(versionError.message == "expected a whole number (a version number), found number 1.5", "\(versionError.message)")
    }

    @Test("control characters in a key or a value are escaped: the error is one line with no raw ESC")
    func controlCharactersAreEscaped() throws {
        let json = ConfigurationFixture.edited(#""mode": "waterfall""#, #""mode": "wa\u001b[31mRED\nFAKE""#)
        let error = try #require(throws: ConfigurationError.self) { try ConfigurationFixture.load(json) }
        #expect(!error.description.contains("\u{1B}"))
        #expect(!error.description.contains("\n"))
        #expect(error.message.contains(#"wa\u{1B}[31mRED\u{0A}FAKE"#))
        let keyed = ConfigurationFixture.edited(#""networks": {"#, #""e\u001bvil": 1, "networks": {"#)
        let keyError = try #require(throws: ConfigurationError.self) { try ConfigurationFixture.load(keyed) }
        #expect(!keyError.description.contains("\u{1B}"))
    }

    @Test("R19 floor: a floor equal to the best fixed eCPM, or any floor with a bidder, loads")
    func reachableFloorsLoad() throws {
        _ = try ConfigurationFixture.load(ConfigurationFixture.edited(#""floor": 0.1"#, #""floor": 5"#))
        _ = try ConfigurationFixture.load(ConfigurationFixture.edited(#""refresh_seconds": 60,"#, #""refresh_seconds": 60, "floor": 900,"#))
    }
}

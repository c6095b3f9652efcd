import Foundation
import MediationTestKit
import Testing
@testable import Mediation

/// Red-team attacks on the configuration loader (R15): files that never end or are huge,
/// other encodings, JSON's missing number literals, negative zero, prices that only break
/// once converted, ids that are equal as Unicode, and bounded errors for huge keys. Each must
/// fail with a clear error naming its JSON path, never crash or hang.
@Suite("Hostile configurations (R15)")
struct HostileConfigurationTests {
    private static func error(_ json: String) -> ConfigurationError? {
        do {
            _ = try ConfigurationFixture.load(json)
            return nil
        } catch {
            return error
        }
    }

    /// ``error(_:)`` on a thread of its own: parsing megabytes in a debug build stays off the
    /// concurrency pool that the real-clock tests share.
    private static func errorOffPool(_ json: String) async -> ConfigurationError? {
        await onOwnThread { error(json) }
    }

    private static func error(contentsOf url: URL) -> ConfigurationError? {
        do {
            _ = try MediationConfiguration(contentsOf: url, registry: ConfigurationFixture.registry)
            return nil
        } catch {
            return error
        }
    }

    @Test("a signed envelope given as a plain configuration says it is one and how it is read, not 'format: unknown key'")
    func aSignedEnvelopeIsNamed() throws {
        let envelope = #"{"format": "mediation-signed-config-v1", "key_id": "c882f47debb3cd17", "signature": "AA==", "config": "e30="}"#
        let error = try #require(Self.error(envelope))
        #expect(error.code == .unknownKey && error.path == "format")
        #expect(error.message.hasPrefix("this is a signed configuration (mediation-signed-config-v1), not a plain one"), "\(error.message)")
        // Any other "format" is an unknown key as before.
        let other = try #require(Self.error(ConfigurationFixture.edited(#""networks": {"#, #""format": "v2", "networks": {"#)))
        #expect(other.code == .unknownKey && other.message.hasPrefix("unknown key \"format\""), "\(other.message)")
    }

    @Test("a device that never ends (/dev/zero) is refused, not read forever")
    func deviceThatNeverEnds() throws {
        let url = URL(fileURLWithPath: "/dev/zero")
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let error = try #require(Self.error(contentsOf: url))
        #expect([.unreadableFile, .syntax].contains(error.code))
        #expect(error.path == "$")
    }

    @Test("a 50 MB file is refused at the root as too large")
    func fiftyMegabyteFile() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-50mb-\(UUID().uuidString).json")
        #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 50 * 1024 * 1024) // a sparse file of NUL bytes
        try handle.close()
        let error = try #require(await onOwnThread { Self.error(contentsOf: url) })
        #expect(error.code == .syntax)
        #expect(error.path == "$")
        #expect(error.message.contains("larger than 4 MiB"))
    }

    @Test("a config reached through a symbolic link loads (only devices, FIFOs and directories are refused)")
    func symbolicLinkLoads() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("real.json")
        try Data(ConfigurationFixture.base.utf8).write(to: target)
        let link = directory.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let configuration = try MediationConfiguration(contentsOf: link, registry: ConfigurationFixture.registry)
        #expect(configuration.placements.count == 2)
    }

    @Test("UTF-16 with a byte-order mark, Latin-1 and NUL bytes are not UTF-8 JSON", arguments: [
        [0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00] as [UInt8],
        Array(#"{"networks": {"caf"#.utf8) + [0xE9] + Array(#"": {}}}"#.utf8),
        Array(#"{"networks": {}, "placements": {}}"#.utf8) + [0x00],
    ])
    func otherEncodings(_ bytes: [UInt8]) throws {
        let error = try #require(throws: ConfigurationError.self) {
            try MediationConfiguration(data: Data(bytes), registry: ConfigurationFixture.registry)
        }
        #expect(error.code == .syntax)
        #expect(!error.description.contains("\u{0}"))
    }

    @Test("NaN, Infinity, hex, a plus sign and a bare minus are syntax errors at the value's path", arguments: ["NaN", "Infinity", "-Infinity", "0x10", "+1", "-", ".5", "1.", "01"])
    func numbersJSONDoesNotHave(_ literal: String) throws {
        let error = try #require(Self.error(ConfigurationFixture.edited(#""ecpm": 0.8"#, #""ecpm": \#(literal)"#)))
        #expect(error.code == .syntax)
        // The value's path, or (`0x10`: the number `0` then a stray `x`) its source's, with the line.
        #expect(error.path.hasPrefix("placements.home_banner.sources[2]"))
        #expect(error.message.contains("(line "))
    }

    @Test("negative zero is not a positive price, deadline or refresh", arguments: [
        (#""ecpm": 0.8"#, #""ecpm": -0"#, ConfigurationError.Code.invalidPrice, "placements.home_banner.sources[2].ecpm"),
        (#""ecpm": 0.8"#, #""ecpm": -0.0e5"#, .invalidPrice, "placements.home_banner.sources[2].ecpm"),
        (#""deadline_ms": 2000"#, #""deadline_ms": -0"#, .invalidDeadline, "placements.level_end.deadline_ms"),
        (#""refresh_seconds": 60"#, #""refresh_seconds": -0"#, .invalidRefresh, "placements.home_banner.refresh_seconds"),
        (#""max_height": 90"#, #""max_height": -0"#, .invalidValue, "placements.home_banner.slot.max_height"),
    ])
    func negativeZero(_ old: String, _ new: String, _ code: ConfigurationError.Code, _ path: String) throws {
        let error = try #require(Self.error(ConfigurationFixture.edited(old, new)))
        #expect(error.code == code)
        #expect(error.path == path)
    }

    @Test("prices under one micro, denormals, and prices that overflow or vanish once converted are refused at the source", arguments: [
        (#""ecpm": 0.8"#, #""ecpm": 1e-7"#),
        (#""ecpm": 0.8"#, #""ecpm": 5e-324"#),
        (#""ecpm": 0.8"#, #""ecpm": 10, "currency": "EUR""#),
        (#""ecpm": 0.8"#, #""ecpm": 0.8, "currency": "JPY""#),
    ])
    func pricesThatBreakOnceConverted(_ old: String, _ new: String) throws {
        let json = ConfigurationFixture.edited(old, new).replacingOccurrences(of: #""EUR": 1.08"#, with: #""EUR": 1e308, "JPY": 1e-300"#)
        let error = try #require(Self.error(json))
        #expect(error.code == .invalidPrice)
        #expect(error.path == "placements.home_banner.sources[2].ecpm")
    }

    @Test("a floor above every eCPM once converted to USD is unfillable; one just below loads")
    func floorAboveEveryConvertedECPM() throws {
        let level = #""sources": [ { "id": "fb_x", "network": "fb", "ad_unit_id": "u4", "ecpm": 5, "timeout_ms": 1500 } ]"#
        let inYen = #""sources": [ { "id": "fb_x", "network": "fb", "ad_unit_id": "u4", "ecpm": 100, "currency": "JPY" } ]"#
        let json = ConfigurationFixture.edited(level, inYen).replacingOccurrences(of: #""EUR": 1.08"#, with: #""JPY": 0.0067"#)
        let unfillable = try #require(Self.error(json.replacingOccurrences(of: #""floor": 0.1"#, with: #""floor": 1"#)))
        #expect(unfillable.code == .unfillable)
        #expect(unfillable.path == "placements.level_end.floor")
        _ = try ConfigurationFixture.load(json.replacingOccurrences(of: #""floor": 0.1"#, with: #""floor": 0.67"#))
    }

    @Test("two source ids that are the same text in different Unicode normal forms are one id")
    func unicodeEquivalentIDs() throws {
        let json = ConfigurationFixture.edited(#""id": "fb_a""#, #""id": "caf\u00e9""#)
            .replacingOccurrences(of: #""id": "fb_b""#, with: #""id": "cafe\u0301""#)
        let error = try #require(Self.error(json))
        #expect(error.code == .duplicateID)
        #expect(error.path == "placements.home_banner.sources[2].id")
    }

    @Test("a number of 100,000 digits is out of range, quickly, and quoted short")
    func hundredThousandDigits() async throws {
        let digits = String(repeating: "9", count: 100_000)
        for (old, new, code) in [
            (#""refresh_seconds": 60"#, #""refresh_seconds": \#(digits)"#, ConfigurationError.Code.invalidRefresh),
            (#""ecpm": 0.8"#, #""ecpm": \#(digits)"#, .invalidPrice),
            (#""ecpm": 0.8"#, #""ecpm": 0.\#(String(repeating: "0", count: 100_000))1"#, .invalidPrice),
        ] {
            let error = try #require(await Self.errorOffPool(ConfigurationFixture.edited(old, new)))
            #expect(error.code == code, "\(new.prefix(30))")
            #expect(error.description.count < 800)
        }
    }

    @Test("nesting inside a network's options: 64 levels are refused with the path inside options")
    func deepOptions() throws {
        let deep = String(repeating: #"{"a":"#, count: 70) + "1" + String(repeating: "}", count: 70)
        let error = try #require(Self.error(ConfigurationFixture.edited(#""fill_rate": 0.5"#, #""fill_rate": \#(deep)"#)))
        #expect(error.code == .syntax)
        #expect(error.path.hasPrefix("networks.fb.options.fill_rate.a.a"))
        #expect(error.description.count < 800)
    }

    @Test("a 600 KB placement id and network id (a 3.6 MB file) load; an error inside them stays one short line")
    func hugeIDs() async throws {
        let long = String(repeating: "p", count: 600_000)
        let json = ConfigurationFixture.edited(#""level_end": {"#, #""\#(long)": {"#)
            .replacingOccurrences(of: #""fb": {"#, with: #""fb\#(long)": {"#)
            .replacingOccurrences(of: #""network": "fb""#, with: #""network": "fb\#(long)""#)
        let loaded = await onOwnThread { () -> Bool in (try? ConfigurationFixture.load(json))?.placement(long) != nil }
        #expect(loaded)
        let error = try #require(await Self.errorOffPool(json.replacingOccurrences(of: #""mode": "waterfall""#, with: #""mode": "\#(long)""#)))
        #expect(error.code == .invalidValue)
        #expect(error.description.count < 800)
    }

    @Test("an endpoint port outside 1...65535 is refused at the endpoint's path", arguments: ["https://bid.example.com:99999/v1", "https://bid.example.com:0/v1", "https://bid.example.com:65536"])
    func endpointPortOutOfRange(_ endpoint: String) throws {
        let error = try #require(Self.error(ConfigurationFixture.edited(#""endpoint": "https://bid.example.com/v1""#, #""endpoint": "\#(endpoint)""#)))
        #expect(error.code == .invalidValue)
        #expect(error.path == "networks.bid.endpoint")
    }

    @Test("an endpoint with credentials in it is refused without quoting them (ConfigurationError's description never contains credentials)", arguments: ["https://ad-user:s3cret-pw@bid.example.com/v1", "http://ad-user:s3cret-pw@ads.example.org/v1", "https://s3cret-pw@bid.example.com"])
    func endpointCredentialsAreNotQuoted(_ endpoint: String) throws {
        let error = try #require(Self.error(ConfigurationFixture.edited(#""endpoint": "https://bid.example.com/v1""#, #""endpoint": "\#(endpoint)""#)))
        #expect(error.code == .invalidValue)
        #expect(error.path == "networks.bid.endpoint")
        #expect(!error.description.contains("s3cret"), "\(error)")
        #expect(error.description.contains("***@"), "\(error)")
    }

    @Test("an empty placements object and an empty networks object load: nothing to run, nothing asked")
    func emptyObjects() throws {
        let configuration = try ConfigurationFixture.load(#"{"networks": {}, "placements": {}}"#)
        #expect(configuration.placements.isEmpty)
        #expect(configuration.networks.isEmpty)
    }
}

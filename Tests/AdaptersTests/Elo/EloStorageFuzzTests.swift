import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Stored values are untrusted input (engine rule R21): Elo's identity record, in the secure
/// store and in the plaintext file of an earlier version, set to what the client never writes
/// (garbage bytes, other JSON, fields of the wrong type, out of range, huge, control
/// characters), and the install id in the state store likewise, then a load and a show, a consent withdrawal and shutdown through the engine.
/// Nothing traps, a bad record or field is discarded with a warning naming it and never its
/// value, nothing bad reaches the wire, and the store afterwards holds only a record the client
/// writes.
@Suite("Elo storage fuzz")
struct EloStorageFuzzTests {
    static let huge = String(repeating: "h", count: 70 * 1024)

    /// Stored records no Elo client writes, each due a warning.
    static let records: [String] = [
        "not json", "\u{0}\u{1}\u{FFFD}", "[]", "null", "42", #""a string""#,
        #"{"userIdentifier": 5}"#, #"{"userIdentifier": ["x"]}"#, #"{"userData": "x"}"#,
        #"{"userData": {"age": "x"}}"#, #"{"userData": {"age": 1e300}}"#, #"{"userData": {"age": 3.5}}"#,
        #"{"userData": {"gender": "robot"}}"#, #"{"installID": null, "userData": {"age": -1}}"#,
        #"{"userIdentifier": "   "}"#,
        #"{"userIdentifier": "\#(String(repeating: "u", count: 300))"}"#,
        #"{"userIdentifier": "STORED\u0000IDENTIFIER"}"#,
        #"{"userData": {"age": 9999, "email": "\#(String(repeating: "e", count: 10_000))@example.com", "phone": "+1555\u001b[31m"}}"#,
        #"{"userData": {"age": 9223372036854775807}}"#,
        #"{"userData": {"age": 9223372036854775808}}"#,
        #"{"userIdentifier": "\#(huge)"}"#,
    ]

    /// Stored install ids (in the state store, where the client keeps them) no Elo client
    /// makes, each due a warning.
    static let installIDs: [String] = [
        "", "bad id\u{7} with spaces", String(repeating: "i", count: 200), huge, "\u{0}\u{1}\u{FFFD}", "id\u{1B}[31m",
    ]

    /// The values of the records above that must never reach the wire (a well-formed field of
    /// a record, such as `STORED-IDENTIFIER-1`, is kept and may).
    static let forbidden = ["STORED\u{0}IDENTIFIER", String(repeating: "u", count: 300), "eeeeeeeeeeeeeeee", "\u{1B}[31m", "bad id", String(repeating: "i", count: 200), "hhhhhhhhhhhhhhhh"]

    /// A record as the client writes it (the test's own rule, not the client's code): an install
    /// id of `A-Z a-z 0-9 . _ : -`, an identifier of at most 256 characters, an age from 0 to
    /// 150, an email and a phone of at most 256 characters, no control characters anywhere.
    static func isWrittenByTheClient(_ record: EloIdentityRecord) -> Bool {
        let plain = { (text: String) in text.count <= 256 && !text.unicodeScalars.contains { $0.properties.generalCategory == .control } }
        if let id = record.installID, id.range(of: #"^[A-Za-z0-9._:-]{1,128}$"#, options: .regularExpression) == nil { return false }
        if let identifier = record.userIdentifier, identifier.isEmpty || !plain(identifier) || identifier != identifier.trimmingCharacters(in: .whitespacesAndNewlines) { return false }
        if let data = record.userData {
            if let age = data.age, !(0...150).contains(age) { return false }
            if let email = data.email, !plain(email) { return false }
            if let phone = data.phone, !plain(phone) { return false }
        }
        return true
    }

    enum Place: String, CaseIterable, Sendable {
        /// The host's secure store (the Keychain).
        case secureStore
        /// The plaintext file an earlier version wrote, moved into the secure store at build.
        case legacyFile
    }

    @Test(arguments: records, Place.allCases)
    func aBadStoredRecordIsDiscardedNeverTrustedNeverACrash(_ record: String, place: Place) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("elo-fuzz-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let keychain = MemorySecureStore()
        switch place {
        case .secureStore:
            try keychain.setData(Data(record.utf8), forKey: "elo.identity.elo")
        case .legacyFile:
            let file = EloLegacyIdentityFile.url(in: directory, network: "elo")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(record.utf8).write(to: file)
        }
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let logger = RecordingLogger()
        let template = RequestTemplate(device: PrivacyMatrix.consentingCell.device, app: RequestTemplate.App(bundleID: "com.example.app"), privacy: PrivacyMatrix.consentingCell.privacy)
        let engine = try MediationEngine(
            configuration: PrivacyMatrix.configuration(.elo, PrivacyMatrix.consentingCell),
            registry: .standard,
            environment: MediationEnvironment(clock: clock, logger: logger, transport: wire, storageDirectory: directory, secureStore: keychain, requestTemplate: template),
            hostContext: { _ in AdRequest.Context(messages: [AdRequest.Context.Message(role: .user, content: "hello")]) }
        )
        let placement = try #require(engine.placement("matrix"))
        #expect(await placement.showOnce(on: clock) { await ($0 as? EloAd)?.tracker?.drain() } != nil)
        engine.updateRequestTemplate(RequestTemplate(privacy: AdRequest.Privacy(userConsent: false)))
        await clock.perform { await engine.shutdown() }

        // Discarded with a warning (the file of an earlier version is always deleted).
        #expect(!logger.warnings.isEmpty, "a warning names what was discarded")
        for warning in logger.warnings {
            for value in Self.forbidden { #expect(!warning.contains(value), "a warning quotes a stored value") }
        }
        #expect(!FileManager.default.fileExists(atPath: EloLegacyIdentityFile.url(in: directory, network: "elo").path))
        // Never trusted: the visitor id is an id this client makes, no bad value on the wire.
        let bid = try JSONDecoder().decode(EloWireBidRequest.self, from: try #require(wire.requests.first { $0.url.path == "/v1/bid" }?.body))
        if let visitor = bid.user.id {
            #expect(Self.isWrittenByTheClient(EloIdentityRecord(installID: visitor)), "visitor id \(visitor.prefix(40))")
        }
        if let data = bid.user.ext?.data {
            #expect((0...150).contains(data.age ?? 0))
            #expect((data.email ?? "").count <= 256 && (data.phone ?? "").count <= 256)
        }
        let sent = wire.requests.map(WireRecorder.text(of:)).joined(separator: "\n")
        for value in Self.forbidden { #expect(!sent.contains(value), "a stored value reached the wire") }
        // What is stored afterwards is a record this client writes, with no install id in it.
        let stored = try SecureEloIdentityStore(store: keychain, key: "elo.identity.elo").read()
        #expect(Self.isWrittenByTheClient(stored))
        #expect(!String(decoding: try #require(try keychain.data(forKey: "elo.identity.elo")), as: UTF8.self).contains("installID"))
    }

    @Test(arguments: installIDs)
    func aBadStoredInstallIDIsReplacedNeverTrustedNeverACrash(_ installID: String) async throws {
        let state = MemoryStateStore()
        try state.setData(Data(installID.utf8), forKey: "elo.elo.install_id")
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let logger = RecordingLogger()
        let template = RequestTemplate(device: PrivacyMatrix.consentingCell.device, app: RequestTemplate.App(bundleID: "com.example.app"), privacy: PrivacyMatrix.consentingCell.privacy)
        let engine = try MediationEngine(
            configuration: PrivacyMatrix.configuration(.elo, PrivacyMatrix.consentingCell),
            registry: .standard,
            environment: MediationEnvironment(clock: clock, logger: logger, transport: wire, secureStore: MemorySecureStore(), requestTemplate: template, stateStore: state),
            hostContext: { _ in AdRequest.Context(messages: [AdRequest.Context.Message(role: .user, content: "hello")]) }
        )
        let placement = try #require(engine.placement("matrix"))
        #expect(await placement.showOnce(on: clock) { await ($0 as? EloAd)?.tracker?.drain() } != nil)
        await clock.perform { await engine.shutdown() }

        #expect(logger.warnings.contains { $0.contains("elo.elo.install_id discarded") }, "a warning names the key")
        for warning in logger.warnings {
            for value in Self.forbidden { #expect(!warning.contains(value), "a warning quotes a stored value") }
        }
        let bid = try JSONDecoder().decode(EloWireBidRequest.self, from: try #require(wire.requests.first { $0.url.path == "/v1/bid" }?.body))
        let visitor = try #require(bid.user.id)
        #expect(Self.isWrittenByTheClient(EloIdentityRecord(installID: visitor)), "visitor id \(visitor.prefix(40))")
        let sent = wire.requests.map(WireRecorder.text(of:)).joined(separator: "\n")
        for value in Self.forbidden { #expect(!sent.contains(value), "a stored value reached the wire") }
        // The id made in its place is stored: the next launch keeps it.
        #expect(try state.data(forKey: "elo.elo.install_id") == Data(visitor.utf8))
    }

    @Test func eachBadFieldIsDiscardedAloneWithAWarningNamingIt() async throws {
        let keychain = MemorySecureStore()
        let stored = #"{"userIdentifier": "  alice  ", "userData": {"age": 200, "gender": "female", "email": "a@example.com", "phone": "+1\u0007"}}"#
        try keychain.setData(Data(stored.utf8), forKey: "elo.identity.elo")
        let logger = RecordingLogger()
        let client = EloFixtures.client(transport: EloFakeTransport(), logger: logger, store: SecureEloIdentityStore(store: keychain, key: "elo.identity.elo"))
        #expect(await client.visitorID == "alice")
        #expect(await client.userData == EloUserData(gender: .female, email: "a@example.com"))
        #expect(logger.warnings == [
            "stored identity record: user data age discarded (not a value this client writes)",
            "stored identity record: user data phone discarded (not a value this client writes)",
        ])
        // The checked record is written back: the next launch finds nothing to discard.
        let relaunchLogger = RecordingLogger()
        _ = EloFixtures.client(transport: EloFakeTransport(), logger: relaunchLogger, store: SecureEloIdentityStore(store: keychain, key: "elo.identity.elo"))
        #expect(relaunchLogger.warnings.isEmpty)
    }

    @Test func aRecordOfAnotherShapeIsDiscardedWholeAndANewInstallIDMade() async throws {
        let keychain = MemorySecureStore()
        try keychain.setData(Data(#"{"userData": {"gender": "robot"}}"#.utf8), forKey: "elo.identity.elo")
        let logger = RecordingLogger()
        let client = EloFixtures.client(transport: EloFakeTransport(), logger: logger, store: SecureEloIdentityStore(store: keychain, key: "elo.identity.elo"))
        #expect(await client.visitorID == "id-1")
        #expect(logger.warnings == ["identity record unreadable, starting empty: the stored identity record is damaged"])
        let huge = MemorySecureStore()
        try huge.setData(Data(repeating: 0x41, count: 64 * 1024 + 1), forKey: "elo.identity.elo")
        let hugeLogger = RecordingLogger()
        _ = EloFixtures.client(transport: EloFakeTransport(), logger: hugeLogger, store: SecureEloIdentityStore(store: huge, key: "elo.identity.elo"))
        #expect(hugeLogger.warnings == ["identity record unreadable, starting empty: the stored identity record is over 64 KiB"])
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Stored values are untrusted input (engine rule R21): every `nitx.` key set to values the
/// client never writes (out of range, wrong type, garbage, huge, not finite), then loads, shows,
/// consent changes, reset and shutdown. Nothing traps, every bad value is discarded with a
/// warning that names its key and never the value, nothing bad reaches the wire, and what is
/// stored afterwards is only what the client writes.
@Suite("Nitx storage fuzz")
struct NitxStorageFuzzTests {
    static let digest = SHA256Digest.hex(SHA256Digest.hash(Data("jane@example.com".utf8)))

    /// Values no Nitx client writes under any key (some are valid under one key: "0" is a fine
    /// last-show time, "granted" a consent record).
    static let garbage: [String] = [
        "", " ", "\u{0}", "garbage\u{7}\u{1B}[31m", "NaN", "nan", "-nan", "inf", "-inf", "infinity", "1e400", "-1e400",
        "9.3e18", "9223372036854775808", "1e308", "-1e308", "99999999999999999999", "-5", "1.5", "0x10",
        "4102444800", "253402300800", "1e15", "true", "null", "[]", "{}", "granted ", "GRANTED", "\u{FEFF}granted",
        #"{"hashes":[]}"#, #"{"hashes":{"email":1}}"#, #"{"hashes":{"email":"zz"}}"#, #"{"hashes":"x"}"#,
        #"{"hashes":{"../x":"\#(digest)","email":"\#(digest.uppercased())"}}"#,
        #"{"hashes":{"email":"\#(digest)","trait.ok":"\#(digest)","trait.BAD":"\#(digest)"}}"#,
        "visitor id with spaces", String(repeating: "v", count: 129), String(repeating: "x", count: 1 << 20),
        String(repeating: "🇬🇪", count: 5000),
    ]

    static func transport() -> NitxScriptedTransport {
        NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config()],
            "POST /api/sdk/ads": [NitxFixtures.slotAnswer(impressionID: "imp-1")],
            "POST /api/sdk/events": [HTTP.Response(statusCode: 204)],
            "POST /api/sdk/forget": [HTTP.Response(statusCode: 204)],
        ])
    }

    /// Loads, shows, changes consent, resets and shuts down one client over `storage`.
    static func exercise(_ storage: NitxRecords) async -> (NitxScriptedTransport, RecordingLogger) {
        let clock = ManualClock()
        let transport = transport()
        let logger = RecordingLogger()
        let client = NitxFixtures.client(transport: transport, clock: clock, logger: logger, storage: storage)
        func load(_ format: AdFormat, privacy: AdRequest.Privacy = AdRequest.Privacy()) async -> (any LoadedAd)? {
            var request = format == .banner
                ? NitxFixtures.request(.banner, slot: SlotSize(maxWidth: 320, maxHeight: 50), sizing: .inline)
                : NitxFixtures.request(format)
            request.privacy = privacy
            return await client.loadAd(slot: "SLOT-A", choice: NitxFixtures.choice(request), request: request).ad
        }
        if let banner = await load(.banner) {
            banner.recordRender()
            banner.recordImpression()
        }
        if let appOpen = await load(.appOpen) {
            if appOpen.impressionReadiness == .ready { appOpen.recordImpression() }
            await clock.advance(by: .seconds(5 * 3600))
            _ = appOpen.impressionReadiness
        }
        _ = await load(.banner)
        client.hostPrivacyDidChange(AdRequest.Privacy(userConsent: false))
        _ = await load(.banner, privacy: AdRequest.Privacy(userConsent: false))
        await client.applicationWillResignActive()
        await client.reset()
        await clock.advance(by: .seconds(3))
        await client.shutdown()
        _ = await load(.banner)
        return (transport, logger)
    }

    /// A visitor id as the client makes them (the test's own rule, not the client's code): 1 to
    /// 128 characters of `A-Z a-z 0-9 . _ : -`.
    static func isVisitorID(_ text: String) -> Bool {
        text.range(of: #"^[A-Za-z0-9._:-]{1,128}$"#, options: .regularExpression) != nil
    }

    /// A profile as the client writes it: known fields or `trait.` keys, SHA-256 hex digests.
    static func isProfile(_ text: String) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let hashes = object["hashes"] as? [String: Any] else { return false }
        return hashes.allSatisfy { key, value in
            guard let digest = value as? String, digest.range(of: "^[0-9a-f]{64}$", options: .regularExpression) != nil else { return false }
            return ["email", "phone", "gender", "birth_year", "city", "country"].contains(key)
                || key.range(of: "^trait\\.[a-z0-9_]{1,32}$", options: .regularExpression) != nil
        }
    }

    /// What a client may leave in storage: only values it writes.
    static func expectOnlyWhatTheClientWrites(_ storage: NitxRecords) {
        for (key, value) in storage.snapshot {
            switch key {
            case .visitorID: #expect(isVisitorID(value), "visitor id")
            case .consent: #expect(value == "granted")
            case .profile: #expect(isProfile(value), "profile")
            case .appOpenLastShown:
                // A time this client recorded: within this test's run.
                let seconds = Double(value) ?? -1
                #expect(seconds >= 0 && seconds <= NitxFixtures.wallAnchor.timeIntervalSince1970 + 86_400, "last show time")
            }
        }
    }

    /// The wire's visitor ids and profiles are values the client makes.
    static func expectAWellFormedWire(_ transport: NitxScriptedTransport, garbage: String) {
        for body in transport.jsonBodies("POST", "/api/sdk/ads") {
            guard let visitor = body["visitor"] as? [String: Any] else { continue }
            #expect(isVisitorID(visitor["id"] as? String ?? ""), "visitor id on the wire")
            for (key, digest) in (visitor["profile"] as? [String: String]) ?? [:] {
                #expect(digest.count == 64 && key.count <= 38, "profile entry on the wire")
            }
        }
        for body in transport.jsonBodies("POST", "/api/sdk/events") + transport.jsonBodies("POST", "/api/sdk/forget") {
            #expect(isVisitorID(body["visitor_id"] as? String ?? ""), "visitor id on the wire")
        }
        if garbage.count >= 8, !isVisitorID(garbage) {
            let wire = transport.requests.map(WireRecorder.text(of:)).joined()
            #expect(!wire.contains(garbage), "a stored value reached the wire")
        }
    }

    @Test(arguments: garbage)
    func everyKeySetToOneBadValue(_ value: String) async {
        let storage = NitxRecords(Dictionary(uniqueKeysWithValues: NitxStorageKey.allCases.map { ($0, value) }))
        let (transport, logger) = await Self.exercise(storage)
        Self.expectOnlyWhatTheClientWrites(storage)
        Self.expectAWellFormedWire(transport, garbage: value)
        // Each warning names its key, never the value.
        for warning in logger.warnings where value.count >= 8 {
            #expect(!warning.contains(value), "a warning quotes the stored value")
        }
    }

    @Test func eachKeyDiscardedWithAWarningNamingIt() async {
        let storage = NitxRecords([
            .visitorID: "bad id\u{7}",
            .consent: "yes",
            .profile: "not json",
            .appOpenLastShown: "1e400",
        ])
        let logger = RecordingLogger()
        _ = NitxFixtures.client(transport: Self.transport(), logger: logger, storage: storage)
        #expect(logger.warnings == [
            "Nitx stored nitx.visitor_id discarded (not of the form the client writes): a new visitor id is made",
            "Nitx stored nitx.consent discarded (not of the form the client writes): no consent record",
            "Nitx stored nitx.app_open_last_shown discarded (not a finite number): no app open ad counts as shown",
        ])
        // Without a consent record the profile is discarded on load, as the document says.
        #expect(storage.snapshot == [.visitorID: "visitor-1"])
    }

    @Test func aFarFutureLastShowTimeIsDiscardedAndTheAppOpenAdShows() async throws {
        for stored in ["1e18", "9.3e18", "253402300800", String(NitxFixtures.wallAnchor.timeIntervalSince1970 + 14_401)] {
            let storage = NitxRecords([.visitorID: "v", .appOpenLastShown: stored])
            let logger = RecordingLogger()
            let client = NitxFixtures.client(transport: NitxAppOpenTests.transport(), logger: logger, storage: storage)
            let ad = try #require(await NitxAppOpenTests.load(client).ad)
            #expect(ad.impressionReadiness == .ready, "\(stored)")
            ad.recordImpression()
            #expect(logger.warnings == ["Nitx stored nitx.app_open_last_shown discarded (out of range): no app open ad counts as shown"])
            #expect(storage.value(forKey: .appOpenLastShown) == String(NitxFixtures.wallAnchor.timeIntervalSince1970))
        }
        // One interval ahead at most is kept (a clock set back): the show waits for it.
        let ahead = NitxRecords([.visitorID: "v", .appOpenLastShown: String(NitxFixtures.wallAnchor.timeIntervalSince1970 + 3600)])
        let client = NitxFixtures.client(transport: NitxAppOpenTests.transport(), storage: ahead)
        let ad = try #require(await NitxAppOpenTests.load(client).ad)
        #expect(ad.impressionReadiness == .notAllowed("app open ad last shown 3600 s ahead of this device's clock; minimum interval 14400 s"))
    }

    @Test func aStoredProfileKeepsOnlyWhatTheClientWrites() async {
        let stored = #"{"hashes":{"email":"\#(Self.digest)","phone":"not a digest","trait.ok":"\#(Self.digest)","trait.BAD":"\#(Self.digest)","admin":"\#(Self.digest)"}}"#
        let storage = NitxRecords([.visitorID: "v", .consent: "granted", .profile: stored])
        let logger = RecordingLogger()
        let client = NitxFixtures.client(transport: Self.transport(), logger: logger, storage: storage)
        #expect(await client.state().profileKeys == ["email", "trait.ok"])
        #expect(logger.warnings == ["Nitx stored nitx.profile: 3 entries that are not a field's SHA-256 digest discarded"])
        // The cleaned profile is written back, so the next launch finds nothing to discard.
        #expect(storage.value(forKey: .profile) == #"{"hashes":{"email":"\#(Self.digest)","trait.ok":"\#(Self.digest)"}}"#)
    }

    /// Every key gets its own value at random (seeded): valid ones and bad ones mixed.
    @Test(arguments: 0..<48)
    func mixedStoredValues(_ seed: Int) async {
        var random = SeededRandom(mixing: [UInt64(seed), 0x5EED])
        let valid: [NitxStorageKey: [String]] = [
            .visitorID: ["visitor-7", "6f1c0e55-1b2a-4c3d-9e8f-0a1b2c3d4e5f"],
            .consent: ["granted"],
            .profile: [#"{"hashes":{"email":"\#(Self.digest)"}}"#],
            .appOpenLastShown: [String(NitxFixtures.wallAnchor.timeIntervalSince1970 - 60), "0"],
        ]
        var values: [NitxStorageKey: String] = [:]
        for key in NitxStorageKey.allCases {
            let pool = Self.garbage + (valid[key] ?? []) + (valid[key] ?? [])
            if random.next() % 5 != 0 { values[key] = pool[Int(random.next() % UInt64(pool.count))] }
        }
        let storage = NitxRecords(values)
        let (transport, _) = await Self.exercise(storage)
        Self.expectOnlyWhatTheClientWrites(storage)
        Self.expectAWellFormedWire(transport, garbage: values[.visitorID] ?? "")
    }

    /// A record the state store discards (tampered with, truncated, another program's file)
    /// or one over the value bound, through the engine: discarded with a warning, a new
    /// visitor id made.
    @Test(arguments: ["tampered", "truncated", "oversized"])
    func aDamagedRecordThroughTheEngine(_ damage: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nitx-fuzz-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try FileStateStore(directory: directory)
        let records = NitxRecords(store: store)
        switch damage {
        case "oversized":
            try store.setData(Data(repeating: 0x61, count: NitxStoredValues.maximumValueBytes + 1), forKey: records.storeKey(.visitorID))
        default:
            records.setValue("visitor-old", forKey: .visitorID)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where !name.hasPrefix(".") {
                let file = directory.appendingPathComponent(name)
                var bytes = try Data(contentsOf: file)
                if damage == "tampered" { bytes[bytes.count - 1] ^= 0x01 } else { bytes = bytes.prefix(bytes.count / 2) }
                try bytes.write(to: file)
            }
        }
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let logger = RecordingLogger()
        let engine = try MediationEngine(
            configuration: PrivacyMatrix.configuration(.nitx, PrivacyMatrix.consentingCell),
            registry: .standard,
            environment: MediationEnvironment(clock: clock, logger: logger, transport: wire, stateStore: try FileStateStore(directory: directory))
        )
        let placement = try #require(engine.placement("matrix"))
        #expect(await placement.showOnce(on: clock) != nil)
        await clock.perform { await engine.shutdown() }
        #expect(logger.warnings.contains { $0.contains("nitx.nitx.visitor_id") }, "the damaged record is reported")
        for warning in logger.warnings { #expect(!warning.contains("visitor-old") && !warning.contains("aaaaaaaa")) }
        let stored = NitxRecords(store: try FileStateStore(directory: directory)).value(forKey: .visitorID)
        #expect(Self.isVisitorID(stored ?? "") && stored != "visitor-old")
        let ads = wire.requests.filter { $0.url.path == "/api/sdk/ads" }
        let visitor = ads.first.flatMap { PrivacyMatrix.json($0)["visitor"] as? [String: Any] }
        #expect((visitor?["id"] as? String) == stored)
    }
}

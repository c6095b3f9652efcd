import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// The host's consent withdrawal (`AdRequest.Privacy.userConsent == false`, the app's own consent
/// prompt) is Nitx's `consent(false)` (Nitx document: "consent(false) deletes the profile and the
/// consent record; the visitor id stays"): noticed when the host updates its request template,
/// with each request, and when the engine is built; at once, and for good (a relaunch with the
/// signal unset finds nothing to send).
@Suite("Nitx consent withdrawal by the host's signals")
struct NitxConsentWithdrawalTests {
    static let withdrawn = AdRequest.Privacy(userConsent: false, limitAdTracking: false)

    /// A client launched on a stored consent record and profile (as an earlier version stored
    /// them: the engine offers no consent or identify call).
    static func consentingClient(_ storage: NitxRecords, transport: NitxScriptedTransport = NitxConsentTests.transport()) -> NitxClient {
        StoredIdentity.nitx([NitxProfile.Key.email: "jane@example.com"], in: storage)
        return NitxFixtures.client(transport: transport, storage: storage)
    }

    static func load(_ client: NitxClient, privacy: AdRequest.Privacy) async {
        var request = NitxFixtures.request(.banner, slot: SlotSize(maxWidth: 320, maxHeight: 50), sizing: .inline)
        request.privacy = privacy
        _ = await client.loadAd(slot: "SLOT-A", choice: NitxFixtures.choice(request), request: request)
    }

    @Test func theHostsWithdrawalDeletesProfileAndRecordAtOnceAndKeepsTheVisitor() async {
        let storage = NitxRecords()
        let client = Self.consentingClient(storage)
        #expect(storage.value(forKey: .profile) != nil)
        client.hostPrivacyDidChange(Self.withdrawn)
        // Synchronously: nothing is left on disk but the visitor id.
        #expect(storage.snapshot == [.visitorID: "visitor-1"])
        let state = await client.state()
        #expect(state.consent == false)
        #expect(state.profileKeys.isEmpty)
        #expect(state.visitorID == "visitor-1")
    }

    @Test func signalsThatDoNotWithdrawChangeNothing() async {
        let storage = NitxRecords()
        let client = Self.consentingClient(storage)
        let before = storage.snapshot
        for consent in [nil, true] as [Bool?] {
            client.hostPrivacyDidChange(AdRequest.Privacy(userConsent: consent))
        }
        #expect(storage.snapshot == before)
        #expect(await client.state().consent == true)
    }

    @Test func aRequestCarryingTheWithdrawalDeletesBeforeItIsSent() async throws {
        let storage = NitxRecords()
        let transport = NitxConsentTests.transport()
        let client = Self.consentingClient(storage, transport: transport)
        await Self.load(client, privacy: Self.withdrawn)
        #expect(storage.snapshot == [.visitorID: "visitor-1"])
        let visitor = try #require(NitxConsentTests.visitorBlocks(transport).last as? [String: Any])
        #expect(visitor["id"] as? String == "visitor-1")
        #expect(visitor["consent"] as? Bool == false)
        #expect(visitor["profile"] is NSNull)
    }

    @Test func aRelaunchWithTheSignalUnsetSendsNothingOfTheProfile() async throws {
        let storage = NitxRecords()
        let client = Self.consentingClient(storage)
        client.hostPrivacyDidChange(Self.withdrawn)
        // The next launch: the same storage, the host's signal unset (not asked yet).
        let transport = NitxConsentTests.transport()
        let relaunched = NitxFixtures.client(transport: transport, storage: storage)
        await Self.load(relaunched, privacy: AdRequest.Privacy(limitAdTracking: false))
        let visitor = try #require(NitxConsentTests.visitorBlocks(transport).last as? [String: Any])
        #expect(visitor["id"] as? String == "visitor-1")
        #expect(visitor["consent"] is NSNull)
        #expect(visitor["profile"] is NSNull)
        let wire = transport.requests.map(WireRecorder.text(of:)).joined()
        #expect(!wire.contains(SHA256Digest.hex(SHA256Digest.hash(Data("jane@example.com".utf8)))))
    }

    @Test func theEnginePassesAWithdrawalOnBeforeUpdateRequestTemplateReturns() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nitx-withdraw-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try StoredIdentity.nitx([NitxProfile.Key.email: "jane@example.com"], in: directory)
        let clock = ManualClock()
        let capturing = PrivacyMatrix.CapturingRegistry()
        let engine = try MediationEngine(
            configuration: PrivacyMatrix.configuration(.nitx, PrivacyMatrix.consentingCell),
            registry: capturing.registry,
            environment: MediationEnvironment(clock: clock, transport: WireRecorder(clock: clock), stateStore: try FileStateStore(directory: directory.appendingPathComponent("state")))
        )
        let file = NitxRecords(store: try FileStateStore(directory: directory.appendingPathComponent("state")))
        #expect(file.value(forKey: .profile) != nil)
        engine.updateRequestTemplate(RequestTemplate(privacy: Self.withdrawn))
        let reread = NitxRecords(store: try FileStateStore(directory: directory.appendingPathComponent("state")))
        #expect(reread.value(forKey: .profile) == nil)
        #expect(reread.value(forKey: .consent) == nil)
        #expect(reread.value(forKey: .visitorID) != nil)
        await clock.perform { await engine.shutdown() }
    }

    @Test func aWithdrawalKnownAtLaunchDeletesTheStoredProfileWhenTheEngineIsBuilt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nitx-withdraw-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let profile = #"{"hashes":{"email":"\#(SHA256Digest.hex(SHA256Digest.hash(Data("jane@example.com".utf8))))"}}"#
        let stored = NitxRecords(store: try FileStateStore(directory: directory))
        stored.setValue("visitor-old", forKey: .visitorID)
        stored.setValue("granted", forKey: .consent)
        stored.setValue(profile, forKey: .profile)
        let clock = ManualClock()
        _ = try MediationEngine(
            configuration: PrivacyMatrix.configuration(.nitx, PrivacyMatrix.consentingCell),
            registry: .standard,
            environment: MediationEnvironment(clock: clock, transport: WireRecorder(clock: clock), requestTemplate: RequestTemplate(privacy: Self.withdrawn), stateStore: try FileStateStore(directory: directory))
        )
        let reread = NitxRecords(store: try FileStateStore(directory: directory))
        #expect(reread.value(forKey: .profile) == nil)
        #expect(reread.value(forKey: .consent) == nil)
        #expect(reread.value(forKey: .visitorID) == "visitor-old")
    }
}

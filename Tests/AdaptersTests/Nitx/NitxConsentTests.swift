import Foundation
import Mediation
import Testing
@testable import Adapters

@Suite("Nitx stored consent, reset and storage")
struct NitxConsentTests {
    static let emailHash = "8c87b489ce35cf2e2f39f80e282cb2e804932a56a213983eeeb428407d43b52d"

    static func transport() -> NitxScriptedTransport {
        NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config()],
            "POST /api/sdk/ads": [NitxFixtures.slotAnswer(format: "banner_320x50", impressionID: "imp-1")],
            "POST /api/sdk/forget": [HTTP.Response(statusCode: 204)],
        ])
    }

    static func visitorBlocks(_ transport: NitxScriptedTransport) -> [Any?] {
        transport.jsonBodies("POST", "/api/sdk/ads").map { $0["visitor"] }
    }

    static func load(_ client: NitxClient) async {
        let request = NitxFixtures.request(.banner, slot: SlotSize(maxWidth: 320, maxHeight: 50), sizing: .inline)
        _ = await client.loadAd(slot: "SLOT-A", choice: NitxFixtures.choice(request), request: request)
    }

    @Test func storedProfileWithoutConsentRecordIsDiscardedOnLoad() async {
        let storage = NitxRecords([.visitorID: "v-old", .profile: #"{"hashes":{"email":"\#(Self.emailHash)"}}"#])
        let client = NitxFixtures.client(transport: Self.transport(), storage: storage)
        let state = await client.state()
        #expect(state.profileKeys.isEmpty)
        #expect(state.visitorID == "v-old")
        #expect(storage.value(forKey: .profile) == nil)
    }

    @Test func storedProfileWithConsentIsRestored() async {
        let storage = NitxRecords([.visitorID: "v-old", .consent: "granted", .profile: #"{"hashes":{"email":"\#(Self.emailHash)"}}"#])
        let state = await NitxFixtures.client(transport: Self.transport(), storage: storage).state()
        #expect(state.profileKeys == ["email"])
        #expect(state.consent == true)
    }

    @Test func storageKeysUseTheNitxPrefix() {
        #expect(NitxStorageKey.allCases.map(\.rawValue) == ["nitx.visitor_id", "nitx.consent", "nitx.profile", "nitx.app_open_last_shown"])
    }

    @Test func resetForgetsIDProfileAndConsent() async throws {
        let storage = NitxRecords()
        StoredIdentity.nitx([NitxProfile.Key.email: "a@b.c"], in: storage)
        let transport = Self.transport()
        let client = NitxFixtures.client(transport: transport, storage: storage)
        await Self.load(client)  // loads the config (the forget endpoint)
        #expect(await client.state().consent == true)
        await client.reset()
        let state = await client.state()
        #expect(state.visitorID == "visitor-2")
        #expect(state.consent == nil)
        #expect(state.profileKeys.isEmpty)
        #expect(storage.snapshot == [.visitorID: "visitor-2"])
        let forget = try #require(transport.jsonBodies("POST", "/api/sdk/forget").first)
        #expect(forget["visitor_id"] as? String == "visitor-1")
    }

    @Test func resetWithoutAdvertisedForgetSendsNothing() async {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: false)],
            "GET /api/ad-slots/show/SLOT-A": [NitxFixtures.slotAnswer()],
        ])
        let client = NitxFixtures.client(transport: transport)
        await Self.load(client)
        await client.reset()
        #expect(transport.requests.filter { $0.method == "POST" }.isEmpty)
        #expect(await client.state().visitorID == "visitor-2")
    }

    @Test func personalizationOffStoresNothingAndIgnoresIdentity() async throws {
        let storage = NitxRecords()
        let transport = Self.transport()
        let client = NitxFixtures.client(transport: transport, options: NitxOptions(apiBaseURL: NitxFixtures.base, personalization: false), storage: storage)
        await Self.load(client)
        await client.reset()
        let state = await client.state()
        #expect(state.visitorID == nil)
        #expect(state.consent == nil)
        #expect(state.profileKeys.isEmpty)
        #expect(storage.snapshot.isEmpty)
        let body = try #require(transport.jsonBodies("POST", "/api/sdk/ads").first)
        #expect(body["visitor"] is NSNull)
        #expect(transport.requests("POST", "/api/sdk/forget").isEmpty)
    }
}

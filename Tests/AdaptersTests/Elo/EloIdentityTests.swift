import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Elo identity")
struct EloIdentityTests {
    @Test func visitorIDIsTheIdentifierElseTheInstallID() async throws {
        // The identifier comes only from a stored record (the engine offers no setter).
        let transport = EloFakeTransport()
        _ = await EloFixtures.client(transport: transport).loadAd(for: EloFixtures.request())
        let stored = InMemoryEloIdentityStore(EloIdentityRecord(userIdentifier: "user-42"))
        _ = await EloFixtures.client(transport: transport, store: stored).loadAd(for: EloFixtures.request())
        #expect(try transport.decodedBidRequests().map(\.user.id) == ["id-1", "user-42"])
    }

    @Test func shutdownErasesTheIdentity() async {
        let store = RecordingIdentityStore(EloIdentityRecord(userIdentifier: "alice", userData: EloUserData(age: 30)))
        let client = EloFixtures.client(transport: EloFakeTransport(), store: store)
        #expect(await client.userIdentifier == "alice")
        await client.shutdown()
        #expect(store.record == EloIdentityRecord())
        #expect(await client.userIdentifier == nil)
        #expect(await client.userData == nil)
    }

    @Test func identitySurvivesARelaunchThroughTheSecureStore() async throws {
        let keychain = MemorySecureStore()
        let store = SecureEloIdentityStore(store: keychain, key: "elo.identity.elo")
        // The record an earlier launch stored (the engine offers no setter).
        try store.write(EloIdentityRecord(userIdentifier: "alice", userData: EloUserData(age: 30, gender: .other)))
        let installs = MemoryStateStore()
        let first = EloFixtures.client(transport: EloFakeTransport(), store: store, stateStore: installs)
        #expect(await first.visitorID == "alice")
        let relaunched = EloFixtures.client(transport: EloFakeTransport(), store: store, stateStore: installs, ids: SequentialIDs(prefix: "later"))
        #expect(await relaunched.userIdentifier == "alice")
        #expect(await relaunched.userData == EloUserData(age: 30, gender: .other))
        #expect(await relaunched.installID == "id-1")
        #expect(keychain.keys == ["elo.identity.elo"]) // one record: identifier and data together
    }

    @Test func damagedRecordIsAStorageError() throws {
        let keychain = MemorySecureStore()
        try keychain.setData(Data("{not json".utf8), forKey: "elo.identity.elo")
        #expect(throws: EloStorageError.self) { try SecureEloIdentityStore(store: keychain, key: "elo.identity.elo").read() }
    }

    /// R21: a record that names a field twice is damaged, not read with whichever value the
    /// decoder keeps (a planted second `userIdentifier` must not become the identity).
    @Test func recordWithARepeatedKeyIsAStorageError() throws {
        let keychain = MemorySecureStore()
        let valid = #"{"installID": "id-1", "userIdentifier": "alice"}"#
        try keychain.setData(Data(valid.utf8), forKey: "elo.identity.elo")
        #expect(try SecureEloIdentityStore(store: keychain, key: "elo.identity.elo").read().userIdentifier == "alice")
        let planted = #"{"installID": "id-1", "userIdentifier": "alice", "userIdentifier": "mallory"}"#
        try keychain.setData(Data(planted.utf8), forKey: "elo.identity.elo")
        #expect(throws: EloStorageError.self) { try SecureEloIdentityStore(store: keychain, key: "elo.identity.elo").read() }
    }

    @Test func failingSecureStoreKeepsTheIdentityInMemoryWithAWarning() async {
        let keychain = MemorySecureStore()
        keychain.failAll(SecureStoreError(message: "Keychain write failed (status -25308)"))
        let logger = RecordingLogger()
        let client = EloFixtures.client(transport: EloFakeTransport(), logger: logger, store: SecureEloIdentityStore(store: keychain, key: "k"))
        // Forgetting the user writes the erased record, which cannot be written: kept in memory.
        await client.forgetUser()
        #expect(await client.userIdentifier == nil)
        #expect(logger.warnings.contains("identity record not stored, kept in memory: cannot write the identity record: Keychain write failed (status -25308)"))
    }

    @Test func unwritableStoreKeepsTheIdentityInMemoryWithAWarning() async {
        let logger = RecordingLogger()
        let client = EloFixtures.client(transport: EloFakeTransport(), logger: logger, store: FailingIdentityStore())
        // Forgetting the user makes a new install id, which cannot be written: kept in memory.
        await client.forgetUser()
        #expect(await client.userIdentifier == nil)
        #expect(logger.warnings == ["identity record not stored, kept in memory: disk full"])
    }

    @Test func userDataNeverRidesTrackingPings() async throws {
        let transport = EloFakeTransport()
        let stored = InMemoryEloIdentityStore(EloIdentityRecord(userIdentifier: "alice", userData: EloUserData(age: 30, email: "alice@example.com", phone: "+15551234567")))
        let client = EloFixtures.client(transport: transport, store: stored)
        let result = await client.loadAd(for: EloFixtures.request())
        guard case .loaded(let ad, _) = result else { Issue.record("expected a fill, got \(result)"); return }
        ad.recordRender()
        ad.recordImpression()
        ad.recordClick()
        ad.recordBrowserOpened()
        ad.recordBrowserClosed()
        await ad.tracker?.drain()
        let pings = transport.pings
        #expect(pings.count == 4) // render, impression, browser open and close; a click sends nothing
        for ping in pings {
            let text = ping.url.absoluteString + String(decoding: ping.body ?? Data(), as: UTF8.self)
            #expect(!text.contains("alice@example.com"))
            #expect(!text.contains("15551234567"))
            #expect(text.contains("alice"))
        }
        let bidBody = String(decoding: transport.bidRequests.first?.body ?? Data(), as: UTF8.self)
        #expect(bidBody.contains("alice@example.com"))
    }
}

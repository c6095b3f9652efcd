import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Elo identity")
struct EloIdentityTests {
    @Test(arguments: [
        ("  user-42 \n", "user-42"),
        ("user-42", "user-42"),
        (String(repeating: "u", count: 256), String(repeating: "u", count: 256)),
    ] as [(String, String)])
    func identifierIsTrimmed(input: String, stored: String) async {
        let client = EloFixtures.client(transport: EloFakeTransport())
        await client.setUserIdentifier(input)
        #expect(await client.userIdentifier == stored)
        #expect(await client.visitorID == stored)
    }

    @Test(arguments: ["", "   ", nil] as [String?])
    func blankOrNilIdentifierClears(input: String?) async {
        let client = EloFixtures.client(transport: EloFakeTransport())
        await client.setUserIdentifier("user-42")
        await client.setUserIdentifier(input)
        #expect(await client.userIdentifier == nil)
        #expect(await client.visitorID == "id-1") // the anonymous install id
    }

    @Test func identifierOverTwoHundredFiftySixCharactersIsIgnoredWithAWarning() async {
        let logger = RecordingLogger()
        let client = EloFixtures.client(transport: EloFakeTransport(), logger: logger)
        await client.setUserIdentifier("user-42")
        await client.setUserIdentifier(String(repeating: "u", count: 257))
        #expect(await client.userIdentifier == "user-42")
        #expect(logger.warnings == ["user identifier over 256 characters ignored"])
    }

    @Test func visitorIDIsTheIdentifierElseTheInstallID() async throws {
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport)
        _ = await client.loadAd(for: EloFixtures.request())
        await client.setUserIdentifier("user-42")
        _ = await client.loadAd(for: EloFixtures.request())
        #expect(try transport.decodedBidRequests().map(\.user.id) == ["id-1", "user-42"])
    }

    @Test func userDataIsReplacedWholeAndNilOrEmptyClears() async {
        let client = EloFixtures.client(transport: EloFakeTransport())
        await client.setUserData(EloUserData(age: 34, gender: .female, email: "a@example.com"))
        await client.setUserData(EloUserData(phone: "+15551234567"))
        #expect(await client.userData == EloUserData(phone: "+15551234567"))
        await client.setUserData(EloUserData())
        #expect(await client.userData == nil)
        await client.setUserData(EloUserData(age: 20))
        await client.setUserData(nil)
        #expect(await client.userData == nil)
    }

    @Test func setUserIdentityWritesBothInOneRecord() async {
        let store = RecordingIdentityStore()
        let client = EloFixtures.client(transport: EloFakeTransport(), store: store)
        let alice = EloUserData(email: "alice@example.com")
        let bob = EloUserData(email: "bob@example.com")
        await client.setUserIdentity(userIdentifier: "alice", userData: alice)
        await client.setUserIdentity(userIdentifier: "bob", userData: bob)
        await client.setUserIdentity(userIdentifier: nil, userData: nil)
        #expect(store.writes == [
            EloIdentityRecord(userIdentifier: "alice", userData: alice),
            EloIdentityRecord(userIdentifier: "bob", userData: bob),
            EloIdentityRecord(),
        ])
    }

    @Test func twoSettersInSequenceDoLeaveTheMixedStateTheSeedWarnsAbout() async {
        // The contrast that makes the test above meaningful: separate setters write twice.
        let store = RecordingIdentityStore(EloIdentityRecord(userIdentifier: "alice", userData: EloUserData(email: "alice@example.com")))
        let client = EloFixtures.client(transport: EloFakeTransport(), store: store)
        await client.setUserIdentifier("bob")
        await client.setUserData(EloUserData(email: "bob@example.com"))
        #expect(store.writes.first == EloIdentityRecord(userIdentifier: "bob", userData: EloUserData(email: "alice@example.com")))
        #expect(store.writes.count == 2)
    }

    @Test func setUserIdentityAppliesEachSettersRules() async {
        let client = EloFixtures.client(transport: EloFakeTransport())
        await client.setUserIdentity(userIdentifier: "alice", userData: EloUserData(age: 30))
        await client.setUserIdentity(userIdentifier: String(repeating: "x", count: 300), userData: EloUserData())
        #expect(await client.userIdentifier == "alice")
        #expect(await client.userData == nil)
    }

    @Test func shutdownErasesTheIdentityAndReconfigureDoesNot() async {
        let store = RecordingIdentityStore()
        let client = EloFixtures.client(transport: EloFakeTransport(), store: store)
        await client.setUserIdentity(userIdentifier: "alice", userData: EloUserData(age: 30))
        await client.configure(EloFixtures.configuration)
        #expect(store.record == EloIdentityRecord(userIdentifier: "alice", userData: EloUserData(age: 30)))
        await client.shutdown()
        #expect(store.record == EloIdentityRecord())
        #expect(await client.userIdentifier == nil)
        #expect(await client.userData == nil)
    }

    @Test func identitySurvivesARelaunchThroughTheSecureStore() async throws {
        let keychain = MemorySecureStore()
        let store = SecureEloIdentityStore(store: keychain, key: "elo.identity.elo")
        let installs = MemoryStateStore()
        let first = EloFixtures.client(transport: EloFakeTransport(), store: store, stateStore: installs)
        await first.setUserIdentity(userIdentifier: "alice", userData: EloUserData(age: 30, gender: .other))
        let installID = await first.visitorID
        #expect(installID == "alice")
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
        await client.setUserIdentity(userIdentifier: "alice", userData: EloUserData(email: "alice@example.com"))
        #expect(await client.userIdentifier == "alice")
        #expect(logger.warnings.allSatisfy { !$0.contains("alice") })
        #expect(logger.warnings.contains("identity record not stored, kept in memory: cannot write the identity record: Keychain write failed (status -25308)"))
    }

    @Test func unwritableStoreKeepsTheIdentityInMemoryWithAWarning() async {
        let logger = RecordingLogger()
        let client = EloFixtures.client(transport: EloFakeTransport(), logger: logger, store: FailingIdentityStore())
        await client.setUserIdentifier("alice")
        #expect(await client.userIdentifier == "alice")
        #expect(logger.warnings == ["identity record not stored, kept in memory: disk full"])
    }

    @Test func userDataNeverRidesTrackingPings() async throws {
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport)
        await client.setUserIdentity(userIdentifier: "alice", userData: EloUserData(age: 30, email: "alice@example.com", phone: "+15551234567"))
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

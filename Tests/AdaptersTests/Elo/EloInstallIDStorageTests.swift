import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Elo's anonymous per-install id is per install: it lives in the engine's state store (the
/// app's own storage, gone with the app), never in the identity record the Keychain keeps
/// across a reinstall.
@Suite("Elo install id storage")
struct EloInstallIDStorageTests {
    static let key = "elo.identity.elo"

    @Test func aReinstallMakesANewInstallIDAndTheKeychainRecordHoldsNone() async throws {
        let keychain = MemorySecureStore()
        // The identity record an earlier launch stored (the engine offers no setter).
        try SecureEloIdentityStore(store: keychain, key: Self.key).write(EloIdentityRecord(userIdentifier: "alice", userData: EloUserData(age: 30)))
        let installed = MemoryStateStore()
        let first = EloFixtures.client(transport: EloFakeTransport(), store: SecureEloIdentityStore(store: keychain, key: Self.key), stateStore: installed)
        #expect(await first.installID == "id-1")
        let written = String(decoding: try #require(try keychain.data(forKey: Self.key)), as: UTF8.self)
        #expect(!written.contains("installID") && !written.contains("id-1"), "the keychain record holds the install id")
        #expect(try installed.data(forKey: "elo.elo.install_id") == Data("id-1".utf8))

        // A relaunch keeps it.
        let relaunched = EloFixtures.client(transport: EloFakeTransport(), store: SecureEloIdentityStore(store: keychain, key: Self.key), stateStore: installed, ids: SequentialIDs(prefix: "later"))
        #expect(await relaunched.installID == "id-1")

        // A reinstall: a fresh state store, the same Keychain. The user identifier the
        // publisher set survives (the Elo document keeps it in the Keychain); the install id
        // does not.
        let reinstalled = EloFixtures.client(transport: EloFakeTransport(), store: SecureEloIdentityStore(store: keychain, key: Self.key), stateStore: MemoryStateStore(), ids: SequentialIDs(prefix: "later"))
        #expect(await reinstalled.installID == "later-1")
        #expect(await reinstalled.userIdentifier == "alice")
    }

    @Test func anOlderVersionsRecordHoldingAnInstallIDIsIgnoredForItAndTheFieldDroppedAtItsNextWrite() async throws {
        let keychain = MemorySecureStore()
        try keychain.setData(Data(#"{"installID": "install-old", "userIdentifier": "alice"}"#.utf8), forKey: Self.key)
        let logger = RecordingLogger()
        let client = EloFixtures.client(transport: EloFakeTransport(), logger: logger, store: SecureEloIdentityStore(store: keychain, key: Self.key), stateStore: MemoryStateStore())
        #expect(await client.installID == "id-1")
        #expect(await client.userIdentifier == "alice")
        #expect(logger.warnings.isEmpty)
        // The record's next write: a consent withdrawal erases the identity.
        client.hostPrivacyDidChange(AdRequest.Privacy(userConsent: false, limitAdTracking: false))
        let written = String(decoding: try #require(try keychain.data(forKey: Self.key)), as: UTF8.self)
        #expect(!written.contains("installID") && !written.contains("install-old"))
    }
}

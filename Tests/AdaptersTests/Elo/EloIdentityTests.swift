import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Elo's only id is the anonymous per-install id: per install, it lives in the engine's state
/// store (the app's own storage, gone with the app).
@Suite("Elo identity")
struct EloIdentityTests {
    @Test func visitorIDIsTheInstallID() async throws {
        let transport = EloFakeTransport()
        _ = await EloFixtures.client(transport: transport).loadAd(for: EloFixtures.request())
        #expect(try transport.decodedBidRequests().map(\.user.id) == ["id-1"])
        #expect(try transport.decodedBidRequests().first?.user.id != nil)
    }

    @Test func aRelaunchKeepsTheInstallIDAndAReinstallMakesANewOne() async throws {
        let installed = MemoryStateStore()
        let first = EloFixtures.client(transport: EloFakeTransport(), stateStore: installed)
        #expect(await first.installID == "id-1")
        #expect(try installed.data(forKey: "elo.elo.install_id") == Data("id-1".utf8))
        let relaunched = EloFixtures.client(transport: EloFakeTransport(), stateStore: installed, ids: SequentialIDs(prefix: "later"))
        #expect(await relaunched.installID == "id-1")
        let reinstalled = EloFixtures.client(transport: EloFakeTransport(), stateStore: MemoryStateStore(), ids: SequentialIDs(prefix: "later"))
        #expect(await reinstalled.installID == "later-1")
    }

    @Test func unwritableStoreKeepsANewInstallIDInMemoryWithAWarning() async {
        let logger = RecordingLogger()
        let store = MemoryStateStore()
        let client = EloFixtures.client(transport: EloFakeTransport(), logger: logger, stateStore: store)
        store.failAll("disk full")
        // Forgetting the user makes a new install id, which cannot be written: kept in memory.
        await client.forgetUser()
        #expect(await client.installID == "id-3")
        #expect(logger.warnings.count == 1)
        #expect(logger.warnings.first?.hasPrefix("install id not stored, kept in memory") == true)
    }

    @Test func thePlaintextFileOfAnEarlierVersionIsDeletedUnread() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("elo-legacy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let legacy = EloLegacyIdentityFile.url(in: directory, network: "elo")
        try FileManager.default.createDirectory(at: legacy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(#"{"userIdentifier": "alice"}"#.utf8).write(to: legacy)
        EloLegacyIdentityFile.delete(in: directory, network: "elo", logger: SilentLogger())
        #expect(!FileManager.default.fileExists(atPath: legacy.path))
    }
}

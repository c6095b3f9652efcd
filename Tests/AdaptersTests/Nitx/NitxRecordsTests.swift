import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Nitx's records live in the engine's state store under `nitx.<network id>.<name>`.
@Suite("Nitx records")
struct NitxRecordsTests {
    @Test func valuesSurviveReopeningUnderTheNetworksKeys() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nitx-records-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let records = NitxRecords(store: try FileStateStore(directory: directory), network: "nitx_b")
        records.setValue("visitor-1", forKey: .visitorID)
        records.setValue("granted", forKey: .consent)
        let store = try FileStateStore(directory: directory)
        #expect(try store.keys() == ["nitx.nitx_b.consent", "nitx.nitx_b.visitor_id"])
        let reopened = NitxRecords(store: store, network: "nitx_b")
        #expect(reopened.snapshot == [.visitorID: "visitor-1", .consent: "granted"])
        reopened.setValue(nil, forKey: .consent)
        #expect(try store.keys() == ["nitx.nitx_b.visitor_id"])
    }

    @Test func anOversizedOrDiscardedRecordReadsAsNoneWithAWarningNamingTheKey() throws {
        let store = MemoryStateStore()
        let logger = RecordingLogger()
        let records = NitxRecords(store: store, logger: logger)
        try store.setData(Data(repeating: 0x61, count: NitxStoredValues.maximumValueBytes + 1), forKey: "nitx.nitx.profile")
        try store.setData(Data([0xFF, 0xFE]), forKey: "nitx.nitx.consent")
        #expect(records.value(forKey: .profile) == nil)
        #expect(records.value(forKey: .consent) == nil)
        #expect(try store.keys().isEmpty, "removed")
        #expect(logger.warnings == [
            "Nitx stored nitx.nitx.profile is not text of at most 16 KiB: discarded",
            "Nitx stored nitx.nitx.consent is not text of at most 16 KiB: discarded",
        ])
    }

    @Test func aClientKeepsItsVisitorAcrossRestartsInTheStateStore() async throws {
        let store = MemoryStateStore()
        let first = NitxFixtures.client(transport: NitxScriptedTransport([:]), storage: NitxRecords(store: store))
        let visitor = await first.state().visitorID
        let restarted = NitxFixtures.client(transport: NitxScriptedTransport([:]), storage: NitxRecords(store: store))
        #expect(await restarted.state().visitorID == visitor)
    }
}

import Foundation
import Testing
@testable import Adapters

@Suite("Nitx file storage")
struct NitxFileStorageTests {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("nitx-tests-\(UUID().uuidString)")
    }

    @Test func valuesSurviveReopening() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = NitxFileStorage(directory: directory, networkID: "nitx")
        storage.setValue("v-1", forKey: .visitorID)
        storage.setValue("granted", forKey: .consent)
        storage.setValue(nil, forKey: .consent)
        let reopened = NitxFileStorage(directory: directory, networkID: "nitx")
        #expect(reopened.value(forKey: .visitorID) == "v-1")
        #expect(reopened.value(forKey: .consent) == nil)
        let text = try String(contentsOf: directory.appendingPathComponent("nitx-nitx.json"), encoding: .utf8)
        #expect(text == #"{"nitx.visitor_id":"v-1"}"#)
    }

    @Test func aCorruptFileReadsAsEmpty() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("not json".utf8).write(to: directory.appendingPathComponent("nitx-nitx.json"))
        let storage = NitxFileStorage(directory: directory, networkID: "nitx")
        #expect(storage.value(forKey: .visitorID) == nil)
        storage.setValue("v-2", forKey: .visitorID)
        #expect(NitxFileStorage(directory: directory, networkID: "nitx").value(forKey: .visitorID) == "v-2")
    }

    @Test func aClientKeepsItsVisitorAcrossRestartsOnDisk() async {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = NitxScriptedTransport([:])
        let first = await NitxFixtures.client(transport: transport, storage: NitxFileStorage(directory: directory, networkID: "nitx")).state()
        let second = await NitxFixtures.client(transport: transport, storage: NitxFileStorage(directory: directory, networkID: "nitx")).state()
        #expect(first.visitorID == "visitor-1")
        #expect(second.visitorID == "visitor-1")
    }
}

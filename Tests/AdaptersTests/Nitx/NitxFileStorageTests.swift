import Foundation
import MediationTestKit
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

    /// The file is untrusted (R21): a file over 256 KiB is not read, entries that are not strings
    /// (or are over 16 KiB) are dropped, each with a warning naming the file or the key.
    @Test func anOversizedFileOrEntryIsDiscardedWithAWarning() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("nitx-nitx.json")
        let logger = RecordingLogger()
        let padding = String(repeating: "p", count: NitxFileStorage.maximumFileBytes)
        try Data(#"{"nitx.visitor_id":"v-1","nitx.padding":"\#(padding)"}"#.utf8).write(to: file)
        let oversized = NitxFileStorage(directory: directory, networkID: "nitx", logger: logger)
        #expect(oversized.value(forKey: .visitorID) == nil)
        #expect(logger.warnings == ["Nitx storage file nitx-nitx.json is over 256 KiB: discarded"])

        let entries = RecordingLogger()
        let big = String(repeating: "b", count: NitxStoredValues.maximumValueBytes + 1)
        try Data(#"{"nitx.visitor_id":"v-1","nitx.consent":true,"nitx.profile":"\#(big)","other":5}"#.utf8).write(to: file)
        let storage = NitxFileStorage(directory: directory, networkID: "nitx", logger: entries)
        #expect(storage.value(forKey: .visitorID) == "v-1")
        #expect(storage.value(forKey: .consent) == nil)
        #expect(storage.value(forKey: .profile) == nil)
        #expect(entries.warnings == [
            "Nitx storage file nitx-nitx.json: nitx.consent is not a string of at most 16 KiB: discarded",
            "Nitx storage file nitx-nitx.json: nitx.profile is not a string of at most 16 KiB: discarded",
        ])
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

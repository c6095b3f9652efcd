import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MediationTestKit
import Testing
@testable import Adapters

/// Red-team attacks on Nitx's storage file (engine rule R21): its bound must hold whatever sits
/// at the path. A symbolic link (to an oversized file, to a device that never ends), a FIFO
/// (whose open would block the host's launch for ever) or a directory is never followed, read
/// or trusted: the storage starts empty, with a warning naming the file.
@Suite("Red team: Nitx storage file")
struct RedTeamNitxFileStorageTests {
    private static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("red-nitx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A JSON object with a visitor id, padded past the 256 KiB limit.
    private static func oversized() -> Data {
        Data(#"{"nitx.visitor_id": "v-planted", "nitx.pad": "\#(String(repeating: "x", count: NitxFileStorage.maximumFileBytes))"}"#.utf8)
    }

    @Test("a symbolic link to an oversized file is not followed past the bound: nothing of it is loaded, and a warning names the file")
    func symlinkToAnOversizedFile() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("elsewhere.json")
        try Self.oversized().write(to: target)
        let file = directory.appendingPathComponent("nitx-nitx.json")
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: target)
        let logger = RecordingLogger()
        let storage = NitxFileStorage(directory: directory, networkID: "nitx", logger: logger)
        #expect(storage.value(forKey: .visitorID) == nil)
        #expect(logger.warnings.contains { $0.contains("nitx-nitx.json") })
        // A write replaces the link by a file of its own; the target is untouched.
        storage.setValue("v-1", forKey: .visitorID)
        #expect(try Data(contentsOf: target) == Self.oversized())
        #expect(NitxFileStorage(directory: directory, networkID: "nitx").value(forKey: .visitorID) == "v-1")
    }

    @Test("a file that names a key twice is discarded whole, with a warning, not read with whichever value the decoder keeps (R21)")
    func repeatedKey() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("nitx-nitx.json")
        try Data(#"{"nitx.visitor_id": "v-1"}"#.utf8).write(to: file)
        #expect(NitxFileStorage(directory: directory, networkID: "nitx").value(forKey: .visitorID) == "v-1")
        try Data(#"{"nitx.visitor_id": "v-1", "nitx.visitor_id": "v-planted"}"#.utf8).write(to: file)
        let logger = RecordingLogger()
        let storage = NitxFileStorage(directory: directory, networkID: "nitx", logger: logger)
        #expect(storage.value(forKey: .visitorID) == nil)
        #expect(logger.warnings.contains { $0.contains("nitx-nitx.json") && $0.contains("no key twice") })
    }

    @Test("a symbolic link to a device that never ends (/dev/zero) is refused at once")
    func symlinkToADevice() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("nitx-nitx.json").path, withDestinationPath: "/dev/zero")
        let logger = RecordingLogger()
        let storage = NitxFileStorage(directory: directory, networkID: "nitx", logger: logger)
        #expect(storage.value(forKey: .visitorID) == nil)
        #expect(!logger.warnings.isEmpty)
    }

    @Test("a FIFO at the path does not block the launch; a directory at the path is reported")
    func fifoAndDirectory() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(mkfifo(directory.appendingPathComponent("nitx-fifo.json").path, 0o600) == 0)
        let fifoLogger = RecordingLogger()
        let fifo = NitxFileStorage(directory: directory, networkID: "fifo", logger: fifoLogger)
        #expect(fifo.value(forKey: .visitorID) == nil)
        #expect(fifoLogger.warnings.contains { $0.contains("nitx-fifo.json") })
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("nitx-dir.json"), withIntermediateDirectories: false)
        let directoryLogger = RecordingLogger()
        let folder = NitxFileStorage(directory: directory, networkID: "dir", logger: directoryLogger)
        #expect(folder.value(forKey: .visitorID) == nil)
        #expect(directoryLogger.warnings.contains { $0.contains("nitx-dir.json") })
        folder.setValue("v-1", forKey: .visitorID) // best effort: no crash
        #expect(folder.value(forKey: .visitorID) == "v-1")
    }
}

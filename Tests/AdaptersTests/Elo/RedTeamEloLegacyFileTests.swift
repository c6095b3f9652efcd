import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Red-team attacks on the plaintext identity file of earlier Elo versions, which building the
/// adapter deletes unread: a symbolic link (to a record elsewhere, to a device that never ends)
/// or a FIFO is never followed or read, only deleted itself.
@Suite("Red team: Elo's legacy identity file")
struct RedTeamEloLegacyFileTests {
    private static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("red-elo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url.appendingPathComponent("elo"), withIntermediateDirectories: true)
        return url
    }

    @Test("a symbolic link to a record is not followed: the link is deleted, its target kept")
    func symlinkToAnOversizedRecord() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("elsewhere.json")
        let padded = #"{"installID": "planted", "userIdentifier": "mallory"}"#
        try Data(padded.utf8).write(to: target)
        let legacy = EloLegacyIdentityFile.url(in: directory, network: "elo")
        try FileManager.default.createSymbolicLink(at: legacy, withDestinationURL: target)
        EloLegacyIdentityFile.delete(in: directory, network: "elo", logger: SilentLogger())
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: legacy.path)) == nil) // the link is gone
        #expect(try Data(contentsOf: target) == Data(padded.utf8))
    }

    @Test("a symbolic link to /dev/zero, a dangling link or a FIFO is refused at once and deleted", arguments: ["dev zero", "dangling", "fifo"])
    func linksAndFIFOs(kind: String) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let legacy = EloLegacyIdentityFile.url(in: directory, network: "elo")
        switch kind {
        case "dev zero": try FileManager.default.createSymbolicLink(atPath: legacy.path, withDestinationPath: "/dev/zero")
        case "dangling": try FileManager.default.createSymbolicLink(atPath: legacy.path, withDestinationPath: directory.appendingPathComponent("nothing").path)
        default: #expect(mkfifo(legacy.path, 0o600) == 0)
        }
        EloLegacyIdentityFile.delete(in: directory, network: "elo", logger: SilentLogger())
        #expect((try? FileManager.default.attributesOfItem(atPath: legacy.path)) == nil, "\(kind): still there")
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import Mediation
import MediationTestKit
import Testing

/// Red-team attacks on the state directory under a remote configuration (engine rules R21,
/// R22): the cache's or the install id's file replaced by a directory, a FIFO, a symbolic link,
/// a huge, truncated or foreign file; a store that cannot be written at all. The engine launches
/// at once, serves ads, says why, and never trusts, follows or hangs on such a file.
@Suite("Red team: the state directory")
struct RedTeamStateStoreTests {
    private static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("red-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private static func file(_ key: String, in directory: URL) -> String {
        directory.appendingPathComponent(FileStateStore.fileName(for: key) + FileStateStore.suffix).path
    }

    @Test("the cache's file is a directory, a FIFO, a symbolic link to a good record, a 9 MB file, truncated, garbage or another program's JSON: discarded or reported, the bundled configuration runs, a newer one still applies",
          arguments: ["directory", "fifo", "symlink", "huge", "truncated", "garbage", "foreign json", "empty"])
    func hostileCacheFile(kind: String) async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A good cache record of version 2, written by a first launch.
        let first = try RemoteHarness(store: try FileStateStore(directory: directory), steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(2), etag: "\"v2\""))])
        try await first.clock.perform { () async throws in
            await first.advance(to: 1)
            _ = await first.shutdownAndCountAds()
        }
        let path = Self.file(ConfigurationCache.key, in: directory)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.removeItem(atPath: Self.file(ConfigurationCache.appliedVersionKey, in: directory))
        switch kind {
        case "directory":
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case "fifo":
            #expect(mkfifo(path, 0o600) == 0)
        case "symlink":
            let elsewhere = directory.appendingPathComponent("elsewhere.bin").path
            try good.write(to: URL(fileURLWithPath: elsewhere))
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: elsewhere)
        case "huge":
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            #expect(truncate(path, 9 << 20) == 0)
        case "truncated":
            try good.prefix(good.count - 40).write(to: URL(fileURLWithPath: path))
        case "garbage":
            try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: path))
        case "foreign json":
            try Data(#"{"config_version": 99, "networks": {}, "placements": {}}"#.utf8).write(to: URL(fileURLWithPath: path))
        default:
            try Data().write(to: URL(fileURLWithPath: path))
        }
        let store = try FileStateStore(directory: directory)
        let second = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(3, eCPM: "3.0"), etag: "\"v3\""))])
        #expect(second.engine.configurationVersion == 0 && second.engine.configurationSource == .bundled, "\(kind)")
        let warning = try #require(second.engine.launchWarnings.first, "\(kind): no warning")
        #expect(warning.isWarning && [.cacheDiscarded, .storeUnavailable].contains(warning.code), "\(kind): \(warning)")
        try await second.clock.perform { () async throws in
            #expect(try await second.auction().configVersion == 0)
            #expect(second.engine.configurationVersion == 3, "\(kind)") // checked at once, applied
            #expect(try await second.auction().winningECPM == 3.0)
            #expect(await second.shutdownAndCountAds())
        }
        if kind == "symlink" {
            // The link was removed, never followed: its target is untouched.
            #expect(try Data(contentsOf: directory.appendingPathComponent("elsewhere.bin")) == good)
        }
        if kind == "directory" {
            // The directory cannot be replaced by the new cache: the write failed, and said so.
            #expect(second.updates.contains { $0.code == .storeUnavailable && $0.isWarning })
        } else {
            // The new version was cached in place of the bad file.
            let third = try RemoteHarness(store: try FileStateStore(directory: directory), steps: [.respond(HTTP.Response(statusCode: 304))])
            #expect(third.engine.configurationVersion == 3 && third.engine.configurationSource == .cache, "\(kind)")
            _ = await third.clock.perform { await third.shutdownAndCountAds() }
        }
    }

    @Test("the install id's file is a directory: the id lasts for the process, with a warning; launches still work")
    func installIDIsADirectory() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(atPath: Self.file(InstallID.key, in: directory), withIntermediateDirectories: false)
        let store = try FileStateStore(directory: directory)
        let (id, failure) = InstallID.current(in: store)
        #expect(InstallID.isValid(id))
        #expect(failure != nil)
        let harness = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(1), etag: "\"v1\""))])
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 1)
            #expect(harness.engine.configurationVersion == 1)
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test("the state directory is a file, or under a file: the store refuses to open with a clear error")
    func directoryIsAFile() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("plain")
        try Data("x".utf8).write(to: file)
        for url in [file, file.appendingPathComponent("below")] {
            #expect { try FileStateStore(directory: url) } throws: { error in
                guard let error = error as? StateStoreError else { return false }
                return error.kind == .unavailable && error.message.contains(file.path)
            }
        }
    }

    @Test("a store that fails every read and write: the engine launches on the bundled configuration, applies a newer one, warns, and loses no ad")
    func storeFailsEverything() async throws {
        let store = MemoryStateStore()
        store.failAll("disk on fire")
        let harness = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(1), etag: "\"v1\""))])
        #expect(harness.engine.configurationVersion == 0)
        #expect(harness.engine.launchWarnings.contains { $0.code == .storeUnavailable })
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 1)
            #expect(harness.engine.configurationVersion == 1)
            #expect(harness.updates.contains { $0.code == .storeUnavailable && $0.outcome == .warning })
            #expect(try await harness.auction().configVersion == 1)
            #expect(await harness.shutdownAndCountAds())
        }
    }
}

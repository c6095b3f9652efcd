import Foundation
import Testing
@testable import MediationCLI

/// A newcomer's attacks on `mediate networks --state-dir DIR [--public-key KEY.pub]`, which
/// promises to write nothing to DIR (docs/cli.md, commit 6c1c157).
@Suite("Newcomer attacks: mediate networks --state-dir writes nothing")
struct NewcomerNetworksStateDirAttackTests {
    /// Every entry of `directory` (hidden ones too) with its bytes, or nil when it does not exist.
    private static func snapshot(_ directory: URL) -> [String: Data]? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return nil }
        var entries: [String: Data] = [:]
        for name in names {
            entries[name] = (try? Data(contentsOf: directory.appendingPathComponent(name))) ?? Data()
        }
        return entries
    }

    @Test("a --state-dir that does not exist is not created (nor its lock file)")
    func missingDirectoryNotCreated() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        #expect(await workspace.run(["config", "keygen", "--out", "k"]).code == .success)
        let state = workspace.directory.appendingPathComponent("no-such-state")
        _ = await workspace.run(["networks", "--state-dir", "no-such-state", "--public-key", "k.pub"])
        #expect(Self.snapshot(state) == nil, "networks created \(state.path): \(Self.snapshot(state).map { Array($0.keys) } ?? [])")
        _ = await workspace.run(["networks", "--state-dir", "no-such-state"])
        #expect(Self.snapshot(state) == nil, "networks created \(state.path): \(Self.snapshot(state).map { Array($0.keys) } ?? [])")
    }

    @Test("a --state-dir kept by a run, with no lock file left in it, gets no new file")
    func noLockFileCreated() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        #expect(await workspace.run(["config", "keygen", "--out", "k"]).code == .success)
        let state = workspace.directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        // A state directory copied from a device or a backup: the values, not the lock file.
        let before = try #require(Self.snapshot(state))
        let result = await workspace.run(["networks", "--state-dir", "state", "--public-key", "k.pub"])
        #expect(result.code == .success, "\(result.error)")
        #expect(Self.snapshot(state) == before, "networks wrote to --state-dir: now \(Self.snapshot(state).map { $0.keys.sorted() } ?? [])")
    }

    @Test("a temporary file an interrupted run left in --state-dir is not removed by networks")
    func temporaryFileKept() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        #expect(await workspace.run(["config", "keygen", "--out", "k"]).code == .success)
        let state = workspace.directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try Data().write(to: state.appendingPathComponent(".lock"))
        try Data("half a write".utf8).write(to: state.appendingPathComponent(".config.cache.state.1234.tmp"))
        let before = try #require(Self.snapshot(state))
        let result = await workspace.run(["networks", "--state-dir", "state", "--public-key", "k.pub"])
        #expect(result.code == .success, "\(result.error)")
        #expect(Self.snapshot(state) == before, "networks changed --state-dir: now \(Self.snapshot(state).map { $0.keys.sorted() } ?? [])")
    }

    @Test("a damaged (tampered) or huge record in --state-dir is reported, not removed, by networks")
    func damagedRecordKept() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        #expect(await workspace.run(["config", "keygen", "--out", "k"]).code == .success)
        let state = workspace.directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try Data().write(to: state.appendingPathComponent(".lock"))
        try Data("not a state record".utf8).write(to: state.appendingPathComponent("config.cache.state"))
        try Data(repeating: 0x41, count: 9 << 20).write(to: state.appendingPathComponent("install.id.state"))
        let before = try #require(Self.snapshot(state))
        let result = await workspace.run(["networks", "--state-dir", "state", "--public-key", "k.pub"])
        #expect(result.code == .success, "\(result.error)")
        let after = Self.snapshot(state)
        #expect(after?.keys.sorted() == before.keys.sorted(), "networks removed files from --state-dir: before \(before.keys.sorted()), after \(after.map { $0.keys.sorted() } ?? [])")
        // It must not say both: the warning says "removed", the note says nothing changed.
        #expect(!(result.error.contains("; removed;") && result.error.contains("mediate networks changes nothing in --state-dir")), "\(result.error)")
    }

    @Test("a --state-dir networks may read but not lock (here .lock is a directory, as for a folder of another user) is still shown: networks only reads")
    func readableButNotLockable() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        #expect(await workspace.run(["config", "keygen", "--out", "k"]).code == .success)
        let state = workspace.directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state.appendingPathComponent(".lock"), withIntermediateDirectories: true)
        let result = await workspace.run(["networks", "--state-dir", "state", "--public-key", "k.pub"])
        // Today: exit 73, "cannot open the lock file .../state/.lock: Is a directory".
        #expect(result.code == .success, "\(result.code): \(result.error)")
    }
}


import Foundation
import Testing
@testable import MediationCLI

/// A newcomer's attacks on `mediate networks --state-dir DIR [--public-key KEY.pub]`, which
/// promises to write nothing to DIR (docs/cli.md, commit 6c1c157), and on `--state-dir` naming a
/// regular file, for every command taking it.
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

    /// A workspace with the instant config and the key pair `k` / `k.pub`, and its folder
    /// `state` holding `files` (name and bytes; `.lock` among them when given), or no `state`
    /// folder when `files` is nil.
    private static func workspace(state files: [String: Data]?) async throws -> (workspace: Workspace, state: URL) {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        #expect(await workspace.run(["config", "keygen", "--out", "k"]).code == .success)
        let state = workspace.directory.appendingPathComponent("state")
        if let files {
            try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
            for (name, bytes) in files { try bytes.write(to: state.appendingPathComponent(name)) }
        }
        return (workspace, state)
    }

    /// Runs `mediate networks --state-dir state --public-key k.pub` on `files` (as
    /// ``workspace(state:)``); it must succeed.
    /// - Returns: the run's standard error, and the folder's entries before and after it.
    private static func networks(on files: [String: Data], sourceLocation: SourceLocation = #_sourceLocation) async throws -> (error: String, before: [String: Data], after: [String: Data]?) {
        let (workspace, state) = try await workspace(state: files)
        let before = try #require(snapshot(state), sourceLocation: sourceLocation)
        let result = await workspace.run(["networks", "--state-dir", "state", "--public-key", "k.pub"])
        #expect(result.code == .success, "\(result.code): \(result.error)", sourceLocation: sourceLocation)
        return (result.error, before, snapshot(state))
    }

    @Test("a --state-dir that does not exist is not created (nor its lock file)")
    func missingDirectoryNotCreated() async throws {
        let (workspace, state) = try await Self.workspace(state: nil)
        _ = await workspace.run(["networks", "--state-dir", "state", "--public-key", "k.pub"])
        #expect(Self.snapshot(state) == nil, "networks created \(state.path): \(Self.snapshot(state).map { Array($0.keys) } ?? [])")
        _ = await workspace.run(["networks", "--state-dir", "state"])
        #expect(Self.snapshot(state) == nil, "networks created \(state.path): \(Self.snapshot(state).map { Array($0.keys) } ?? [])")
    }

    @Test("a --state-dir kept by a run, with no lock file left in it, gets no new file")
    func noLockFileCreated() async throws {
        // A state directory copied from a device or a backup: the values, not the lock file.
        let run = try await Self.networks(on: [:])
        #expect(run.after == run.before, "networks wrote to --state-dir: now \(run.after.map { $0.keys.sorted() } ?? [])")
    }

    @Test("a temporary file an interrupted run left in --state-dir is not removed by networks")
    func temporaryFileKept() async throws {
        let run = try await Self.networks(on: [".lock": Data(), ".config.cache.state.1234.tmp": Data("half a write".utf8)])
        #expect(run.after == run.before, "networks changed --state-dir: now \(run.after.map { $0.keys.sorted() } ?? [])")
    }

    @Test("a damaged (tampered) or huge record in --state-dir is reported, not removed, by networks")
    func damagedRecordKept() async throws {
        let run = try await Self.networks(on: [
            ".lock": Data(),
            "config.cache.state": Data("not a state record".utf8),
            "install.id.state": Data(repeating: 0x41, count: 9 << 20),
        ])
        #expect(run.after?.keys.sorted() == run.before.keys.sorted(), "networks removed files from --state-dir: before \(run.before.keys.sorted()), after \(run.after.map { $0.keys.sorted() } ?? [])")
        // It must not say both: the warning says "removed", the note says nothing changed.
        #expect(!(run.error.contains("; removed;") && run.error.contains("mediate networks changes nothing in --state-dir")), "\(run.error)")
    }

    @Test("a --state-dir networks may read but not lock (here .lock is a directory, as for a folder of another user) is still shown: networks only reads")
    func readableButNotLockable() async throws {
        let (workspace, state) = try await Self.workspace(state: [:])
        try FileManager.default.createDirectory(at: state.appendingPathComponent(".lock"), withIntermediateDirectories: true)
        let result = await workspace.run(["networks", "--state-dir", "state", "--public-key", "k.pub"])
        // Before: exit 73, "cannot open the lock file .../state/.lock: Is a directory".
        #expect(result.code == .success, "\(result.code): \(result.error)")
    }

    @Test("networks, a run with --config-url and a --fast watch each say that --state-dir's path is a file, not a directory (exit 73)")
    func stateDirectoryIsAFile() async throws {
        let (workspace, state) = try await Self.workspace(state: nil)
        try workspace.write("not a directory", to: "state")
        let path = state.standardizedFileURL.path
        let remote = ["--config-url", "http://127.0.0.1:1/c.json", "--public-key", "k.pub", "--state-dir", "state"]
        let said = "mediate: --state-dir state: \(path) is a file, not a directory"
        for (arguments, expected) in [
            (["networks", "--state-dir", "state"], said),
            (["--placement", "home_banner"] + remote, said),
            // A run on virtual time keeps its state in state/virtual-time.
            (["--placement", "home_banner", "--watch", "--fast", "--duration", "1m"] + remote, said + " (the state directory \(path)/virtual-time would be inside it)"),
        ] {
            let result = await workspace.run(arguments)
            #expect(result.code == .cannotCreate, "\(arguments): \(result.code) \(result.error)")
            #expect(result.error == expected + "\n", "\(arguments)")
        }
    }
}

import Foundation
import Testing
@testable import MediationCLI

/// A newcomer's attacks on odd `--state-dir` paths (docs/cli.md): a dangling symbolic link, and
/// a path that does not exist given to `mediate networks`.
@Suite("Newcomer attacks: --state-dir paths")
struct NewcomerStateDirPathAttackTests {
    private static func workspace() async throws -> Workspace {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        #expect(await workspace.run(["config", "keygen", "--out", "k"]).code == .success)
        return workspace
    }

    @Test("a run whose --state-dir is a dangling symbolic link says why the directory cannot be created")
    func danglingSymlink() async throws {
        let workspace = try await Self.workspace()
        try FileManager.default.createSymbolicLink(atPath: workspace.directory.appendingPathComponent("state").path, withDestinationPath: "nowhere")
        let result = await workspace.run(["--placement", "home_banner", "--config-url", "http://127.0.0.1:1/c.json", "--public-key", "k.pub", "--state-dir", "state"])
        #expect(result.code == .cannotCreate, "\(result.code): \(result.error)")
        // Before the fix: 'mediate: --state-dir state: cannot create the state directory /…/state', no cause.
        #expect(result.error.contains("link") || result.error.contains("nowhere"), "the error does not say that state is a symbolic link to the missing nowhere: \(result.error)")
    }

    @Test("networks --state-dir naming a folder that does not exist says so, instead of showing the bundled config and closed health as if read from it")
    func missingStateDirectoryIsSaid() async throws {
        let workspace = try await Self.workspace()
        let result = await workspace.run(["networks", "--state-dir", "stat", "--public-key", "k.pub"])  // a typo of "state"
        #expect(result.code == .success, "\(result.code): \(result.error)")
        let said = (result.output + result.error).lowercased()
        #expect(said.contains("does not exist") || said.contains("no such") || said.contains("not found") || said.contains("missing"), "networks says nothing of --state-dir stat not existing:\n\(result.error)\(result.output.prefix(600))")
    }
}

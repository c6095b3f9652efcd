import Foundation
import Testing
@testable import MediationCLI

/// `--state-dir PATH` where PATH is a regular file: every command taking the option says so,
/// naming the option and the path (not "cannot create the state directory").
@Suite("--state-dir naming a file")
struct StateDirectoryIsAFileTests {
    @Test("networks, a run with --config-url and a --fast watch each say that --state-dir's path is a file, not a directory (exit 73)")
    func fileIsNamed() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        #expect(await workspace.run(["config", "keygen", "--out", "k"]).code == .success)
        try workspace.write("not a directory", to: "state")
        let path = workspace.directory.appendingPathComponent("state").standardizedFileURL.path
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

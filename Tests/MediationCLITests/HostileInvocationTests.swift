import Foundation
import Testing
@testable import MediationCLI

/// Red-team attacks on the `mediate` command as a careless user or an attacker would run it:
/// absurd arguments, files that are devices, directories, huge or not UTF-8, and ids made of
/// terminal escape sequences. Each must end with its documented exit code and one clear line,
/// with nothing raw reaching the terminal (R15, R17).
@Suite("mediate: hostile invocations")
struct HostileInvocationTests {
    @Test("absurd --seed and --duration values are usage errors (64) naming the value", arguments: [
        ["--placement", "home_banner", "--seed", "-1"],
        ["--placement", "home_banner", "--seed", "99999999999999999999999"],
        ["--placement", "home_banner", "--watch", "--fast", "--duration", "0"],
        ["--placement", "home_banner", "--watch", "--fast", "--duration", "-5"],
        ["--placement", "home_banner", "--watch", "--fast", "--duration", "nan"],
        ["--placement", "home_banner", "--watch", "--fast", "--duration", "inf"],
        ["--placement", "home_banner", "--watch", "--fast", "--duration", "1e300"],
        ["--placement", "home_banner", "--placement", ""],
    ])
    func absurdArguments(_ arguments: [String]) async throws {
        let result = await Workspace.runInRepository(arguments)
        #expect(result.code == .usage)
        #expect(result.output.isEmpty)
        #expect(result.error.hasPrefix("mediate: "))
        #expect(result.error.split(separator: "\n").count == 1)
    }

    @Test("a config that is a directory, a device or not UTF-8 fails with one line and the documented code")
    func configFilesThatAreNotFiles() async throws {
        let workspace = try Workspace()
        try workspace.write([0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00], to: "utf16.json")
        for (path, code) in [("Config", ExitCode.noInput), ("/dev/zero", .noInput), ("utf16.json", .dataError)] {
            let result = await workspace.run(["validate", "--config", path])
            #expect(result.code == code, "\(path): \(result.error)")
            #expect(result.error.split(separator: "\n").count == 1, "\(path): \(result.error)")
        }
    }

    @Test("an unknown placement made of escape sequences is quoted escaped")
    func escapedUnknownPlacement() async throws {
        let result = await Workspace.runInRepository(["--placement", "home\u{1B}[31m_banner\u{07}"])
        #expect(result.code == .usage)
        #expect(!result.error.contains("\u{1B}"))
        #expect(!result.error.contains("\u{07}"))
    }

    @Test(
        "validate names a placement id made of escape sequences escaped"
    )
    func validateEscapesPlacementIDs() async throws {
        let workspace = try Workspace()
        try workspace.write(#"""
        {
          "networks": { "admob": { "adapter": "fallback", "endpoint": "sandbox" } },
          "placements": { "b\u001b[31mx\u0007": { "format": "interstitial", "sources": [ { "id": "s", "network": "admob", "ad_unit_id": "u", "ecpm": 1 } ] } }
        }
        """#, to: "Config/mediation.json")
        let result = await workspace.run(["validate"])
        #expect(result.code == .success)
        #expect(!result.output.contains("\u{1B}"), "\(result.output)")
        #expect(!result.output.contains("\u{07}"))
    }

    @Test("a messages file over 1 MiB, with an unknown role, or with escapes in ids is refused or sent without printing them raw")
    func hostileMessagesFiles() async throws {
        let workspace = try Workspace()
        try workspace.write(#"[{"role":"user","content":""# + String(repeating: "x", count: 1_100_000) + #""}]"#, to: "huge.json")
        try workspace.write(#"[{"role":"robot","content":"x"}]"#, to: "robot.json")
        try workspace.write(#"[{"role":"user","content":"\u001b[31mRED\nFAKE","id":"\u001b]0;t\u0007"}]"#, to: "escapes.json")
        try workspace.write(try String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/mediation.json"), encoding: .utf8), to: "Config/mediation.json")
        let huge = await workspace.run(["--placement", "chat_strip", "--messages", "huge.json"])
        #expect(huge.code == .dataError)
        #expect(huge.error.contains("1 MiB"))
        let robot = await workspace.run(["--placement", "chat_strip", "--messages", "robot.json"])
        #expect(robot.code == .dataError)
        #expect(robot.error.contains("[0].role"))
        let device = await workspace.run(["--placement", "chat_strip", "--messages", "/dev/zero"])
        #expect(device.code == .noInput, "\(device.error)")
        #expect(device.error.split(separator: "\n").count == 1)
        let escapes = await workspace.run(["--placement", "chat_strip", "--messages", "escapes.json"])
        #expect([ExitCode.success, .noFill].contains(escapes.code))
        #expect(!escapes.output.contains("\u{1B}") && !escapes.error.contains("\u{1B}"))
    }
}

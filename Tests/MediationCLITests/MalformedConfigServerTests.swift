import Foundation
import MediationTestKit
@testable import MediationCLI
import Testing

/// `mediate` run as a process against a configuration server that answers with a malformed or
/// cut-off response: never a crash (FoundationNetworking's URLSession stopped the process with
/// SIGILL on a status line alone), exit 0 on the bundled configuration with a warning, one-shot
/// and under `--watch`.
@Suite("mediate against a malformed configuration server")
struct MalformedConfigServerTests {
    /// A directory with `Config/mediation.json` and a key pair `k`, `k.pub`.
    static func keyed() async throws -> Workspace {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let keygen = await workspace.run(["config", "keygen", "--out", "k"])
        #expect(keygen.code == .success)
        return workspace
    }

    /// Runs the built `mediate` with `arguments` in `directory`; the exit status, how it ended
    /// and its standard error.
    static func mediate(_ arguments: [String], in directory: URL) async throws -> (status: Int32, reason: Process.TerminationReason, error: String) {
        let process = Process()
        process.executableURL = try UnwritableOutputTests.executable()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let errorPipe = Pipe()
        process.standardError = errorPipe
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let error = try await TestGate.shared.with(exclusive: false) {
            try process.run()
            return await onOwnThread {
                let error = errorPipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return error
            }
        }
        return (process.terminationStatus, process.terminationReason, String(decoding: error, as: UTF8.self))
    }

    @Test("one-shot: exit 0 with a warning, the bundled configuration serves", arguments: MalformedHTTPResponse.all)
    func oneShot(shape: MalformedHTTPResponse) async throws {
        let workspace = try await Self.keyed()
        let server = try await ConfigServer([.init(raw: shape.bytes, holdMilliseconds: shape.holdMilliseconds)])
        defer { server.stop() }
        let result = try await Self.mediate(["--placement", "home_banner", "--config-url", server.url.absoluteString, "--public-key", "k.pub"], in: workspace.directory)
        #expect(result.reason == .exit, "\(shape): ended by signal \(result.status): \(result.error)")
        #expect(result.status == 0, "\(shape): \(result.error)")
        #expect(result.error.contains("mediate: warning: "), "\(shape): \(result.error)")
    }

    @Test("--watch: exit 0 with a warning", arguments: MalformedHTTPResponse.all)
    func watch(shape: MalformedHTTPResponse) async throws {
        let workspace = try await Self.keyed()
        let server = try await ConfigServer([.init(raw: shape.bytes, holdMilliseconds: shape.holdMilliseconds)])
        defer { server.stop() }
        let result = try await Self.mediate(["--placement", "home_banner", "--watch", "--duration", "1", "--config-url", server.url.absoluteString, "--public-key", "k.pub"], in: workspace.directory)
        #expect(result.reason == .exit, "\(shape): ended by signal \(result.status): \(result.error)")
        #expect(result.status == 0, "\(shape): \(result.error)")
        #expect(result.error.contains("mediate: warning: "), "\(shape): \(result.error)")
    }
}

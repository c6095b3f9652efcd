import Adapters
import Foundation
import MediationTestKit
@testable import Mediation
@testable import MediationCLI
import Testing

/// `mediate` runs as processes sharing one `--state-dir`, the way a shell (or an app and its
/// extension) shares it: the highest configuration version applied only ever rises, and the
/// cache written beside it is never older than it (the store's lock across processes).
@Suite("mediate runs sharing one --state-dir")
struct SharedStateDirectoryTests {
    @Test("twenty concurrent mediate runs over versions 1 to 20 on one --state-dir leave the floor at 20 and the cache at version 20")
    func floorOnlyRises() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        #expect(await workspace.run(["config", "keygen", "--out", "k"]).code == .success)
        var routes: [String: [ConfigServer.Response]] = [:]
        for version in 1...20 {
            let signed = await workspace.run(["config", "sign", "--key", "k", "--version", "\(version)", "Config/mediation.json"])
            #expect(signed.code == .success, "\(signed.error)")
            routes["GET /v\(version).json"] = [.init(body: signed.output)]
        }
        let server = try await ConfigServer(routes: routes)
        defer { server.stop() }
        // All twenty started at once, then waited for.
        let statuses = try await Self.runConcurrently((1...20).map { version in
            ["--placement", "home_banner", "--config-url", "\(server.base)/v\(version).json", "--public-key", "k.pub", "--state-dir", "state", "--json"]
        }, in: workspace.directory)
        #expect(statuses == Array(repeating: 0, count: 20))

        let store = try FileStateStore(directory: workspace.directory.appendingPathComponent("state"))
        let cache = ConfigurationCache(store: store)
        #expect(cache.appliedVersion().version == 20)
        let entry = try #require(try cache.read().get())
        let publicLine = try String(contentsOf: workspace.directory.appendingPathComponent("k.pub"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let verified = try SignedConfiguration.verify(entry.envelope, trustedKeys: [try MediationEngine.RemoteConfiguration.PublicKey(publicLine)], registry: .standard).get()
        #expect(verified.version == 20)
    }

    /// Starts the built `mediate` once per argument list, all at once, in `directory`, and
    /// returns their exit statuses (awaited on a thread of their own).
    static func runConcurrently(_ runs: [[String]], in directory: URL) async throws -> [Int32] {
        let executable = try UnwritableOutputTests.executable()
        let processes = runs.map { arguments in
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.currentDirectoryURL = directory
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            return process
        }
        return try await TestGate.shared.with(exclusive: true) {
            for process in processes { try process.run() }
            return await onOwnThread {
                processes.map { process in
                    process.waitUntilExit()
                    return process.terminationStatus
                }
            }
        }
    }
}

import Adapters
import Foundation
import Mediation
import MediationTestKit
import Testing

/// docs/embedding.md's host snippet for a configuration from a server, run as a new user would (with
/// the app's bundle, folder and server replaced by the repository's config, a temporary folder
/// and a closed loopback port): its key line parses, the engine is built at once on the bundled
/// configuration without waiting on the network, and the calls it shows exist.
@Suite("Red team: the remote-configuration snippet of docs/embedding.md", .serialized)
struct RedTeamEmbeddingSnippetTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("every MediationEngine.RemoteConfiguration.PublicKey line docs/embedding.md and docs/remote-config.md show is a valid key line (its id matches its key)")
    func keyLinesParse() throws {
        for file in ["docs/embedding.md", "docs/remote-config.md"] {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            let lines = text.split(separator: "\n").compactMap { line -> String? in
                guard let range = line.range(of: #"mediation-ed25519 [0-9a-f]{16} [A-Za-z0-9+/=]{44}"#, options: .regularExpression) else { return nil }
                return String(line[range])
            }
            #expect(!lines.isEmpty, "\(file) shows no key line")
            for line in lines {
                #expect(throws: Never.self, "\(file): \(line)") { try MediationEngine.RemoteConfiguration.PublicKey(line) }
            }
        }
    }

    @Test("the snippet builds the engine at once on the bundled configuration, with no network wait")
    func snippetRuns() async throws {
        let appSupport = FileManager.default.temporaryDirectory.appendingPathComponent("embedding-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: appSupport) }
        let port = try await LoopbackServer.closedPort()
        let warnings = Locked<[String]>([])
        @Sendable func log(_ line: String) { warnings.withLock { $0.append(line) } }

        let engine = try MediationEngine(
            bundledConfiguration: Self.root.appendingPathComponent("Config/mediation.json"),
            remote: MediationEngine.RemoteConfiguration(
                url: URL(string: "http://127.0.0.1:\(port)/chat/mediation.json")!,
                trustedKeys: [try MediationEngine.RemoteConfiguration.PublicKey("mediation-ed25519 c882f47debb3cd17 R89ENh0NTQ8oSd8qMVP5NypYkbedPaLcXKPXrZCjeHQ=")],
                transport: HTTP.SystemTransport(maximumResponseBytes: MediationEngine.RemoteConfiguration.maximumBodyBytes)
            ),
            registry: .standard,
            environment: MediationEnvironment(
                clock: SystemClock(),
                stateStore: try FileStateStore(directory: appSupport.appendingPathComponent("mediation"))
            ),
            onEvent: { event in
                if case .configuration(let update) = event, update.isWarning { log(update.description) }
            }
        )
        #expect(engine.configurationVersion == 0 && engine.configurationSource == .bundled)
        for warning in engine.launchWarnings { log(warning.description) }
        await engine.setForeground(true)
        let update = try #require(await engine.checkConfiguration())
        #expect(update.code == .transport && update.isWarning)
        #expect(warnings.withLock { $0 }.contains { $0.contains("transport") })
        await engine.shutdown()
    }
}

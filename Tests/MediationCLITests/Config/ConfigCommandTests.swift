import Foundation
import Mediation
@testable import MediationCLI
import Testing

/// `mediate config keygen | sign | verify` and `mediate --config-url` (engine rule R22): the
/// tools round-trip, one changed byte fails verification with exit 65, and a run against a
/// loopback server applies a signed configuration, names its `config_version` in the trace,
/// and refuses an older version served afterwards.
@Suite("mediate config and --config-url", .serialized)
struct ConfigCommandTests {
    private static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("keygen writes KEY (mode 0600) and KEY.pub (one line); sign then verify round-trips; one changed byte makes verify exit 65")
    func roundTrip() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let keygen = await workspace.run(["config", "keygen", "--out", "release.key"])
        #expect(keygen.code == .success, "\(keygen.error)")
        let keyPath = workspace.directory.appendingPathComponent("release.key").path
        let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let publicLine = try String(contentsOfFile: keyPath + ".pub", encoding: .utf8)
        #expect(publicLine.hasSuffix("\n") && publicLine.dropLast().split(separator: "\n").count == 1)
        #expect(try MediationEngine.RemoteConfiguration.PublicKey(publicLine).id.count == 16)
        #expect(await workspace.run(["config", "keygen", "--out", "release.key"]).code == .cannotCreate) // never overwritten

        let signed = await workspace.run(["config", "sign", "--key", "release.key", "--version", "7", "--rollout", "12.5", "--issued-at", "2026-12-01T14:00:00Z", "Config/mediation.json"])
        #expect(signed.code == .success, "\(signed.error)")
        try workspace.write(signed.output, to: "signed.json")
        let verified = await workspace.run(["config", "verify", "--public-key", "release.key.pub", "signed.json"])
        #expect(verified.code == .success)
        #expect(verified.output == "signed.json: valid: version 7, key \(try MediationEngine.RemoteConfiguration.PublicKey(publicLine).id), issued_at 2026-12-01T14:00:00.000Z, rollout 12.5 % (salt \"v7\"); 3 networks, 3 placements\n")

        // One changed byte of the signed configuration: its base64 text, or the signature.
        let envelope = Array(signed.output.utf8)
        let configStart = try #require(signed.output.range(of: "\"config\": \"")).upperBound.utf16Offset(in: signed.output)
        for offset in [configStart + 10, configStart + 200, try #require(signed.output.range(of: "\"signature\": \"")).upperBound.utf16Offset(in: signed.output) + 5] {
            var changed = envelope
            changed[offset] = changed[offset] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            try workspace.write(changed, to: "changed.json")
            let result = await workspace.run(["config", "verify", "--public-key", "release.key.pub", "changed.json"])
            #expect(result.code == .dataError, "offset \(offset): \(result.output)")
            #expect(result.output.hasPrefix("changed.json: not valid: "))
        }
        // Another key: unknown_key, exit 65.
        _ = await workspace.run(["config", "keygen", "--out", "other.key"])
        let unknown = await workspace.run(["config", "verify", "--public-key", "other.key.pub", "signed.json"])
        #expect(unknown.code == .dataError && unknown.output.contains("unknown_key"))
        // Rollback in one command: the signed file signed again as a higher version.
        let rollback = await workspace.run(["config", "sign", "--key", "release.key", "--version", "8", "signed.json"])
        #expect(rollback.code == .success)
        try workspace.write(rollback.output, to: "rollback.json")
        let rolled = await workspace.run(["config", "verify", "--public-key", "release.key.pub", "rollback.json"])
        #expect(rolled.code == .success && rolled.output.contains("version 8") && rolled.output.contains("every install"))
    }

    @Test("sign refuses an invalid configuration with its JSON path (exit 65), a missing file (66) and bad flags (64)")
    func signErrors() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig.replacingOccurrences(of: "\"ecpm\": 2.0", with: "\"ecpm\": 0"), to: "Config/mediation.json")
        _ = await workspace.run(["config", "keygen", "--out", "k"])
        let invalid = await workspace.run(["config", "sign", "--key", "k", "--version", "1", "Config/mediation.json"])
        #expect(invalid.code == .dataError && invalid.error.contains("placements.home_banner.sources[0].ecpm"))
        #expect(await workspace.run(["config", "sign", "--key", "k", "--version", "1", "missing.json"]).code == .noInput)
        #expect(await workspace.run(["config", "sign", "--key", "k", "--version", "0", "Config/mediation.json"]).code == .usage)
        #expect(await workspace.run(["config", "sign", "--key", "k.pub", "--version", "1", "Config/mediation.json"]).code == .dataError)
        #expect(await workspace.run(["config", "verify", "Config/mediation.json"]).code == .usage)
        #expect(await workspace.run(["config", "nope"]).code == .usage)
        #expect(await workspace.run(["--placement", "home_banner", "--config-url", "http://127.0.0.1:1/c.json"]).code == .usage) // no --public-key
        #expect(await workspace.run(["--placement", "home_banner", "--state-dir", "s"]).code == .usage)
    }

    @Test("--config-url against a loopback server: the run applies the signed version 2 and its trace says so; an older version served afterwards is refused; the cache in --state-dir keeps version 2")
    func configURLRun() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        _ = await workspace.run(["config", "keygen", "--out", "k"])
        let remote = Workspace.instantConfig.replacingOccurrences(of: "\"ecpm\": 0.5", with: "\"ecpm\": 0.75")
        try workspace.write(remote, to: "remote.json")
        let v2 = await workspace.run(["config", "sign", "--key", "k", "--version", "2", "remote.json"])
        let v1 = await workspace.run(["config", "sign", "--key", "k", "--version", "1", "remote.json"])
        let server = try await ConfigServer([
            .init(body: v2.output, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=300"]),
            .init(body: v1.output, headers: ["ETag": "\"v1\""]),
        ])
        defer { server.stop() }
        let arguments = ["--placement", "home_banner", "--config-url", server.url.absoluteString, "--public-key", "k.pub", "--state-dir", "state", "--json"]
        let first = await workspace.run(arguments)
        #expect(first.code == .success, "\(first.error)")
        let report = try Self.json(first.output)
        let trace = try #require(report["trace"] as? [String: Any])
        #expect(trace["config_version"] as? Int == 2)
        #expect(trace["winning_ecpm"] as? Double == 0.75)
        let config = try #require(report["config"] as? [String: Any])
        #expect(config["version"] as? Int == 2 && config["source"] as? String == "remote")
        #expect((config["update"] as? [String: Any])?["outcome"] as? String == "applied")
        #expect(first.error.contains("mediate: config applied (applied): version 2 applied"))

        // The next run starts from the cache (version 2); the server now serves version 1.
        let second = await workspace.run(arguments)
        #expect(second.code == .success, "\(second.error)")
        let again = try Self.json(second.output)
        #expect((again["trace"] as? [String: Any])?["config_version"] as? Int == 2)
        #expect((again["config"] as? [String: Any])?["source"] as? String == "cache")
        #expect(second.error.contains("mediate: warning: config refused (not_newer): version 1 is older than the running version 2"))

        // Without --json: the trace's header line names the version too.
        let human = await workspace.run(["--placement", "home_banner", "--config-url", server.url.absoluteString, "--public-key", "k.pub", "--state-dir", "state"])
        #expect(human.output.split(separator: "\n").contains { $0.hasPrefix("Auction ") && $0.contains("config version 2;") })
    }

    @Test("--config-url with a server that is down: the bundled config runs (version 0) and a warning says why")
    func configURLDown() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        _ = await workspace.run(["config", "keygen", "--out", "k"])
        let server = try await ConfigServer([.init(status: 503, headers: ["Retry-After": "120"])])
        defer { server.stop() }
        let result = await workspace.run(["--placement", "home_banner", "--config-url", server.url.absoluteString, "--public-key", "k.pub", "--json"])
        #expect(result.code == .success)
        #expect((try Self.json(result.output)["trace"] as? [String: Any])?["config_version"] as? Int == 0)
        #expect(result.error.contains("mediate: warning: config failed (server_busy): HTTP 503, Retry-After 120 s"))
    }

    @Test("--watch --fast --config-url checks as an app would and prints a line when a new version is applied")
    func watchPrintsAppliedVersions() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        _ = await workspace.run(["config", "keygen", "--out", "k"])
        try workspace.write(Workspace.instantConfig.replacingOccurrences(of: "\"ecpm\": 0.5", with: "\"ecpm\": 0.75"), to: "remote.json")
        let v1 = await workspace.run(["config", "sign", "--key", "k", "--version", "1", "remote.json"])
        let v2 = await workspace.run(["config", "sign", "--key", "k", "--version", "2", "remote.json"])
        let server = try await ConfigServer([
            .init(body: v1.output, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=100"]),
            .init(body: v2.output, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=100"]),
            .init(status: 304, headers: ["Cache-Control": "max-age=100"]),
        ])
        defer { server.stop() }
        let result = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "250", "--config-url", server.url.absoluteString, "--public-key", "k.pub"])
        #expect(result.code == .success, "\(result.error)")
        let applied = result.output.split(separator: "\n").filter { $0.contains("config version") && $0.contains("applied") }
        #expect(applied.map { String($0.drop { $0 != "]" }) } == ["] config version 1 applied (remote)", "] config version 2 applied (remote)"], "\(result.output)")
        #expect(applied.first?.hasPrefix("[0.000s]") == true)
        #expect(applied.last?.hasPrefix("[100.000s]") == true)
    }

    @Test("--watch --fast --config-url: a version that drops the watched placement prints that it was applied first, then what it did to the placement")
    func watchPrintsTheApplicationBeforeItsConsequences() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        _ = await workspace.run(["config", "keygen", "--out", "k"])
        try workspace.write(Workspace.instantConfig.replacingOccurrences(of: #""home_banner": {"#, with: #""old_banner": {"#), to: "dropped.json")
        let v23 = await workspace.run(["config", "sign", "--key", "k", "--version", "23", "dropped.json"])
        let server = try await ConfigServer([
            .init(status: 304, headers: ["Cache-Control": "max-age=100"]),
            .init(body: v23.output, headers: ["ETag": "\"v23\"", "Cache-Control": "max-age=100"]),
        ])
        defer { server.stop() }
        let result = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "250", "--config-url", server.url.absoluteString, "--public-key", "k.pub"])
        #expect(result.code == .success, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        let applied = try #require(lines.firstIndex { $0.hasSuffix("] config version 23 applied (remote)") }, "\(result.output)")
        let removed = try #require(lines.firstIndex { $0.hasSuffix("] placement home_banner removed by config version 23") }, "\(result.output)")
        #expect(applied < removed, "\(result.output)")
        // Every line the swap caused (the placement's ad released, the placement removed) comes after it.
        let instant = String(lines[applied].prefix { $0 != "]" })
        #expect(!lines[..<applied].contains { $0.hasPrefix(instant + "]") }, "\(result.output)")
    }
}

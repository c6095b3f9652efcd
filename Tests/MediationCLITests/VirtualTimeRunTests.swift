import Foundation
@testable import MediationCLI
import Testing

/// `--watch --fast` runs on virtual time: it refuses a network with a real endpoint (virtual
/// time does not wait for a real server), and nothing it stores is read as real time by another
/// run (engine rule R29).
@Suite("--watch --fast and real state")
struct VirtualTimeRunTests {
    /// `slow` always times out (its sandbox answers after 5 s, its limit is 500 ms) and pauses
    /// at its first failure; `up` fills at once.
    static let slowConfig = """
    {
      "networks": {
        "slow": { "adapter": "fallback", "endpoint": "sandbox", "timeout_ms": 500, "options": { "fill_rate": 1, "latency_ms": 5000 }, "health": { "failures_to_open": 1, "window": 1 } },
        "up": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1, "latency_ms": 0 } }
      },
      "placements": {
        "p": { "format": "interstitial", "sources": [
          { "id": "x", "network": "slow", "ad_unit_id": "x1", "ecpm": 2 },
          { "id": "y", "network": "up", "ad_unit_id": "y1", "ecpm": 1 } ] }
      }
    }
    """

    @Test("--watch --fast refuses a network with a real endpoint: exit 64 naming --fast, the network and its endpoint")
    func fastRefusesRealEndpoints() async throws {
        let workspace = try Workspace()
        try workspace.write(Self.slowConfig.replacingOccurrences(of: #""up": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1, "latency_ms": 0 } }"#, with: #""up": { "adapter": "nitx", "credentials": { "source_code": "SDK-AM-DEMOI" }, "endpoint": "http://127.0.0.1:1/" }"#), to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "p", "--watch", "--fast", "--duration", "10"])
        #expect(result.code == .usage, "\(result.code) \(result.error)")
        #expect(result.error.hasPrefix("mediate: --fast runs on virtual time"), "\(result.error)")
        #expect(result.error.contains("network up has the real endpoint http://127.0.0.1:1/"), "\(result.error)")
        #expect(result.output.isEmpty)
        // The same configuration on real time runs (the real endpoint fails as a real one does).
        let real = await workspace.run(["--placement", "p"])
        #expect(real.code != .usage, "\(real.error)")
    }

    @Test("a pause made under --watch --fast is kept in --state-dir's virtual-time folder: a run on real time on the same --state-dir reads the network closed")
    func virtualPausesStayVirtual() async throws {
        let workspace = try Workspace()
        try workspace.write(Self.slowConfig, to: "Config/mediation.json")
        #expect(await workspace.run(["config", "keygen", "--out", "k"]).code == .success)
        let remote = ["--config-url", "http://127.0.0.1:1/c.json", "--public-key", "k.pub"]
        let watch = await workspace.run(["--placement", "p", "--watch", "--fast", "--duration", "10"] + remote + ["--state-dir", "state"])
        #expect(watch.code == .success, "\(watch.error)")
        func health(_ directory: String) async throws -> String? {
            let result = await workspace.run(["networks", "--json", "--state-dir", directory])
            #expect(result.code == .success, "\(result.error)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let networks = try #require(object["networks"] as? [[String: Any]])
            return (networks.first { $0["id"] as? String == "slow" }?["health"] as? [String: Any])?["state"] as? String
        }
        // The virtual run paused it, in its own state...
        #expect(try await health("state/virtual-time") == "open")
        // ...which a run on real time never reads.
        #expect(try await health("state") == "closed")
    }
}

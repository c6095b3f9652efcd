import Foundation
@testable import MediationCLI
import Testing

/// `mediate simulate --users N --days D`: option errors, the same output for the same seed
/// (whatever the jobs), per-day figures, and the events file.
@Suite("mediate simulate --users")
struct UsersCommandTests {
    static let config = """
    {
      "networks": {
        "neta": { "adapter": "fallback", "endpoint": "sandbox" },
        "netb": { "adapter": "fallback", "endpoint": "sandbox" }
      },
      "placements": {
        "level_end": {
          "format": "interstitial",
          "sources": [
            { "id": "neta_li", "network": "neta", "ad_unit_id": "a", "ecpm": 1.20 },
            { "id": "netb_li", "network": "netb", "ad_unit_id": "b", "ecpm": 0.80 }
          ]
        },
        "home_banner": {
          "format": "banner", "sizing": "anchored", "refresh_seconds": 30,
          "sources": [ { "id": "neta_banner", "network": "neta", "ad_unit_id": "c", "ecpm": 0.5 } ]
        }
      }
    }
    """

    static let market = """
    {
      "networks": {
        "neta": { "fill_rate": 0.9, "price": { "median": 1.00, "spread": 0.2 }, "latency": { "median_ms": 50, "spread": 0.3 } },
        "netb": { "fill_rate": 0.8, "price": { "median": 1.50, "spread": 0.2 }, "latency": { "median_ms": 80, "spread": 0.3 } }
      }
    }
    """

    private func workspace() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.write(Self.config, to: "Config/mediation.json")
        try workspace.write(Self.market, to: "Config/market.json")
        return workspace
    }

    @Test(arguments: [
        (["--users", "0"], "--users"),
        (["--users", "many"], "--users"),
        (["--users", "3", "--days", "0"], "--days"),
        (["--users", "3", "--days", "367"], "--days"),
        (["--users", "3", "--auctions", "10"], "--auctions does not apply to a users run"),
        (["--users", "3", "--sweep", "floor=1"], "--sweep does not apply to a users run"),
        (["--users", "10000000", "--days", "366"], "--users × --days gives more than 100000000 user-days"),
        (["--placement", "level_end", "--events", "e.ndjson"], "--events applies to a users run"),
        (["--users", "2", "--placement", "home_banner"], "placement \"home_banner\" is a banner"),
        (["--users", "2", "--placement", "nope"], "no placement \"nope\""),
    ])
    func usersOptionErrors(arguments: [String], message: String) async throws {
        let workspace = try workspace()
        let result = await workspace.run(["simulate"] + arguments)
        #expect(result.code == .usage, "\(result.error)")
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test func theSameSeedGivesTheSameBytesWhateverTheJobs() async throws {
        let workspace = try workspace()
        let one = await workspace.run(["simulate", "--users", "12", "--days", "2", "--seed", "5", "--json"])
        #expect(one.code == .success, "\(one.error)")
        let two = await workspace.run(["simulate", "--users", "12", "--days", "2", "--seed", "5", "--json", "--jobs", "2"])
        #expect(two.output == one.output)
        let other = await workspace.run(["simulate", "--users", "12", "--days", "2", "--seed", "6", "--json"])
        #expect(other.output != one.output)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(one.output.utf8)) as? [String: Any])
        #expect(report["user_days"] as? Int == 24)
        #expect(report["placements"] as? [String] == ["level_end"])
        let days = try #require(report["by_day"] as? [[String: Any]])
        #expect(days.map { $0["date"] as? String } == ["2026-12-01", "2026-12-02"])
        let impressions = try #require(report["impressions"] as? Int)
        #expect(impressions > 0 && days.compactMap { $0["impressions"] as? Int }.reduce(0, +) == impressions)
        #expect(report["wasted_loads"] is Int && report["violations"] is Int)
    }

    @Test func theSameUsersUnderTheSameConfigDifferByExactlyZero() async throws {
        let workspace = try workspace()
        try workspace.write(Self.config, to: "same.json")
        let result = await workspace.run(["simulate", "--users", "6", "--days", "2", "--compare", "same.json", "--json"])
        #expect(result.code == .success, "\(result.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let differences = try #require(report["differences"] as? [[String: Any]])
        #expect(differences.map { $0["figure"] as? String } == ["impressions_per_user", "revenue_per_user_usd"])
        for difference in differences {
            #expect(difference["difference"] as? Double == 0)
            let interval = try #require(difference["interval"] as? [String: Any])
            #expect(interval["lower"] as? Double == 0 && interval["upper"] as? Double == 0)
        }
        let a = try #require(report["a"] as? [String: Any]), b = try #require(report["b"] as? [String: Any])
        #expect(a["impressions"] as? Int == b["impressions"] as? Int)
        let text = await workspace.run(["simulate", "--users", "6", "--days", "2", "--compare", "same.json"])
        #expect(text.output.contains("revenue_per_user_usd"), "\(text.output)")
    }

    @Test func eventsAreWrittenOneEnginePerUser() async throws {
        let workspace = try workspace()
        let result = await workspace.run(["simulate", "--users", "3", "--days", "1", "--events", "out/e.ndjson"])
        #expect(result.code != .success && result.error.contains("cannot write the events file"), "\(result.error)")
        try FileManager.default.createDirectory(at: workspace.directory.appendingPathComponent("out"), withIntermediateDirectories: true)
        let written = await workspace.run(["simulate", "--users", "3", "--days", "1", "--events", "out/e.ndjson", "--jobs", "2"])
        #expect(written.code == .success, "\(written.error)")
        let text = try String(contentsOf: workspace.directory.appendingPathComponent("out/e.ndjson"), encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.contains { $0.contains("\"event\":\"shown\"") })
        // Auction ids and ads differ per user: the ads of user 0 and user 1 are told apart by
        // their auction index (user << 32 | k).
        #expect(lines.contains { $0.contains("-0-neta_li") || $0.contains("-0-netb_li") })
        #expect(lines.contains { $0.contains("-4294967296-neta_li") || $0.contains("-4294967296-netb_li") })
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: workspace.directory.appendingPathComponent("out").path)
        #expect(leftovers == ["e.ndjson"])
    }
}

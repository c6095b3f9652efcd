import Adapters
import Foundation
import Mediation
@testable import MediationSimulation
import Testing

/// Users through days on the real engine with caps, pacing and the full-screen gap: the
/// simulator's independent counter finds no impression that breaks a rule, across cold starts,
/// relaunches and wall-clock changes back and forward, and no load is wasted.
@Suite("Users runs")
struct UsersRunTests {
    static let config = """
    {
      "app": { "caps": [ { "impressions": 6, "per_seconds": 3600 } ], "full_screen_gap_seconds": 30 },
      "networks": {
        "neta": { "adapter": "fallback", "endpoint": "sandbox", "caps": [ { "impressions": 15, "per_seconds": 86400 } ] },
        "netb": { "adapter": "fallback", "endpoint": "sandbox" }
      },
      "placements": {
        "level_end": {
          "format": "interstitial", "pacing_seconds": 120,
          "caps": [ { "impressions": 20, "per_seconds": 86400 }, { "impressions": 4, "per": "session" } ],
          "sources": [
            { "id": "neta_li", "network": "neta", "ad_unit_id": "a", "ecpm": 1.20 },
            { "id": "netb_li", "network": "netb", "ad_unit_id": "b", "ecpm": 0.80, "pacing_seconds": 300 }
          ]
        }
      }
    }
    """

    static let market = Market(networks: [
        SimulationFixture.fixed("neta", price: 1.0, latencyMilliseconds: 50),
        SimulationFixture.fixed("netb", price: 1.5, latencyMilliseconds: 80),
    ])

    func load(_ text: String) throws -> (MediationConfiguration, Data) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("users-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(text.utf8).write(to: url)
        return (try MediationConfiguration(contentsOf: url, registry: .standard), Data(text.utf8))
    }

    @Test func noRuleIsBrokenAcrossRelaunchesAndClockChanges() async throws {
        let (configuration, data) = try load(Self.config)
        var options = UsersOptions(users: 60, days: 7, seed: 3, jobs: 2)
        options.model.clockJumpProbability = 0.3
        let report = try await Simulation.runUsers(configuration: configuration, configurationData: data, market: Self.market, placementID: nil, options: options)
        #expect(report.relaunches > 0 && report.clockJumpsBack > 0 && report.clockJumpsForward > 0)
        #expect(report.impressions > 0)
        #expect((report.refusedShows["capped"] ?? 0) > 0, "\(report.refusedShows)")
        #expect(report.violations == 0, "\(report.violationExamples)")
        #expect(report.wastedLoads == 0)
    }

    @Test func aCapOfOnePerTenMinutesWastesNoLoad() async throws {
        let text = Self.config.replacingOccurrences(of: "\"pacing_seconds\": 120,", with: "\"caps\": [ { \"impressions\": 1, \"per_seconds\": 600 } ],")
            .replacingOccurrences(of: "\"caps\": [ { \"impressions\": 20, \"per_seconds\": 86400 }, { \"impressions\": 4, \"per\": \"session\" } ],", with: "")
        let (configuration, data) = try load(text)
        let report = try await Simulation.runUsers(configuration: configuration, configurationData: data, market: Self.market, placementID: "level_end", options: UsersOptions(users: 30, days: 3, seed: 9))
        #expect(report.impressions > 0)
        #expect(report.violations == 0, "\(report.violationExamples)")
        #expect(report.wastedLoads == 0)
    }
}

import Foundation
@testable import MediationCLI
import Testing

/// A newcomer's attack on `mediate simulate --days` with segments (docs/simulation.md, "The
/// market's truth"): the truth behind the limit and calibration follows which line items each
/// country's segment runs, but not a segment's own `ecpm` or `floor`, nor the placement's floor.
/// Before the fix a run on such a config printed its limit and calibration with no word that
/// they describe another waterfall than the engine ran.
@Suite("Newcomer attacks: simulate --days on segments that set prices")
struct NewcomerSegmentPricesAttackTests {
    /// `Config/mediation-global.json` with its tier-1 segment setting 1 USD on its three
    /// highest line items, the emerging one a floor of 0.5, the default unchanged.
    private static func config(in workspace: Workspace) throws {
        let shipped = try Data(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/mediation-global.json"))
        var root = try #require(try JSONSerialization.jsonObject(with: shipped) as? [String: Any])
        var placements = try #require(root["placements"] as? [String: Any])
        var placement = try #require(placements["level_end"] as? [String: Any])
        var segments = try #require(placement["segments"] as? [[String: Any]])
        let tier1 = try #require(segments[0]["sources"] as? [String])
        segments[0]["ecpm"] = Dictionary(uniqueKeysWithValues: tier1.prefix(3).map { ($0, 1.0) })
        segments[1]["floor"] = 0.5
        placement["segments"] = segments
        placements["level_end"] = placement
        root["placements"] = placements
        root.removeValue(forKey: "$schema")
        try JSONSerialization.data(withJSONObject: root).write(to: workspace.directory.appendingPathComponent("Config/mediation.json"))
        try Data(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/market-global.json")).write(to: workspace.directory.appendingPathComponent("Config/market.json"))
    }

    @Test("a segment's ecpm or floor: the run warns that the limit and calibration do not model it, and still runs")
    func segmentPricesAreNamed() async throws {
        let workspace = try Workspace()
        try Self.config(in: workspace)
        let result = await workspace.run(["simulate", "--placement", "level_end", "--days", "1", "--auctions", "200", "--learner", "bayes", "--json"])
        #expect(result.code == .success, "\(result.error)")
        let warnings = result.error.split(separator: "\n").filter { $0.contains("(limit_not_modelled)") }
        #expect(warnings.count == 2, "\(result.error)")
        #expect(warnings.first?.hasPrefix("mediate: warning: placements.level_end.segments[0]: segment \"tier1\" sets its own ecpm for 3 line items: the learning loop's limit and calibration do not model it") == true, "\(result.error)")
        #expect(warnings.last?.hasPrefix("mediate: warning: placements.level_end.segments[1]: segment \"emerging\" sets a floor (0.5 USD CPM):") == true, "\(result.error)")
        // The shipped segment config only chooses line items: nothing to warn about.
        let shipped = await Workspace.runInRepository(["simulate", "--config", "Config/mediation-global.json", "--market", "Config/market-global.json", "--placement", "level_end", "--days", "1", "--auctions", "100", "--learner", "bayes", "--json"])
        #expect(shipped.code == .success, "\(shipped.error)")
        #expect(!shipped.error.contains("limit_not_modelled"), "\(shipped.error)")
    }
}

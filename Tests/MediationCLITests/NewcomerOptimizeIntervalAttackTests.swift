import Foundation
import Testing
@testable import MediationCLI

/// A newcomer's attack on `mediate optimize --json`'s interval: a line item that earned (almost)
/// nothing on a day of impressions (4200 impressions, revenue 0, or 0.000001 USD) is learned at a
/// tiny price whose 90 % interval does not contain it: revenue 0 gives `learned_ecpm` 7.0e-13 with
/// `interval_90` [0, 0], and 0.000001 gives 2.38e-7 with [0, 1.33e-8] (the upper bound 18 times
/// below the estimate), beside an `ecpm_sd` of 1.4e-6.
@Suite("Newcomer attacks: optimize's interval around a price near 0")
struct NewcomerOptimizeIntervalAttackTests {
    @Test("interval_90 contains learned_ecpm for a day of 4200 impressions paying nothing or almost nothing", arguments: ["0", "0.000001", "1e-12"])
    func intervalHoldsTheEstimate(revenue: String) async throws {
        let workspace = try Workspace()
        try workspace.write("""
            {"networks": {"nitx": {"adapter": "fallback", "endpoint": "sandbox"}},
             "placements": {"home_banner": {"format": "banner", "sizing": "anchored", "sources": [
               {"id": "home_banner_nitx", "network": "nitx", "ad_unit_id": "SLOT-X", "ecpm": 1.4}]}}}
            """, to: "Config/mediation.json")
        try workspace.write("day,network,ad_unit_id,impressions,revenue,currency\n2026-03-04,nitx,SLOT-X,4200,\(revenue),USD\n", to: "r.csv")
        let result = await workspace.run(["optimize", "--reports", "r.csv", "--json"])
        #expect(result.code == .success, "\(result.code): \(result.error)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let item = try #require((document["line_items"] as? [[String: Any]])?.first)
        let learned = try #require(item["learned_ecpm"] as? Double)
        let interval = try #require(item["interval_90"] as? [Double])
        #expect(interval.count == 2 && interval[0] <= learned && learned <= interval[1], "learned_ecpm \(learned) lies outside interval_90 \(interval) (ecpm_sd \(item["ecpm_sd"] ?? "?"))")
    }
}

import Foundation
import Testing
@testable import MediationCLI

/// A newcomer's attack on `mediate optimize`'s number errors: a revenue of `-0` or `-0.00` (a
/// spreadsheet's rounding of a tiny negative adjustment) is refused with "revenue must be a finite
/// number >= 0, found "-0.00"", which is >= 0: the message contradicts itself. Either read it as 0
/// or say what is wrong with it (the sign).
@Suite("Newcomer attacks: optimize and a negative zero")
struct NewcomerOptimizeNegativeZeroAttackTests {
    @Test("revenue -0 / -0.00 is read as 0, or refused with a message that names the minus sign", arguments: ["-0", "-0.00"])
    func negativeZeroRevenue(value: String) async throws {
        let workspace = try Workspace()
        try workspace.write("""
            {"networks": {"nitx": {"adapter": "fallback", "endpoint": "sandbox"}},
             "placements": {"home_banner": {"format": "banner", "sizing": "anchored", "sources": [
               {"id": "home_banner_nitx", "network": "nitx", "ad_unit_id": "SLOT-X", "ecpm": 1.4}]}}}
            """, to: "Config/mediation.json")
        try workspace.write("day,network,ad_unit_id,impressions,revenue,currency\n2026-03-04,nitx,SLOT-X,4200,\(value),USD\n", to: "r.csv")
        let result = await workspace.run(["optimize", "--reports", "r.csv"])
        if result.code != .success {
            #expect(!result.error.contains(">= 0, found \"\(value)\""), "the message says \(value) is not >= 0: \(result.error)")
        }
    }
}

import Foundation
import Testing
@testable import MediationCLI

/// A newcomer's attack on `mediate optimize` with revenue inside the documented range
/// (docs/learning.md: "a decimal number, 0 or more, finite ... `1e-1`") but tiny.
@Suite("Newcomer attacks: optimize on a tiny but valid revenue")
struct NewcomerOptimizeTinyRevenueAttackTests {
    @Test("revenue 1e-300 on 1000 impressions a day: a finite learned price or a refusal at file:line:column, never nan and never exit 70")
    func tinyRevenueNeverLearnsNaN() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        var report = "day,network,ad_unit_id,impressions,revenue,currency\n"
        for day in 1...7 { report += "2026-03-0\(day),always,l,1000,1e-300,USD\n" }
        try workspace.write(report, to: "r.csv")
        // Today: the table prints "learned nan ... changed nan" with exit 0.
        let shown = await workspace.run(["optimize", "--reports", "r.csv"])
        #expect(shown.code == .success || shown.code == .dataError, "exit \(shown.code): \(shown.error)")
        #expect(!shown.output.contains("nan"), "\(shown.output)")
        // Today: exit 70, "the learned configuration does not load: placements.home_banner.sources[1].ecpm: expected a digit".
        let written = await workspace.run(["optimize", "--reports", "r.csv", "--write", "learned.json"])
        #expect(written.code == .success || written.code == .dataError, "exit \(written.code): \(written.error)")
        #expect(!written.error.contains("does not load"), "\(written.error)")
    }
}

import Foundation
import Testing
@testable import MediationCLI

/// A newcomer's attack on `mediate optimize`'s `country` column (docs/learning.md: "an
/// upper-case ISO 3166-1 alpha-2 code"; every mistake refuses the input with file:line:column).
@Suite("Newcomer attacks: optimize's country column takes codes no device reports")
struct NewcomerOptimizeCountryAttackTests {
    @Test("a country code that is not an assigned ISO 3166-1 alpha-2 code (UK for GB, EU, ZZ) is refused at its file:line:column", arguments: ["UK", "EU", "ZZ"])
    func unassignedCountryCodeRefused(code: String) async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        var report = "day,network,ad_unit_id,country,impressions,revenue,currency\n"
        for day in 1...7 {
            report += "2026-03-0\(day),always,l,US,5000,2.5,USD\n"
            report += "2026-03-0\(day),always,l,\(code),5000,25,USD\n"
        }
        try workspace.write(report, to: "r.csv")
        let result = await workspace.run(["optimize", "--reports", "r.csv", "--write", "learned.json"])
        // Today: exit 0, and learned.json prices "\(code)" in ecpm_by_country, a key no
        // device.country ever matches (the United Kingdom reports GB).
        #expect(result.code == .dataError, "exit \(result.code); \(result.error)")
        #expect(result.error.contains("r.csv:3:"), "\(result.error)")
        let written = (try? String(contentsOf: workspace.directory.appendingPathComponent("learned.json"), encoding: .utf8)) ?? ""
        #expect(!written.contains("\"\(code)\""), "the learned config prices \(code): \(written)")
    }
}

import Foundation
import Testing
@testable import MediationCLI

/// A newcomer's attack on `mediate optimize`'s `country` column. The report reader takes the
/// engine's own rule for a country (what `ecpm_by_country` and segments accept, docs/audiences.md):
/// two capital letters. The engine accepts user-assigned codes (`XK`, Kosovo, used by ad networks;
/// `ZZ`) too, so the reader must agree with it; a malformed code is refused at file:line:column.
@Suite("Newcomer attacks: optimize's country column follows the engine's rule for a country")
struct NewcomerOptimizeCountryAttackTests {
    private static func report(_ code: String) -> String {
        var report = "day,network,ad_unit_id,country,impressions,revenue,currency\n"
        for day in 1...7 {
            report += "2026-03-0\(day),always,l,US,5000,2.5,USD\n"
            report += "2026-03-0\(day),always,l,\(code),5000,25,USD\n"
        }
        return report
    }

    @Test("a code the engine accepts as a country (XK, ZZ) is learned and written into ecpm_by_country, and the written file loads", arguments: ["XK", "ZZ"])
    func engineCountryAccepted(code: String) async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        try workspace.write(Self.report(code), to: "r.csv")
        let result = await workspace.run(["optimize", "--reports", "r.csv", "--write", "learned.json"])
        #expect(result.code == .success, "exit \(result.code); \(result.error)")
        let written = (try? String(contentsOf: workspace.directory.appendingPathComponent("learned.json"), encoding: .utf8)) ?? ""
        #expect(written.contains("\"\(code)\""), "the learned config does not price \(code): \(written)")
    }

    @Test("a malformed country (usa, us, U1, U, É1) is refused at its file:line:column", arguments: ["usa", "us", "U1", "U", "É1"])
    func malformedCountryRefused(code: String) async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        try workspace.write(Self.report(code), to: "r.csv")
        let result = await workspace.run(["optimize", "--reports", "r.csv", "--write", "learned.json"])
        #expect(result.code == .dataError, "exit \(result.code); \(result.error)")
        #expect(result.error.contains("r.csv:3:21"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: workspace.directory.appendingPathComponent("learned.json").path))
    }
}

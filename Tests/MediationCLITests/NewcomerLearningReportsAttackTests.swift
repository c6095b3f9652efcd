import Foundation
import Testing
@testable import MediationCLI

/// A newcomer's attack on the learning loop's written reports on the global market
/// (docs/learning.md: "`--write-reports DIR` ... so `mediate optimize --reports DIR/bayes/*.csv`
/// repeats the loop by hand"; "Calibration": on a market with countries "each line item's
/// report has one row per country it won in").
@Suite("Newcomer attacks: the learning loop's written reports on the global market")
struct NewcomerLearningReportsAttackTests {
    @Test("simulate --days --write-reports on a market with countries writes the country column the loop learned from")
    func writtenReportsKeepCountries() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fresh4-reports-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = await Workspace.runInRepository([
            "simulate", "--config", "Config/mediation-global-flat.json", "--market", "Config/market-global.json",
            "--placement", "level_end", "--days", "1", "--auctions", "300", "--learner", "bayes",
            "--write-reports", directory.path,
        ])
        #expect(run.code == .success, "\(run.error)")
        let report = try String(contentsOf: directory.appendingPathComponent("bayes/2026-01-01.csv"), encoding: .utf8)
        let header = report.split(separator: "\n").first.map(String.init)
        // The loop's learners priced each line item per country from this day's wins; the file
        // it hands `mediate optimize` has no country at all, so the loop cannot be repeated by hand.
        #expect(header == "day,network,ad_unit_id,country,impressions,revenue,currency", "header: \(header ?? "none")\n\(report.prefix(400))")
    }
}

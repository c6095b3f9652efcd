import Foundation
@testable import MediationCLI
import Testing

/// A newcomer's attacks on `mediate simulate --days … --country CC` (docs/cli-simulate.md,
/// "Learned eCPMs in the loop"): the country's ratios must reach every output the run has, and a
/// country the run's draws never reached must be said so, not left as bare dashes or a missing key.
@Suite("Newcomer attacks: simulate --days --country")
struct NewcomerLearningCountryAttackTests {
    /// The shipped global config and market (35 countries; NZ has 0.27 % of the traffic).
    private static let global = ["simulate", "--config", "Config/mediation-global.json", "--market", "Config/market-global.json", "--placement", "level_end"]

    @Test("--country NZ on 2 days of 30 auctions (no NZ auction): the JSON keeps country_ratio_to_limit (null) and the text says NZ had no auctions")
    func countryWithoutAuctions() async throws {
        let arguments = Self.global + ["--days", "2", "--auctions", "30", "--country", "NZ"]
        let json = await Workspace.runInRepository(arguments + ["--json"])
        #expect(json.code == .success, "\(json.error)")
        let run = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(run["country"] as? String == "NZ")
        let summaries = try #require(run["summaries"] as? [[String: Any]])
        // Before the fix: the key is left out of every summary and every day (a nil Optional is skipped),
        // so a reader of --json cannot tell "no NZ auction" from "no --country".
        for summary in summaries {
            #expect(summary.keys.contains("country_ratio_to_limit"), "\(summary["learner"] ?? "?"): country_ratio_to_limit is missing from --json although --country NZ was given")
        }
        let text = await Workspace.runInRepository(arguments)
        #expect(text.code == .success, "\(text.error)")
        // Before the fix the NZ table is all '-' with no word of why.
        let section = try #require(text.output.range(of: "NZ:").map { text.output[$0.lowerBound...] }.flatMap { rest in rest.range(of: "paired differences").map { String(rest[..<$0.lowerBound]) } }, "no NZ section in:\n\(text.output.prefix(1500))")
        #expect(section.lowercased().contains("no auction") || section.lowercased().contains("0 auction") || section.lowercased().contains("no nz"), "the NZ table shows only '-' and does not say that no auction of the run was in NZ:\n\(section)")
    }

    @Test("--days 1: the text says '1 day', never '1 days'")
    func oneDayIsSingular() async throws {
        let text = await Workspace.runInRepository(Self.global + ["--days", "1", "--auctions", "20", "--learner", "static"])
        #expect(text.code == .success, "\(text.error)")
        #expect(text.output.contains("learning loop, 1 day of 20 auctions"), "\(text.output.prefix(400))")
        #expect(!text.output.contains("1 days"), "\(text.output.prefix(1500))")
    }

    @Test("--country IN --report: the HTML page shows IN's ratio to the limit, as the text and --json do")
    func countryInTheReport() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("newcomer-country-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("loop.html")
        let arguments = Self.global + ["--days", "2", "--auctions", "200", "--country", "IN", "--learner", "static,bayes"]
        let json = await Workspace.runInRepository(arguments + ["--json"])
        #expect(json.code == .success, "\(json.error)")
        let run = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let summaries = try #require(run["summaries"] as? [[String: Any]])
        let bayes = try #require(summaries.first { $0["learner"] as? String == "bayes" }?["country_ratio_to_limit"] as? Double)
        let html = await Workspace.runInRepository(arguments + ["--report", page.path])
        #expect(html.code == .success, "\(html.error)")
        let text = try String(contentsOf: page, encoding: .utf8)
        // Before the fix LearningHTML drew nothing of --country: neither "IN" nor the figure is on the page.
        #expect(text.contains("IN"), "the --report page never names the country IN")
        #expect(text.contains(String(format: "%.4f", bayes)), "the --report page lacks bayes's ratio to the limit in IN (\(String(format: "%.4f", bayes)))")
    }
}

/// A newcomer's attack: a run of auctions (not `--users`) never activates an experiment, since
/// its engine's clock starts at 1970-01-01; it must say so, not print figures as if the
/// experiment ran.
@Suite("Newcomer attacks: simulate with experiments")
struct NewcomerSimulateExperimentAttackTests {
    @Test("simulate on a config whose experiment changes the placement: a warning names the experiment and --users")
    func experimentsAreSaidToBeLeftOut() async throws {
        let run = await Workspace.runInRepository(["simulate", "--config", "Config/experiment-example.json", "--placement", "level_end", "--auctions", "50"])
        #expect(run.code == .success, "\(run.error)")
        #expect(run.error.contains("experiments[0] (\"level_end_waterfall\")") && run.error.contains("experiment_not_simulated") && run.error.contains("--users"), "\(run.error)")
        // A placement no variant changes: no warning.
        let other = await Workspace.runInRepository(["simulate", "--config", "Config/experiment-example.json", "--placement", "home_banner", "--auctions", "50"])
        #expect(other.code == .success, "\(other.error)")
        #expect(!other.error.contains("experiment_not_simulated"), "\(other.error)")
    }
}

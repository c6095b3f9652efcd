import Foundation
@testable import MediationCLI
import Testing

/// A newcomer's attack on `--learner`'s errors (docs/cli-simulate.md: "`--learner all`, the
/// default, runs the first four"): `all` in a list was refused as an *unknown* learner by a
/// message that lists `all` among the known ones. A list is now a union in the known order.
@Suite("Newcomer attacks: simulate --learner lists")
struct NewcomerLearnerListAttackTests {
    @Test("--learner all in a list is the union of its learners, in the known order, each once", arguments: [
        ("all,thompson", ["static", "auto-cpm", "smoothing", "bayes", "thompson"]),
        ("thompson,all", ["static", "auto-cpm", "smoothing", "bayes", "thompson"]),
        ("all,all", ["static", "auto-cpm", "smoothing", "bayes"]),
        ("bayes,all", ["static", "auto-cpm", "smoothing", "bayes"]),
    ])
    func allInAList(list: String, learners: [String]) throws {
        // Before: "--learner: unknown learner 'all'; known: static, auto-cpm, smoothing, bayes, thompson, or all".
        let parsed = try SimulateOptionsParser.parse(["--placement", "p", "--days", "2", "--learner", list])
        #expect(parsed.mode == .learn(.init(days: 2, learners: learners, drifts: [], reportsDirectory: nil)))
    }

    @Test("--learner all,thompson runs: the text names all five learners")
    func allWithThompsonRuns() async throws {
        let workspace = try Workspace()
        try workspace.write(SimulateCommandTests.pairConfig, to: "Config/mediation.json")
        try workspace.write(SimulateCommandTests.pairMarket, to: "Config/market.json")
        let result = await workspace.run(["simulate", "--placement", "level_end", "--days", "2", "--auctions", "10", "--learner", "all,thompson"])
        #expect(result.code == .success, "\(result.code): \(result.error)")
        #expect(!result.error.contains("unknown learner 'all'"), "\(result.error)")
        for learner in ["static", "auto-cpm", "smoothing", "bayes", "thompson"] { #expect(result.output.contains("limit - \(learner)"), "\(learner): \(result.output)") }
    }

    @Test("a learner named twice by name is still refused, as such")
    func namedTwice() {
        #expect(throws: UsageError.self) { try SimulateOptionsParser.parse(["--placement", "p", "--days", "2", "--learner", "all,bayes,bayes"]) }
    }
}

import Foundation
@testable import MediationCLI
import Testing

/// A newcomer's attack on `--learner`'s errors (docs/cli-simulate.md: "`--learner all`, the
/// default, runs the first four"): `all` in a list is refused as an *unknown* learner by a message
/// that lists `all` among the known ones.
@Suite("Newcomer attacks: simulate --learner lists")
struct NewcomerLearnerListAttackTests {
    @Test("--learner all,thompson is refused without calling 'all' unknown", arguments: ["all,thompson", "thompson,all", "all,all"])
    func allInAList(list: String) async throws {
        let workspace = try Workspace()
        try workspace.write(SimulateCommandTests.pairConfig, to: "Config/mediation.json")
        try workspace.write(SimulateCommandTests.pairMarket, to: "Config/market.json")
        let result = await workspace.run(["simulate", "--placement", "level_end", "--days", "2", "--auctions", "10", "--learner", list])
        #expect(result.code == .usage, "\(result.code): \(result.error)")
        // Today: "--learner: unknown learner 'all'; known: static, auto-cpm, smoothing, bayes, thompson, or all".
        #expect(!result.error.contains("unknown learner 'all'"), "\(result.error)")
    }
}

import Foundation
@testable import MediationCLI
import Testing

/// A newcomer's attack on `mediate simulate --days`'s text on a market at its smallest prices
/// (a price median of 1e-6 USD CPM is allowed by the market's checks): the paired differences
/// are printed with six fixed decimals, so `limit - smoothing` reads `0.000000 (95 %: 0.000000 to
/// 0.000000) *` (no sign, an interval "excluding 0" printed as 0 to 0) beside smoothing's ratio
/// to the limit of 0.8333; the revenue columns read 0.0000 for every learner.
@Suite("Newcomer attacks: simulate --days on a market of tiny prices")
struct NewcomerLearningTinyPriceAttackTests {
    /// ``SimulateCommandTests/pairMarket`` at a millionth of its prices (1e-6 and 2e-6 USD CPM).
    private static let tinyMarket = """
    {
      "networks": {
        "neta": { "fill_rate": 1, "price": { "median": 1e-6, "spread": 0 }, "latency": { "median_ms": 50, "spread": 0 } },
        "netb": { "fill_rate": 1, "price": { "median": 2e-6, "spread": 0 }, "latency": { "median_ms": 80, "spread": 0 } }
      }
    }
    """

    @Test("every limit - LEARNER line whose difference is not 0 shows it (a sign and a digit that is not 0), and no interval that excludes 0 prints as 0 to 0")
    func tinyDifferencesAreShown() async throws {
        let workspace = try Workspace()
        try workspace.write(SimulateCommandTests.pairConfig, to: "Config/mediation.json")
        try workspace.write(Self.tinyMarket, to: "Config/market.json")
        let arguments = ["simulate", "--placement", "level_end", "--days", "3", "--auctions", "100"]
        let json = await workspace.run(arguments + ["--json"])
        #expect(json.code == .success, "\(json.error)")
        let run = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let differences = try #require(run["differences"] as? [[String: Any]])
        let text = await workspace.run(arguments)
        #expect(text.code == .success, "\(text.error)")
        let lines = text.output.split(separator: "\n").map(String.init)
        var checked = 0
        for entry in differences where entry["b"] as? String == "limit" {
            let learner = try #require(entry["a"] as? String)
            let figure = try #require(entry["revenue_per_1000_requests"] as? [String: Any])
            guard let difference = figure["difference"] as? Double, difference != 0 else { continue }
            let line = try #require(lines.first { $0.hasPrefix("limit - \(learner) ") })
            checked += 1
            // Before the fix: 'limit - smoothing            0.000000   (95 %: 0.000000 to 0.000000)  *' for +3.3e-7.
            #expect(line.contains(difference > 0 ? "+" : "-"), "limit - \(learner) is \(difference) in --json, the text shows no sign: \(line)")
            #expect(!line.contains("0.000000 to 0.000000"), "an interval printed as 0 to 0: \(line)")
        }
        #expect(checked >= 3)
    }

    @Test("the --report page's paired differences show a difference that is not 0 as such (before the fix every row read 0.0000, 0.0000 to 0.0000, significant yes)")
    func tinyDifferencesInTheReport() async throws {
        let workspace = try Workspace()
        try workspace.write(SimulateCommandTests.pairConfig, to: "Config/mediation.json")
        try workspace.write(Self.tinyMarket, to: "Config/market.json")
        let result = await workspace.run(["simulate", "--placement", "level_end", "--days", "3", "--auctions", "100", "--report", "t.html"])
        #expect(result.code == .success, "\(result.error)")
        let page = try String(contentsOf: workspace.directory.appendingPathComponent("t.html"), encoding: .utf8)
        // limit - static is +1e-6 per 1000 requests on every auction (the limit shows netb at 2e-6, static neta at 1e-6).
        #expect(!page.contains("<td>limit - static</td><td>0.0000</td><td>0.0000 to 0.0000</td>"), "the report prints limit - static (+1e-6, significant) as 0.0000, 0.0000 to 0.0000")
    }
}

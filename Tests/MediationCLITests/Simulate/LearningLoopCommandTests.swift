import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import MediationCLI
import Testing

/// `mediate simulate --days` end to end: its options, its figures on fixed draws, the reports it
/// writes, and `mediate optimize` reading them back (the loop run by hand).
@Suite("mediate simulate --days")
struct LearningLoopCommandTests {
    private func workspace() throws -> Workspace {
        let workspace = try Workspace()
        // NetA is configured at 1.20 and pays 1.00; NetB at 0.80 pays 1.50: the limit shows NetB.
        try workspace.write(SimulateCommandTests.pairConfig, to: "Config/mediation.json")
        try workspace.write(SimulateCommandTests.pairMarket, to: "Config/market.json")
        return workspace
    }

    @Test("options: days, learners, drifts and reports parse; mistakes are usage errors")
    func options() throws {
        let parsed = try SimulateOptionsParser.parse(["--placement", "p", "--days", "3", "--learner", "bayes,static", "--drift", "nitx:0.5@2,elo:2@1", "--write-reports", "out"])
        #expect(parsed.mode == .learn(SimulateOptions.LearningMode(
            days: 3, learners: ["static", "bayes"],
            drifts: [.init(network: "nitx", factor: 0.5, fromDay: 2), .init(network: "elo", factor: 2, fromDay: 1)],
            reportsDirectory: "out"
        )))
        #expect(try SimulateOptionsParser.parse(["--placement", "p", "--days", "2"]).mode == .learn(.init(days: 2, learners: ["static", "auto-cpm", "smoothing", "bayes"], drifts: [], reportsDirectory: nil)))
        for arguments in [["--days", "0"], ["--days", "x"], ["--days", "2", "--learner", "max"], ["--days", "2", "--learner", "bayes,bayes"],
                          ["--days", "2", "--drift", "nitx:0@2"], ["--learner", "bayes"], ["--drift", "nitx:0.5@2"], ["--days", "2", "--sweep", "floor=1"]] {
            #expect(throws: UsageError.self, "\(arguments)") { try SimulateOptionsParser.parse(["--placement", "p"] + arguments) }
        }
    }

    @Test("the figures, the reports on disk, and optimize learning from them")
    func loopByHand() async throws {
        let workspace = try workspace()
        let result = await workspace.run(["simulate", "--placement", "level_end", "--days", "2", "--learner", "static,bayes", "--auctions", "600", "--write-reports", "reports", "--json"])
        #expect(result.code == .success, "\(result.error)")
        let run = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let daily = try #require(run["daily"] as? [[String: Any]])
        #expect(daily.map { $0["limit_revenue_per_1000_requests"] as? Double } == [1.5, 1.5])
        #expect(daily.map { $0["date"] as? String } == ["2026-01-01", "2026-01-02"])
        // Day 1, every learner: NetA wins at 1.00. bayes learns NetA at 1.04, still above NetB's
        // 0.80, so NetB, which pays 1.50, is never shown nor learned (a case for exploration).
        let day2 = try #require(daily[1]["learners"] as? [[String: Any]])
        #expect(day2.map { $0["learner"] as? String } == ["static", "bayes"])
        #expect(day2.map { $0["revenue_per_1000_requests"] as? Double } == [1.0, 1.0])
        // The reports: one file per learner and day, one row per fixed-price line item.
        let report = try String(contentsOf: workspace.directory.appendingPathComponent("reports/bayes/2026-01-01.csv"), encoding: .utf8)
        #expect(report == "day,network,ad_unit_id,impressions,revenue,currency\n2026-01-01,neta,a,600,0.600000,USD\n2026-01-01,netb,b,0,0.000000,USD\n")
        #expect(try String(contentsOf: workspace.directory.appendingPathComponent("reports/static/2026-01-02.csv"), encoding: .utf8).contains("2026-01-02,neta,a,600,0.600000,USD"))
        // mediate optimize on day 1's report learns NetA's price as the loop did.
        let optimize = await workspace.run(["optimize", "--reports", "reports/bayes/2026-01-01.csv", "--json"])
        #expect(optimize.code == .success, "\(optimize.error)")
        let day1 = try #require(daily[0]["learners"] as? [[String: Any]])
        let loopPrices = try #require(day1[1]["prices"] as? [[String: Any]])
        let learned = try #require(loopPrices.first { $0["line_item"] as? String == "neta_li" }?["learned"] as? Double)
        let optimized = try JSONSerialization.jsonObject(with: Data(optimize.output.utf8)) as? [String: Any]
        let estimates = try #require(optimized?["line_items"] as? [[String: Any]])
        let neta = try #require(estimates.first { $0["line_item"] as? String == "neta_li" })
        // 600 impressions paying 0.60 against the weak prior of 1.2 (an independent
        // implementation of the estimator gives 1.0001157): the loop's price, and optimize's
        // to the report's six decimals.
        #expect(abs(learned - 1.0001157005529924) < 1e-12)
        #expect(abs((neta["learned_ecpm"] as? Double ?? 0) - learned) < 1e-6)

        let text = await workspace.run(["simulate", "--placement", "level_end", "--days", "2", "--learner", "static,bayes", "--auctions", "600"])
        #expect(text.output.contains("bayes - static"))
        #expect(text.output.contains("limit - bayes"))
        #expect(text.output.contains("2    2026-01-02"))
        let html = await workspace.run(["simulate", "--placement", "level_end", "--days", "2", "--auctions", "200", "--report", "loop.html"])
        #expect(html.code == .success)
        let page = try String(contentsOf: workspace.directory.appendingPathComponent("loop.html"), encoding: .utf8)
        #expect(page.contains("Ratio to the true-means limit") && page.contains("<svg"))
        #expect((try? XMLDocument(data: Data(page.utf8))) != nil)
    }

    @Test("the loop's header names its drifts with plain decimal factors")
    func driftInTheHeader() async throws {
        let workspace = try workspace()
        let result = await workspace.run(["simulate", "--placement", "level_end", "--days", "2", "--learner", "static", "--auctions", "10", "--drift", "netb:0.00001@2,neta:1000@2"])
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output.contains(", drift netb:0.00001@2, neta:1000@2 (config "), "\(result.output)")
        let refused = await workspace.run(["simulate", "--placement", "level_end", "--days", "2", "--learner", "static", "--auctions", "10", "--drift", "netb:1000@2,netb:1000@2"])
        #expect(refused.code == .usage)
        #expect(refused.error.contains("the drifts take network \"netb\"'s prices to a mean of 1500000 USD CPM on day 2"), "\(refused.error)")
    }

    @Test("the loop's tables widen to a long line item id and big numbers and stay aligned")
    func columnsFollowTheirContent() async throws {
        let workspace = try Workspace()
        let longID = "neta_line_item_with_a_rather_long_name"
        try workspace.write(SimulateCommandTests.pairConfig.replacingOccurrences(of: "\"neta_li\"", with: "\"\(longID)\""), to: "Config/mediation.json")
        // NetA pays 300000 USD CPM, NetB 400000: six-figure cells in every table.
        try workspace.write(SimulateCommandTests.pairMarket.replacingOccurrences(of: "\"median\": 1.00", with: "\"median\": 300000").replacingOccurrences(of: "\"median\": 1.50", with: "\"median\": 400000"), to: "Config/market.json")
        let result = await workspace.run(["simulate", "--placement", "level_end", "--days", "2", "--learner", "static,bayes", "--auctions", "20"])
        #expect(result.code == .success, "\(result.error)")
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func table(after title: String) throws -> [String] {
            let start = try #require(lines.firstIndex { $0.hasPrefix(title) }) + 1
            return Array(lines[start...].prefix { !$0.isEmpty })
        }
        /// The offset just past `text` in `line`, from its start.
        func end(of text: String, in line: String) -> Int? {
            line.range(of: text).map { line.distance(from: line.startIndex, to: $0.upperBound) }
        }
        // Per day: the limit and each learner's figures end where their heads end.
        let daily = try table(after: "revenue per 1000 requests, USD")
        #expect(daily.count == 4)
        #expect(Set(daily.map(\.count)).count == 1, "\(daily)")
        let limitEnd = end(of: "limit", in: daily[0])
        for row in daily.dropFirst() {
            #expect(end(of: "400000.0000", in: row) == limitEnd, "\(row)")
            #expect(end(of: "300000.0000 (0.7500)", in: row) == end(of: "static", in: daily[0]), "\(row)")
        }
        // Per learner: each line item's eCPM / true mean ends under its id.
        let prices = try table(after: "static: eCPM each fixed-price line item ran at")
        #expect(prices.count == 4)
        #expect(Set(prices.map(\.count)).count == 1, "\(prices)")
        for row in prices.dropFirst(1).dropLast() {
            #expect(end(of: " / 300000.000", in: row) == end(of: longID, in: prices[0]), "\(row)")
            #expect(row.contains("0.800 / 400000.000"), "\(row)")
        }
        // Cells never touch: every cell keeps a space from the next.
        #expect(!result.output.contains("0000300000") && !result.output.contains("0000400000"), "\(result.output)")
    }

    @Test("a reports folder that cannot be made says why (exit 73)")
    func unwritableReports() async throws {
        let workspace = try workspace()
        try workspace.write("a file", to: "taken")
        let result = await workspace.run(["simulate", "--placement", "level_end", "--days", "1", "--learner", "bayes", "--auctions", "10", "--write-reports", "taken/x"])
        #expect(result.code == .cannotCreate)
        #expect(result.error.contains("is not a directory"))
    }
}

/// Red-team findings on the loop's command line, kept as tests.
@Suite("mediate simulate --days: attacks")
struct LearningLoopAttackTests {
    /// Runs one `bayes` day of `level_end` whose line items `a1` and `a2` share network `neta`'s
    /// ad unit `same` (`a2` with the JSON fields `a2`, `extra` added to the config's
    /// top level) with `--write-reports r`, and returns the workspace and the day's report.
    private static func sharedAdUnitDay(a2: String, extra: String = "") async throws -> (Workspace, String) {
        let workspace = try Workspace()
        try workspace.write("""
        {
          "networks": { "neta": { "adapter": "fallback", "endpoint": "sandbox" }, "netb": { "adapter": "fallback", "endpoint": "sandbox" } },\(extra)
          "placements": { "level_end": { "format": "interstitial", "sources": [
            { "id": "a1", "network": "neta", "ad_unit_id": "same", "ecpm": 1.20 },
            { "id": "a2", "network": "neta", "ad_unit_id": "same", \(a2) },
            { "id": "b", "network": "netb", "ad_unit_id": "b", "ecpm": 0.80 } ] } }
        }
        """, to: "Config/mediation.json")
        try workspace.write("""
        { "networks": {
          "neta": { "fill_rate": 0.5, "price": { "median": 1.00, "spread": 0 }, "latency": { "median_ms": 50, "spread": 0 } },
          "netb": { "fill_rate": 1, "price": { "median": 1.50, "spread": 0 }, "latency": { "median_ms": 80, "spread": 0 } } } }
        """, to: "Config/market.json")
        let run = await workspace.run(["simulate", "--placement", "level_end", "--days", "1", "--learner", "bayes", "--auctions", "400", "--write-reports", "r"])
        #expect(run.code == .success, "\(run.error)")
        let report = try String(contentsOf: workspace.directory.appendingPathComponent("r/bayes/2026-01-01.csv"), encoding: .utf8)
        return (workspace, report)
    }

    @Test("two line items sharing a network's ad unit make one summed row, which optimize reads back")
    func sharedAdUnit() async throws {
        let (workspace, report) = try await Self.sharedAdUnitDay(a2: #""ecpm": 1.10"#)
        let rows = report.split(separator: "\n").dropFirst()
        #expect(rows.filter { $0.contains(",neta,same,") }.count == 1, "\(report)")
        let optimize = await workspace.run(["optimize", "--reports", "r/bayes/2026-01-01.csv"])
        #expect(optimize.code == .success, "\(optimize.error)")
    }

    @Test("two line items on one ad unit in two currencies make one row, in the first one's currency, which optimize reads back")
    func sharedAdUnitInTwoCurrencies() async throws {
        let (workspace, report) = try await Self.sharedAdUnitDay(a2: #""ecpm": 0.90, "currency": "EUR""#, extra: #" "currency_rates": { "EUR": 1.25 },"#)
        let rows = report.split(separator: "\n").dropFirst().filter { $0.contains(",neta,same,") }
        #expect(rows.count == 1, "\(report)")
        #expect(rows.first?.hasSuffix(",USD") == true, "\(report)")
        let optimize = await workspace.run(["optimize", "--reports", "r/bayes/2026-01-01.csv"])
        #expect(optimize.code == .success, "\(optimize.error)")
    }

    @Test("an exploring placement's one-shot is the same for the same seed (auction ids come from the seed)")
    func exploringOneShotRepeats() async throws {
        let workspace = try Workspace()
        try workspace.write(SimulateCommandTests.pairConfig.replacingOccurrences(of: "\"format\": \"interstitial\",", with: "\"format\": \"interstitial\", \"exploration\": \"thompson\","), to: "Config/mediation.json")
        func values() async throws -> [Double?] {
            let result = await workspace.run(["--placement", "level_end", "--json", "--seed", "4"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let trace = try #require(object["trace"] as? [String: Any])
            let sources = try #require(trace["sources"] as? [[String: Any]])
            return sources.map { $0["ecpm"] as? Double }
        }
        let first = try await values()
        #expect(first.allSatisfy { $0 != nil })
        #expect(first != [1.2, 0.8], "the placement explores: its values are draws")
        #expect(try await values() == first)
    }
}

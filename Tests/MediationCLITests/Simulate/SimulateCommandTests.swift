import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import MediationCLI
import MediationLearning
import Testing

/// `mediate simulate` end to end through the command's library entry point, on markets of fixed
/// draws (exact figures) and on the shipped config and market.
@Suite("mediate simulate")
struct SimulateCommandTests {
    /// NetA is configured at 1.20 but realises 1.00 after 50 ms; NetB is configured at 0.80 but
    /// realises 1.50 after 80 ms. The engine takes NetA (the higher configured value) at 50 ms;
    /// a clairvoyant picker takes NetB: oracle ratio 2/3.
    static let pairConfig = """
    {
      "networks": {
        "neta": { "adapter": "fallback", "endpoint": "sandbox" },
        "netb": { "adapter": "fallback", "endpoint": "sandbox" }
      },
      "placements": {
        "level_end": {
          "format": "interstitial",
          "sources": [
            { "id": "neta_li", "network": "neta", "ad_unit_id": "a", "ecpm": 1.20 },
            { "id": "netb_li", "network": "netb", "ad_unit_id": "b", "ecpm": 0.80 }
          ]
        }
      }
    }
    """

    static let pairMarket = """
    {
      "networks": {
        "neta": { "fill_rate": 1, "price": { "median": 1.00, "spread": 0 }, "latency": { "median_ms": 50, "spread": 0 } },
        "netb": { "fill_rate": 1, "price": { "median": 1.50, "spread": 0 }, "latency": { "median_ms": 80, "spread": 0 } }
      }
    }
    """

    private func pairWorkspace() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.write(Self.pairConfig, to: "Config/mediation.json")
        try workspace.write(Self.pairMarket, to: "Config/market.json")
        return workspace
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func fixedDrawsGiveExactFiguresThroughTheCommandLine() async throws {
        let workspace = try pairWorkspace()
        let result = await workspace.run(["simulate", "--placement", "level_end", "--auctions", "400", "--json"])
        #expect(result.code == .success, "\(result.error)")
        let report = try json(result.output)
        #expect(report["requests"] as? Int == 400)
        #expect(report["filled"] as? Int == 400)
        #expect(report["fill_rate"] as? Double == 1)
        #expect(report["revenue_usd"] as? Double == 0.4) // 400 × 1.00 / 1000
        #expect(report["revenue_per_1000_requests"] as? Double == 1.0)
        #expect(report["known_revenue_per_1000_requests"] as? Double == 1.2)
        let oracle = try #require(report["oracle"] as? [String: Any])
        #expect(oracle["revenue_usd"] as? Double == 0.6) // 400 × 1.50 / 1000
        let ratio = try #require(oracle["ratio"] as? Double)
        #expect(abs(ratio - 2.0 / 3.0) < 1e-12)
        let timeToAd = try #require(report["time_to_ad_ms"] as? [String: Any])
        #expect(timeToAd["p50"] as? Int == 50 && timeToAd["p99"] as? Int == 50)
        let networks = try #require(report["networks"] as? [[String: Any]])
        #expect(networks.map { $0["network"] as? String } == ["neta", "netb"])
        #expect(networks[0]["wins"] as? Int == 400 && networks[0]["win_share"] as? Double == 1)

        let text = await workspace.run(["simulate", "--placement", "level_end", "--auctions", "400"])
        #expect(text.code == .success)
        #expect(text.output.contains("revenue / 1000 requests     $1.0000  (95 %: 1.0000 to 1.0000)"))
        #expect(text.output.contains("oracle ratio, deadline      0.6667  (95 %: 0.6667 to 0.6667)"))
        #expect(text.output.contains("time to ad p50 / p95 / p99  50 / 50 / 50 ms"))
    }

    @Test func compareOfIdenticalConfigsIsExactlyZeroWithZeroWidthIntervals() async throws {
        let workspace = try Workspace()
        for file in ["mediation.json", "market.json"] {
            try workspace.write(String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/\(file)"), encoding: .utf8), to: "Config/\(file)")
        }
        try workspace.write(String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/mediation.json"), encoding: .utf8), to: "copy.json")
        let result = await workspace.run(["simulate", "--placement", "home_banner", "--auctions", "400", "--compare", "copy.json", "--json"])
        #expect(result.code == .success, "\(result.error)")
        let comparison = try json(result.output)
        let differences = try #require(comparison["differences"] as? [[String: Any]])
        #expect(differences.count == 7)
        for difference in differences {
            #expect(difference["difference"] as? Double == 0, "\(difference)")
            let interval = try #require(difference["interval"] as? [String: Any], "\(difference)")
            #expect(interval["lower"] as? Double == 0 && interval["upper"] as? Double == 0, "\(difference)")
        }
        let text = await workspace.run(["simulate", "--placement", "home_banner", "--auctions", "400", "--compare", "copy.json"])
        #expect(text.output.contains("revenue / 1000 requests"))
        #expect(text.output.contains("+0.0000") == false)
    }

    @Test func sameSeedSameBytesAndJobsChangeNothing() async throws {
        let workspace = try Workspace()
        for file in ["mediation.json", "market.json"] {
            try workspace.write(String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/\(file)"), encoding: .utf8), to: "Config/\(file)")
        }
        let arguments = ["simulate", "--placement", "home_banner", "--auctions", "800", "--seed", "7"]
        let first = await workspace.run(arguments)
        let second = await workspace.run(arguments)
        let twoJobs = await workspace.run(arguments + ["--jobs", "2"])
        #expect(first.code == .success, "\(first.error)")
        #expect(first.output == second.output)
        #expect(first.output == twoJobs.output)
        #expect(!first.output.isEmpty)
        let otherSeed = await workspace.run(["simulate", "--placement", "home_banner", "--auctions", "800", "--seed", "8"])
        #expect(otherSeed.output != first.output)
        // Standard error is not a terminal here: no progress bar.
        #expect(!first.error.contains("["))

        let sweep = ["simulate", "--placement", "home_banner", "--auctions", "300", "--sweep", "floor=0.5:1.5:0.5", "--json"]
        let sweepOne = await workspace.run(sweep)
        let sweepTwo = await workspace.run(sweep + ["--jobs", "2"])
        #expect(sweepOne.code == .success && sweepOne.output == sweepTwo.output)
    }

    @Test func timedRunsAndCompareHealthThroughTheCommandLine() async throws {
        let workspace = try pairWorkspace()
        // neta hangs from 10 s to 40 s; the placement does not refresh, so --duration runs
        // auctions at the default rate (10 per second).
        try workspace.write(Self.pairMarket.replacingOccurrences(of: "\"latency\": { \"median_ms\": 50, \"spread\": 0 } },", with: "\"latency\": { \"median_ms\": 50, \"spread\": 0 }, \"outages\": [{ \"start\": \"10s\", \"end\": 40, \"kind\": \"hang\" }] },"), to: "outage.json")
        let arguments = ["simulate", "--placement", "level_end", "--market", "outage.json", "--duration", "1m", "--window", "10s"]
        let one = await workspace.run(arguments)
        #expect(one.code == .success, "\(one.error)")
        #expect(one.output.contains("level_end: 600 auctions at 10 per second over 60 s of virtual time, seed 1"), "\(one.output)")
        #expect(one.output.contains("per 10 s window (network: wins/asked):"), "\(one.output)")
        #expect(one.output.contains("neta paused (failures, 7 failures of 10)"), "\(one.output)")
        let two = await workspace.run(arguments + ["--jobs", "2"])
        #expect(two.output == one.output)
        let report = try json(await workspace.run(arguments + ["--json"]).output)
        #expect(report["rate"] as? Double == 10 && (report["windows"] as? [Any])?.count == 6)
        #expect(((report["health"] as? [String: Any])?["pauses"] as? Int ?? 0) >= 1)
        // The same draws without health and with it.
        let compare = await workspace.run(arguments + ["--compare-health"])
        #expect(compare.code == .success, "\(compare.error)")
        #expect(compare.output.contains("A = Config/mediation.json with network health off, B = Config/mediation.json with its health settings"), "\(compare.output)")
        #expect(compare.output.contains("per 10 s window, A / B"), "\(compare.output)")
        // A market with outages needs a timed run.
        let untimed = await workspace.run(["simulate", "--placement", "level_end", "--market", "outage.json", "--auctions", "10"])
        #expect(untimed.code == .usage && untimed.error.contains("networks.neta.outages"), "\(untimed.error)")
    }

    @Test func durationTimesRateUnderOneAuctionIsAUsageError() async throws {
        let workspace = try pairWorkspace()
        let cases: [([String], String)] = [
            (["--duration", "1", "--rate", "0.5"], "(1 s × 0.5 per second = 0.5)"),
            (["--duration", "0.09", "--rate", "10", "--sweep", "floor=1"], "(0.09 s × 10 per second = 0.9)"),
            (["--duration", "50ms", "--compare-health"], "(0.05 s × 10 per second = 0.5)"),
            // level_end does not refresh: --duration alone runs at the default rate, 10 per second.
            (["--duration", "50ms"], "(0.05 s × 10 per second = 0.5)"),
        ]
        for (flags, product) in cases {
            let result = await workspace.run(["simulate", "--placement", "level_end"] + flags)
            #expect(result.code == .usage, "\(flags): \(result.error)")
            #expect(result.error.contains("--duration × --rate gives fewer than 1 auction \(product): give a longer --duration or a higher --rate"), "\(flags): \(result.error)")
            #expect(result.output.isEmpty, "\(flags)")
        }
        // Exactly one auction is a run.
        let one = await workspace.run(["simulate", "--placement", "level_end", "--duration", "100ms"])
        #expect(one.code == .success, "\(one.error)")
        #expect(one.output.contains("level_end: 1 auction at 10 per second"), "\(one.output)")
    }

    @Test("a timed run of more auctions than --auctions takes (a year at 10,000 per second: 3 × 10^11) is a usage error naming --duration × --rate and their true product, not 'auctions must be at most 1,000,000,000, found 2000000000'")
    func durationTimesRateOverTheAuctionBoundIsAUsageError() async throws {
        let workspace = try pairWorkspace()
        let cases: [([String], String)] = [
            (["--duration", "366d", "--rate", "10000"], "(31622400 s × 10000 per second = 316224000000)"),
            (["--duration", "2d", "--rate", "10000", "--compare-health"], "(172800 s × 10000 per second = 1728000000)"),
            (["--duration", "366d", "--rate", "40", "--sweep", "floor=1"], "(31622400 s × 40 per second = 1264896000)"),
        ]
        for (flags, product) in cases {
            let result = await workspace.run(["simulate", "--placement", "level_end"] + flags)
            #expect(result.code == .usage, "\(flags): \(result.error)")
            #expect(result.error.contains("--duration × --rate gives more than 1000000000 auctions, the most a run takes \(product): give a shorter --duration or a lower --rate"), "\(flags): \(result.error)")
            #expect(result.output.isEmpty, "\(flags)")
        }
    }

    @Test func sweepPrintsTheCurveAndTheBestValue() async throws {
        let workspace = try pairWorkspace()
        // An eCPM sweep of NetB: above 1.20 it wins (realised 1.50), at or below it NetA wins.
        let result = await workspace.run(["simulate", "--placement", "level_end", "--auctions", "200", "--sweep", "netb_li.ecpm=1.0:1.4:0.2"])
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output.contains("sweep of ecpm[netb_li] over 3 values"))
        #expect(result.output.contains("best: ecpm[netb_li]=1.4, revenue / 1000 requests 1.5000"))
        #expect(result.output.contains("vs as configured: +0.5000 (95 %: +0.5000 to +0.5000)"))
    }

    @Test("--replay of a device, a directory or a missing file: exit 66 saying which, not a permission error")
    func replayOfANonRegularFile() async throws {
        let workspace = try Workspace()
        for file in ["mediation.json", "market.json"] {
            try workspace.write(String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/\(file)"), encoding: .utf8), to: "Config/\(file)")
        }
        try FileManager.default.createDirectory(at: workspace.directory.appendingPathComponent("adir"), withIntermediateDirectories: true)
        for (path, reason) in [("/dev/zero", "cannot read /dev/zero: not a regular file"), ("/dev/null", "cannot read /dev/null: not a regular file"), ("adir", "it is a directory"), ("missing.ndjson", "no such file: ")] {
            let result = await workspace.run(["simulate", "--placement", "home_banner", "--replay", path])
            #expect(result.code == .noInput, "\(path): \(result.code) \(result.error)")
            #expect(result.error.hasPrefix("mediate: recording \(path): ") && result.error.contains(reason), "\(path): \(result.error)")
            #expect(!result.error.contains("permission"), "\(path): \(result.error)")
        }
    }

    @Test func replayOfAWatchRunUnderTheSameConfigReproducesItsRevenue() async throws {
        let workspace = try Workspace()
        for file in ["mediation.json", "market.json"] {
            try workspace.write(String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/\(file)"), encoding: .utf8), to: "Config/\(file)")
        }
        let watch = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "900", "--events", "run.ndjson"])
        #expect(watch.code == .success, "\(watch.error)")
        let summary = try #require(watch.output.split(separator: "\n").last.map(String.init))
        let revenue = try #require(summary.split(separator: "$").last?.split(separator: " ").first.map(String.init), "\(summary)")
        let log = try String(contentsOf: workspace.directory.appendingPathComponent("run.ndjson"), encoding: .utf8)
        for line in log.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["event"] is String && object?["at_ms"] is Double, "\(line)")
        }
        #expect(!log.contains("\"content\""))

        let replay = await workspace.run(["simulate", "--placement", "home_banner", "--replay", "run.ndjson", "--json"])
        #expect(replay.code == .success, "\(replay.error)")
        let report = try json(replay.output)
        #expect(report["recorded_auctions"] as? Int == 15)
        let recorded = try #require(report["recorded_revenue_usd"] as? Double)
        let inner = try #require(report["report"] as? [String: Any])
        let replayed = try #require(inner["known_revenue_usd"] as? Double)
        #expect(abs(recorded - replayed) < 1e-12)
        #expect(SimulationText.fixed(replayed, 6) == revenue)
        #expect((report["drawn_answers"] as? Int ?? -1) >= 0 && (report["recorded_answers"] as? Int ?? 0) > 0)

        let text = await workspace.run(["simulate", "--placement", "home_banner", "--replay", "run.ndjson"])
        #expect(text.output.contains("revenue \(revenue) USD at the engine's values (0.000000)"), "\(text.output)")
    }

    @Test func recordingsWithNewStatusesAndFieldsStillRead() async throws {
        let workspace = try pairWorkspace()
        let lines = [
            #"{"event":"auction_started","at_ms":0,"placement":"level_end","reason":"load"}"#,
            #"{"event":"auction_finished","at_ms":50,"placement":"level_end","trace":{"placement":"level_end","winner":"neta_li","winning_ecpm":1.2,"new_field":[1,2],"sources":[{"line_item":"neta_li","network":"neta","start_ms":0,"latency_ms":50,"outcome":{"status":"won"},"ecpm":1.2},{"line_item":"netb_li","network":"netb","start_ms":0,"outcome":{"status":"cancelled","value":0.8},"extra":true}]}}"#,
            #"{"event":"auction_finished","at_ms":90,"placement":"level_end","trace":{"placement":"level_end","sources":[{"line_item":"neta_li","network":"neta","outcome":{"status":"not_asked"}},{"line_item":"netb_li","network":"netb","start_ms":0,"latency_ms":40,"outcome":{"status":"late"}}]}}"#,
            "",
        ]
        try workspace.write(lines.joined(separator: "\n"), to: "log.ndjson")
        let result = await workspace.run(["simulate", "--placement", "level_end", "--replay", "log.ndjson"])
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output.contains("replay of 2 recorded auctions"))
        // Auction 0: NetA as recorded, NetB cancelled (drawn); auction 1: both drawn.
        #expect(result.output.contains("answers: 1 as recorded, 3 drawn from the market"), "\(result.output)")

        try workspace.write("{\"event\":\"auction_finished\",\"trace\":{}}\n", to: "bad.ndjson")
        let bad = await workspace.run(["simulate", "--placement", "level_end", "--replay", "bad.ndjson"])
        #expect(bad.code == .dataError)
        #expect(bad.error.contains("invalid recording bad.ndjson: line 1:"), "\(bad.error)")
        let missing = await workspace.run(["simulate", "--placement", "level_end", "--replay", "none.ndjson"])
        #expect(missing.code == .noInput)
    }

    @Test("--replay and optimize --events refuse an events log over the one limit (256 MiB) unread, exit 65 saying the limit")
    func eventLogsShareOneSizeLimit() async throws {
        let workspace = try pairWorkspace()
        try workspace.write("day,network,ad_unit_id,impressions,revenue,currency\n", to: "r.csv")
        // A sparse file: its size is over the limit, its blocks are not on disk.
        let url = workspace.directory.appendingPathComponent("huge.ndjson")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(EventLog.maximumSize) + 1)
        try handle.close()
        let replay = await workspace.run(["simulate", "--placement", "level_end", "--replay", "huge.ndjson"])
        #expect(replay.code == .dataError, "\(replay.error)")
        #expect(replay.error.contains("larger than 268435456 bytes (256 MiB)"), "\(replay.error)")
        let optimize = await workspace.run(["optimize", "--reports", "r.csv", "--events", "huge.ndjson"])
        #expect(optimize.code == .dataError, "\(optimize.error)")
        #expect(optimize.error.contains("larger than 268435456 bytes (256 MiB)"), "\(optimize.error)")
    }

    @Test("--replay refuses a recording whose auctions appear twice (the same auction id) at the repeat's line and field, exit 65")
    func replayRefusesRepeatedAuctions() async throws {
        let workspace = try pairWorkspace()
        let watch = await workspace.run(["--placement", "level_end", "--watch", "--fast", "--duration", "300", "--events", "run.ndjson"])
        #expect(watch.code == .success, "\(watch.error)")
        let log = try String(contentsOf: workspace.directory.appendingPathComponent("run.ndjson"), encoding: .utf8)
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        let first = try #require(lines.firstIndex { $0.contains(#""event":"auction_finished""#) })
        let record = try #require(try JSONSerialization.jsonObject(with: Data(lines[first].utf8)) as? [String: Any])
        let trace = try #require(record["trace"] as? [String: Any])
        let id = try #require(trace["auction_id"] as? String)
        let once = await workspace.run(["simulate", "--placement", "level_end", "--replay", "run.ndjson"])
        #expect(once.code == .success, "\(once.error)")

        try workspace.write(log + log, to: "twice.ndjson")
        let twice = await workspace.run(["simulate", "--placement", "level_end", "--replay", "twice.ndjson"])
        #expect(twice.code == .dataError, "\(twice.output)")
        #expect(twice.error.contains("mediate: invalid recording twice.ndjson: line \(lines.count + first + 1): trace.auction_id: the auction \"\(id)\" is already recorded at line \(first + 1); an events log holds each auction once (is one log given twice?)"), "\(twice.error)")
    }

    @Test("--replay refuses a tampered line with its file, line and field (a bad latency, an unknown outcome, an eCPM past the largest price) and names a recorded line item the configuration lacks")
    func replayRefusesTamperedLines() async throws {
        let workspace = try pairWorkspace()
        func auction(_ source: String) -> String {
            #"{"event":"auction_finished","at_ms":50,"placement":"level_end","trace":{"placement":"level_end","winner":"neta_li","winning_ecpm":1.2,"sources":[{"line_item":"netb_li","network":"netb","start_ms":0,"latency_ms":80,"outcome":{"status":"lost"},"ecpm":0.8},"# + source + "]}}"
        }
        let good = #"{"line_item":"neta_li","network":"neta","start_ms":0,"latency_ms":50,"outcome":{"status":"won"},"ecpm":1.2}"#
        let tampered: [(String, String)] = [
            (good.replacingOccurrences(of: #""latency_ms":50"#, with: #""latency_ms":-5"#), "line 2: trace.sources[1].latency_ms: must be a number of milliseconds from 0 to 3600000, found -5"),
            (good.replacingOccurrences(of: #""latency_ms":50"#, with: #""latency_ms":"fast""#), "line 2: trace.sources[1].latency_ms: must be a number of milliseconds from 0 to 3600000"),
            (good.replacingOccurrences(of: #""latency_ms":50"#, with: #""latency_ms":1e12"#), "line 2: trace.sources[1].latency_ms: must be a number of milliseconds from 0 to 3600000, found 1"),
            (good.replacingOccurrences(of: #""won""#, with: #""wonn""#), #"line 2: trace.sources[1].outcome.status: unknown outcome status "wonn"; a recording has won, lost"#),
            (#"{"line_item":"neta_li","network":"neta","latency_ms":50,"outcome":"bogus"}"#, #"line 2: trace.sources[1].outcome: unknown outcome status "bogus""#),
            (good.replacingOccurrences(of: #""ecpm":1.2"#, with: #""ecpm":1e308"#), "line 2: trace.sources[1].ecpm: must be a USD CPM above 0 and at most 1000000, found 1e+308"),
        ]
        for (source, expected) in tampered {
            try workspace.write([auction(good), auction(source), ""].joined(separator: "\n"), to: "bad.ndjson")
            let result = await workspace.run(["simulate", "--placement", "level_end", "--replay", "bad.ndjson"])
            #expect(result.code == .dataError, "\(source): \(result.output)")
            #expect(result.error.contains("mediate: invalid recording bad.ndjson: \(expected)"), "\(source): \(result.error)")
        }

        // A line item the configuration lacks is named with its line, and the answers drawn
        // for the configured one it stands for are counted as what they are.
        try workspace.write([auction(good), auction(good.replacingOccurrences(of: "neta_li", with: "neta_lx")), ""].joined(separator: "\n"), to: "renamed.ndjson")
        let result = await workspace.run(["simulate", "--placement", "level_end", "--replay", "renamed.ndjson"])
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output.contains(#"warning: line 2: trace.sources[1].line_item "neta_lx" (network neta) is not a line item of level_end in the configuration: its 1 recorded line is not replayed"#), "\(result.output)")
        #expect(result.output.contains("1 of line items the recorded auction has no line of"), "\(result.output)")
        #expect(!result.output.contains("not in the recording"), "\(result.output)")
        let report = try json(await workspace.run(["simulate", "--placement", "level_end", "--replay", "renamed.ndjson", "--json"]).output)
        #expect(report["drawn_without_line"] as? Int == 1)
        #expect((report["unknown_line_items"] as? [[String: Any]])?.first?["first_line"] as? Int == 2)
    }

    @Test("the simulation page escapes a placement id's bidirectional override and line separator, as the one-shot report does")
    func reportEscapesBidirectionalControls() async throws {
        let workspace = try Workspace()
        let config = try String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/mediation.json"), encoding: .utf8)
        try workspace.write(config.replacingOccurrences(of: #""home_banner": {"#, with: #""hb\u202Eevil\u2028x": {"#), to: "Config/mediation.json")
        try workspace.write(String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/market.json"), encoding: .utf8), to: "Config/market.json")
        let result = await workspace.run(["simulate", "--placement", "hb\u{202E}evil\u{2028}x", "--auctions", "50", "--report", "sim.html"])
        #expect(result.code == .success, "\(result.error)")
        let html = try String(contentsOf: workspace.directory.appendingPathComponent("sim.html"), encoding: .utf8)
        #expect(!html.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x2028 })
        #expect(html.contains(#"hb\u{202E}evil\u{2028}x"#))
    }

    @Test func reportIsOneWellFormedPageWithItsCharts() async throws {
        let workspace = try Workspace()
        for file in ["mediation.json", "market.json"] {
            try workspace.write(String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/\(file)"), encoding: .utf8), to: "Config/\(file)")
        }
        let result = await workspace.run(["simulate", "--placement", "home_banner", "--auctions", "400", "--sweep", "floor=0.5:2.0:0.5", "--report", "sim.html"])
        #expect(result.code == .success, "\(result.error)")
        let html = try Data(contentsOf: workspace.directory.appendingPathComponent("sim.html"))
        let counter = ElementCounter()
        let parser = XMLParser(data: html)
        parser.delegate = counter
        #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
        // The revenue curve, the latency CDFs, the win share bars.
        #expect(counter.counts["svg"] == 3)
        // Curve: the revenue line and the baseline; CDF: six networks as configured, five at the
        // best floor (0.5: the 0.35 backfill is under it, never asked, so it never answers).
        #expect(counter.counts["path"] == 2 + 6 + 5)
        #expect(counter.counts["polygon"] == 1)
        // Win shares: six networks, two runs each.
        #expect(counter.counts["rect", default: 0] >= 12)
        // Sweep table: the configuration as given and 4 values; one best row.
        #expect(counter.bestRows == 1)
        // The sweep, best vs as configured, the networks at the best value.
        #expect(counter.counts["table"] == 3)
        let text = String(decoding: html, as: UTF8.self)
        for forbidden in ["<script", "http://", "https://", "<link", "<img", "@import", "url("] {
            #expect(!text.contains(forbidden), "\(forbidden)")
        }
    }

    @Test func reportOfAnOutageShowsHealthAndWindows() async throws {
        let workspace = try Workspace()
        for file in ["mediation.json", "market-outage-premium.json"] {
            try workspace.write(String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/\(file)"), encoding: .utf8), to: "Config/\(file)")
        }
        // admob_premium hangs from minute 10 to minute 40 of a refreshing banner's timed run.
        let arguments = ["simulate", "--placement", "home_banner", "--market", "Config/market-outage-premium.json", "--duration", "1h", "--rate", "1", "--window", "10m"]
        let result = await workspace.run(arguments + ["--report", "outage.html"])
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output.contains("admob_premium paused"), "\(result.output)")
        let page = try Data(contentsOf: workspace.directory.appendingPathComponent("outage.html"))
        let document = try XMLDocument(data: page)
        func rows(_ section: String) throws -> [[String]] {
            try document.nodes(forXPath: "//section[h2='\(section)']//tr").map { row in
                (row.children ?? []).map { $0.stringValue ?? "" }
            }
        }
        // Pauses and resumes per network: admob_premium is paused, and not asked while it is.
        let health = try rows("Network health")
        let premium = try #require(health.first { $0.first == "admob_premium" && $0.count == 4 }, "\(health)")
        #expect((Int(premium[1]) ?? 0) >= 1 && (Int(premium[3]) ?? 0) >= 1, "\(premium)")
        // Its first pause is an event of the outage, between minute 10 and minute 40.
        let pause = try #require(health.first { $0.count >= 3 && $0[1] == "admob_premium" && $0[2] == "paused" }, "\(health)")
        #expect(pause[0] >= "10:00.000" && pause[0] < "40:00.000", "\(pause)")
        // The per-window table: six windows; before the outage admob_premium wins and is never
        // paused; during it it times out, wins nothing and is paused.
        let windows = try rows("Per 600 s window")
        let head = try #require(windows.first)
        let wins = try #require(head.firstIndex(of: "admob_premium wins/asked"))
        let timeouts = try #require(head.firstIndex(of: "admob_premium timeouts"))
        let paused = try #require(head.firstIndex(of: "admob_premium paused"))
        let body = windows.dropFirst().map { $0 }
        #expect(body.map { $0.first } == ["00:00.000", "10:00.000", "20:00.000", "30:00.000", "40:00.000", "50:00.000"])
        #expect(!body[0][wins].hasPrefix("0/") && body[0][paused] == "0", "\(body[0])")
        #expect(body[1][wins].hasPrefix("0/") && (Int(body[1][timeouts]) ?? 0) > 0 && (Int(body[1][paused]) ?? 0) > 0, "\(body[1])")
        // --compare-health: A without health is never paused, B is; their windows side by side.
        let compare = await workspace.run(arguments + ["--compare-health", "--report", "compare.html"])
        #expect(compare.code == .success, "\(compare.error)")
        let comparePage = try String(contentsOf: workspace.directory.appendingPathComponent("compare.html"), encoding: .utf8)
        #expect(comparePage.contains("<p>A: network health off</p>") && comparePage.contains("<p>B: network health on: "), "\(comparePage)")
        #expect(comparePage.contains("<h2>Per 600 s window, A / B</h2>") && comparePage.contains("<th>admob_premium paused A / B</th>"))
        #expect((try? XMLDocument(data: Data(comparePage.utf8))) != nil)
    }

    @Test func progressBarLine() {
        #expect(ProgressBar.line(done: 0, total: 1000, elapsed: .seconds(2)) == "[------------------------------]   0%  0 / 1000 auctions")
        #expect(ProgressBar.line(done: 250, total: 1000, elapsed: .seconds(2)) == "[#######-----------------------]  25%  250 / 1000 auctions, about 6 s left")
        #expect(ProgressBar.line(done: 1000, total: 1000, elapsed: .seconds(9)) == "[##############################] 100%  1000 / 1000 auctions")
    }

    @Test func badFlagsAndMarketsSayWhatAndWhere() async throws {
        let workspace = try pairWorkspace()
        let cases: [([String], ExitCode, String)] = [
            (["simulate"], .usage, "needs --placement"),
            (["simulate", "--placement", "level_end", "--auctions", "0"], .usage, "--auctions needs a whole number from 1"),
            (["simulate", "--placement", "level_end", "--jobs", "x"], .usage, "--jobs needs a whole number"),
            (["simulate", "--placement", "level_end", "--sweep", "tier=1:2:1"], .usage, "unknown parameter \"tier\""),
            (["simulate", "--placement", "level_end", "--sweep", "floor=2:1:0.5"], .usage, "TO must not be less than FROM"),
            (["simulate", "--placement", "level_end", "--sweep", "nope.ecpm=1:2:1"], .usage, "no line item \"nope\""),
            (["simulate", "--placement", "level_end", "--sweep", "floor=1", "--compare", "x.json"], .usage, "do not combine"),
            (["simulate", "--placement", "level_end", "--duration", "-3"], .usage, "--duration needs a positive number"),
            (["simulate", "--placement", "level_end", "--bogus"], .usage, "unknown option --bogus"),
            (["simulate", "--placement", "level_end", "--rate", "5"], .usage, "--rate applies to a timed run: give --duration D too"),
            (["simulate", "--placement", "level_end", "--duration", "1h", "--rate", "0"], .usage, "--rate needs a number of requests per second above 0"),
            (["simulate", "--placement", "level_end", "--duration", "10m", "--window", "1h"], .usage, "--window needs a length from 1 s to the duration"),
            (["simulate", "--placement", "level_end", "--duration", "1x"], .usage, "--duration needs a positive number of seconds, or a number and a unit"),
            (["simulate", "--placement", "level_end", "--duration", "60", "--auctions", "5"], .usage, "--auctions does not apply to --duration"),
            (["simulate", "--placement", "level_end", "--compare-health", "--compare", "x.json"], .usage, "do not combine"),
            (["simulate", "--placement", "nowhere"], .usage, "no placement \"nowhere\""),
            (["simulate", "--placement", "level_end", "--market", "missing.json"], .noInput, "market file not found: missing.json"),
            (["simulate", "--placement", "level_end", "--compare", "missing.json"], .noInput, "config file not found: missing.json"),
            (["--placement", "level_end", "--events", "x.ndjson"], .usage, "--events applies to --watch only"),
        ]
        for (arguments, code, message) in cases {
            let result = await workspace.run(arguments)
            #expect(result.code == code, "\(arguments): \(result.error)")
            #expect(result.error.contains(message), "\(arguments): \(result.error)")
        }
        let unwritable = await workspace.run(["simulate", "--placement", "level_end", "--auctions", "10", "--report", "no/such/dir/r.html"])
        #expect(unwritable.code == .cannotCreate)
        #expect(unwritable.error.contains("cannot write the report no/such/dir/r.html"), "\(unwritable.error)")
        #expect(unwritable.output.isEmpty)
        try workspace.write(Self.pairMarket.replacingOccurrences(of: "\"spread\": 0 }, \"latency\": { \"median_ms\": 80", with: "\"spread\": 9 }, \"latency\": { \"median_ms\": 80"), to: "bad-market.json")
        let bad = await workspace.run(["simulate", "--placement", "level_end", "--market", "bad-market.json"])
        #expect(bad.code == .dataError)
        #expect(bad.error.contains("invalid market bad-market.json: networks.netb.price.spread: must be from 0 to 4"), "\(bad.error)")
        try workspace.write(#"{ "networks": { "neta": { "fill_rate": 1, "price": { "median": 1 }, "latency": { "median_ms": 5 } } } }"#, to: "short-market.json")
        let short = await workspace.run(["simulate", "--placement", "level_end", "--market", "short-market.json"])
        #expect(short.code == .dataError)
        #expect(short.error.contains("invalid market short-market.json: networks.netb:"), "\(short.error)")
    }
}

/// Counts elements of an XHTML page.
private final class ElementCounter: NSObject, XMLParserDelegate {
    var counts: [String: Int] = [:]
    var bestRows = 0

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        counts[elementName, default: 0] += 1
        if elementName == "tr", attributes["class"] == "best" { bestRows += 1 }
    }
}

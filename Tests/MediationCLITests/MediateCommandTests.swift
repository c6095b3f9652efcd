import Adapters
import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import MediationCLI

@Suite("mediate end to end")
struct MediateCommandTests {
    private func jsonObject(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func helpAndVersionExitZero() async throws {
        let workspace = try Workspace()
        let help = await workspace.run(["--help"])
        #expect(help.code == .success)
        #expect(help.output.contains("mediate --placement ID"))
        #expect(help.error.isEmpty)
        let version = await workspace.run(["--version"])
        #expect(version.code == .success)
        #expect(version.output == "mediate 0.1.0\n")
    }

    @Test func exitCodesHaveTheirSysexitsValues() {
        #expect([ExitCode.success, .noFill, .usage, .dataError, .noInput, .software, .cannotCreate].map(\.rawValue) == [0, 2, 64, 65, 66, 70, 73])
    }

    @Test(arguments: [
        ([String](), "mediate: missing --placement ID (see mediate --help)\n"),
        (["--placement", "home_banner", "--bogus"], "mediate: unknown option --bogus (see mediate --help)\n"),
        (["--placement", "home_banner", "--debug=verbose"], "mediate: --debug takes no value or =unredacted, got 'verbose' (see mediate --help)\n"),
        (["networks", "--placement", "home_banner"], "mediate: --placement does not apply to mediate networks (see mediate --help)\n"),
        (["--placement", "nope", "--watch", "--fast"], "mediate: unknown placement 'nope' in Config/mediation.json; it has: home_banner, empty_slot, coin_flips (see mediate --help)\n"),
    ])
    func usageErrorsExit64WithOneLine(_ arguments: [String], _ message: String) async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let result = await workspace.run(arguments)
        #expect(result.code == .usage)
        #expect(result.error == message)
        #expect(result.output.isEmpty)
    }

    @Test func anUnknownPlacementIsAUsageError() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "nope"])
        #expect(result.code == .usage)
        #expect(result.error == "mediate: unknown placement 'nope' in Config/mediation.json; it has: home_banner, empty_slot, coin_flips (see mediate --help)\n")
    }

    @Test(arguments: [["--placement", "home_banner"], ["validate"], ["--placement", "home_banner", "--config", "elsewhere.json"]])
    func aMissingConfigExits66(_ arguments: [String]) async throws {
        let workspace = try Workspace()
        let result = await workspace.run(arguments)
        #expect(result.code == .noInput)
        let path = arguments.contains("--config") ? "elsewhere.json" : "Config/mediation.json"
        #expect(result.error == "mediate: config file not found: \(path)\n")
    }

    @Test(arguments: [
        (#""ecpm": 0.5"#, #""ecpm": "0.5""#, "placements.home_banner.sources[1].ecpm"),
        (#""max_height": 90"#, #""max_height": 90, "max_hieght": 1"#, "placements.home_banner.slot.max_hieght"),
        (#""fill_rate": 1,"#, #""fill_rate": 7,"#, "networks.always.options.fill_rate"),
        ("{\n  \"networks\"", "{ \"networks\": {}, \n  \"networks\"", "networks"),
        (#""ad_unit_id": "l", "#, "", "placements.home_banner.sources[1].ad_unit_id"),
        (#""sources": [ { "id": "none", "network": "never", "ad_unit_id": "n", "ecpm": 1 } ]"#, #""sources": []"#, "placements.empty_slot.sources"),
        (#""id": "c2""#, #""id": "c1""#, "placements.coin_flips.sources[1].id"),
        (#""network": "always""#, #""network": "elo""#, "placements.home_banner.sources[1].network"),
        (#""sizing": "anchored","#, #""sizing": "anchored", "refresh_seconds": 29,"#, "placements.home_banner.refresh_seconds"),
        (#""ecpm": 2.0"#, #""ecpm": 0"#, "placements.home_banner.sources[0].ecpm"),
        (#""format": "interstitial","#, #""format": "interstitial", "floor": -1,"#, "placements.empty_slot.floor"),
        (#""format": "interstitial","#, #""format": "interstitial", "deadline_ms": 3001,"#, "placements.empty_slot.deadline_ms"),
        (#""ecpm": 0.5"#, #""ecpm": 0.5, "currency": "EUR""#, "placements.home_banner.sources[1].currency"),
        (#""always": { "adapter": "fallback""#, #""always": { "adapter": "admob""#, "networks.always.adapter"),
    ])
    func anInvalidConfigExits65NamingThePathAndBuildsNothing(_ old: String, _ new: String, _ path: String) async throws {
        let workspace = try Workspace()
        #expect(Workspace.instantConfig.contains(old))
        try workspace.write(Workspace.instantConfig.replacingOccurrences(of: old, with: new), to: "Config/mediation.json")
        for arguments in [["--placement", "home_banner"], ["validate"]] {
            let result = await workspace.run(arguments)
            #expect(result.code == .dataError)
            #expect(result.error.hasPrefix("mediate: invalid config Config/mediation.json: \(path): "), "\(result.error)")
            #expect(result.error.filter { $0 == "\n" }.count == 1)
            #expect(result.output.isEmpty)
        }
    }

    @Test(arguments: [[UInt8](), [0xFF, 0xFE, 0x00], [UInt8](repeating: UInt8(ascii: "["), count: 50_000)])
    func badBytesExit65(_ bytes: [UInt8]) async throws {
        let workspace = try Workspace()
        try workspace.write(bytes, to: "Config/mediation.json")
        let result = await workspace.run(["validate"])
        #expect(result.code == .dataError)
        #expect(result.error.hasPrefix("mediate: invalid config Config/mediation.json: "))
    }

    @Test func noNetworkIsBuiltOrAskedForAnInvalidConfig() async throws {
        let workspace = try Workspace()
        let factory = RecordingFactory()
        try workspace.write(#"{"networks": {"r": {"adapter": "recorder", "endpoint": "sandbox"}}, "placements": {"p": {"format": "native", "refresh_seconds": 30, "sources": [{"id": "a", "network": "r", "ad_unit_id": "u", "ecpm": 1}]}}}"#, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "p"], registry: NetworkRegistry([factory]))
        #expect(result.code == .dataError)
        #expect(result.error.contains("placements.p.refresh_seconds"))
        #expect(factory.adaptersBuilt == 0)
        #expect(factory.recordedRequests.isEmpty)
    }

    @Test func validateReportsAValidConfig() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let result = await workspace.run(["validate"])
        #expect(result.code == .success)
        #expect(result.output == "Config/mediation.json: valid (3 networks, 3 placements: home_banner, empty_slot, coin_flips)\n")
    }

    @Test("validate of a config without placements says so, not \"0 placements: \" with nothing after the colon")
    func validateReportsAConfigWithoutPlacements() async throws {
        let workspace = try Workspace()
        try workspace.write(#"{"networks": {"backfill": {"adapter": "fallback", "endpoint": "sandbox"}}, "placements": {}}"#, to: "Config/mediation.json")
        let result = await workspace.run(["validate"])
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output == "Config/mediation.json: valid (1 network, no placements)\n")
    }

    @Test func validatesTheShippedConfig() async {
        let environment = CommandEnvironment(standardOutput: CapturedOutput(), standardError: CapturedOutput(), currentDirectory: Workspace.repositoryRoot, clock: SystemClock(), registry: .standard)
        #expect(await MediateCommand.run(arguments: ["validate"], environment: environment) == .success)
    }

    @Test func aFilledAuctionExitsZeroAndPrintsTheWinnerAndEverySource() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "home_banner"])
        #expect(result.code == .success, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Placement home_banner: banner (anchored), slot max height 90 pt, parallel, deadline 3000 ms, refresh 60 s")
        #expect(lines.contains { $0.hasPrefix("Winner: always / low, eCPM 0.50 USD, creative fallback-") && $0.hasSuffix(", banner 390x60 pt") })
        #expect(lines.contains { $0.hasPrefix("Auction ") && $0.contains("deadline") })
        #expect(lines.contains { $0.hasPrefix("LINE ITEM") && $0.contains("LATENCY") && $0.contains("LOSS REASON") })
        #expect(lines.contains { $0.hasPrefix("high ") && $0.contains("no_fill") && $0.contains("noFill") })
        #expect(lines.contains { $0.hasPrefix("low ") && $0.contains("won") && $0.contains("0.50") })
    }

    @Test func jsonOutputParses() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "home_banner", "--json"])
        #expect(result.code == .success, "\(result.error)")
        let object = try jsonObject(result.output)
        #expect(object["placement"] as? String == "home_banner")
        #expect(object["filled"] as? Bool == true, "\(result.output)")
        let winner = try #require(object["winner"] as? [String: Any])
        #expect(winner["line_item"] as? String == "low")
        #expect(winner["network"] as? String == "always")
        #expect(winner["ecpm"] as? Double == 0.5)
        #expect(winner["format"] as? String == "banner")
        let trace = try #require(object["trace"] as? [String: Any])
        #expect(trace["winner"] as? String == "low")
        let sources = try #require(trace["sources"] as? [[String: Any]])
        #expect(sources.compactMap { $0["line_item"] as? String } == ["high", "low"])
    }

    @Test func noFillExitsTwo() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let human = await workspace.run(["--placement", "empty_slot"])
        #expect(human.code == .noFill)
        #expect(human.output.contains("No fill: none of the 1 source filled empty_slot"))
        let json = await workspace.run(["--placement", "empty_slot", "--json"])
        #expect(json.code == .noFill)
        let object = try jsonObject(json.output)
        #expect(object["filled"] as? Bool == false)
        #expect(object["winner"] is NSNull)
    }

    @Test func theSameSeedGivesTheSameAuction() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        func outcome(seed: Int) async throws -> [String] {
            let result = await workspace.run(["--placement", "coin_flips", "--json", "--seed", "\(seed)"])
            let trace = try #require(try jsonObject(result.output)["trace"] as? [String: Any])
            let sources = try #require(trace["sources"] as? [[String: Any]])
            // All sandboxes: the one-shot runs on virtual time, so the whole line is seeded (R6a):
            // who fills, who wins with which creative, and whether the rest is cancelled or lost.
            return sources.map { source in
                let status = (source["outcome"] as? [String: Any])?["status"] as? String ?? "?"
                return "\(source["line_item"] ?? "") \(status) \(source["creative_id"] ?? "-")"
            }
        }
        var runs: [[String]] = []
        for seed in [5, 5, 6, 7, 8, 9] {
            runs.append(try await outcome(seed: seed))
        }
        #expect(runs[0] == runs[1])
        #expect(Set(runs).count > 1, "different seeds give different auctions")
    }

    @Test("--messages reads times with fractional seconds and with an offset")
    func messagesTimesWithFractions() throws {
        let workspace = try Workspace()
        try workspace.write(#"[{"role": "user", "content": "a", "created_at": "2026-01-02T10:00:00.000Z"}, {"role": "user", "content": "b", "created_at": "2026-01-02T10:00:00.25Z"}, {"role": "user", "content": "c", "created_at": "2026-01-02T11:00:00+01:00"}]"#, to: "chat.json")
        let messages = try ConversationFile.load(workspace.directory.appendingPathComponent("chat.json"))
        #expect(messages.map(\.createdAt) == [Date(timeIntervalSince1970: 1_767_348_000), Date(timeIntervalSince1970: 1_767_348_000.25), Date(timeIntervalSince1970: 1_767_348_000)])
    }

    @Test func messagesGoIntoTheRequestsHostContext() async throws {
        let workspace = try Workspace()
        let factory = RecordingFactory()
        try workspace.write(#"{"networks": {"r": {"adapter": "recorder", "endpoint": "sandbox"}}, "placements": {"chat_strip": {"format": "native", "slot": {"max_height": 100}, "sources": [{"id": "a", "network": "r", "ad_unit_id": "u", "ecpm": 1}]}}}"#, to: "Config/mediation.json")
        let sample = try String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/sample-conversation.json"), encoding: .utf8)
        try workspace.write(sample, to: "chat.json")
        let result = await workspace.run(["--placement", "chat_strip", "--messages", "chat.json"], registry: NetworkRegistry([factory]))
        #expect(result.code == .success, "\(result.error)")
        let request = try #require(factory.recordedRequests.first)
        #expect(request.context.messages.map(\.role) == [.user, .assistant, .user])
        #expect(request.context.messages.first?.id == "m1")
        #expect(request.context.messages.first?.createdAt == Date(timeIntervalSince1970: 1_777_713_243))
        #expect(request.context.messages.last?.content == "Any lightweight tent you'd recommend for two people?")
    }

    @Test(arguments: [
        ("missing.json", nil as String?, ExitCode.noInput, "mediate: messages file missing.json: no such file: "),
        ("chat.json", #"[{"role": "bot", "content": "hi"}]"#, ExitCode.dataError, #"mediate: invalid messages file chat.json: [0].role: expected "user", "assistant" or "summary""#),
        ("chat.json", #"[{"role": "user"}]"#, ExitCode.dataError, "mediate: invalid messages file chat.json: [0].content: missing required field"),
        ("chat.json", #"{"role": "user"}"#, ExitCode.dataError, "mediate: invalid messages file chat.json: $: wrong type"),
        ("chat.json", #"[{"role": "user", "content": "x", "created_at": "yesterday"}]"#, ExitCode.dataError, "mediate: invalid messages file chat.json: [0].created_at: expected an ISO 8601 time"),
        // Syntax errors say where, by path, line and column.
        ("chat.json", "[{\"role\": \"user\",\n  \"content\": \"a\\ud800\"}]", ExitCode.dataError, "mediate: invalid messages file chat.json: [0].content: a high surrogate must be followed by a low surrogate (line 2, column 22)"),
        ("chat.json", "[{\"role\": \"user\", \"content\": \"x\"", ExitCode.dataError, "mediate: invalid messages file chat.json: [0]: "),
        ("chat.json", " \n", ExitCode.dataError, "mediate: invalid messages file chat.json: $: the file is empty; expected a JSON array of messages"),
        // As strict as the config: no trailing comma, no comment, no repeated key.
        ("chat.json", "[{\"role\": \"user\", \"content\": \"x\"},\n]", ExitCode.dataError, "mediate: invalid messages file chat.json: [1]: unexpected character ']'; expected a value (line 2, column 1)"),
        ("chat.json", "[{\"role\": \"user\", \"content\": \"x\",}]", ExitCode.dataError, "mediate: invalid messages file chat.json: [0]: expected a quoted key (line 1, column 34)"),
        ("chat.json", "// hi\n[{\"role\": \"user\", \"content\": \"x\"}]", ExitCode.dataError, "mediate: invalid messages file chat.json: $: unexpected character '/'; expected a value (line 1, column 1)"),
        ("chat.json", "[{\"role\": \"user\", \"content\": \"x\", \"role\": \"assistant\"}]", ExitCode.dataError, "mediate: invalid messages file chat.json: [0].role: the key \"role\" appears twice"),
    ])
    func badMessagesFiles(_ path: String, _ contents: String?, _ code: ExitCode, _ message: String) async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        if let contents { try workspace.write(contents, to: path) }
        let result = await workspace.run(["--placement", "home_banner", "--messages", path])
        #expect(result.code == code)
        #expect(result.error.hasPrefix(message), "\(result.error)")
    }

    /// The one-shot run is an auction of the engine built from the config: the engine tells
    /// every network what became of its request (`auctionDidEnd`), shuts the networks down
    /// afterwards, and runs on the environment's clock (virtual here, so the trace is exact).
    @Test func theOneShotAuctionRunsThroughTheEngine() async throws {
        let workspace = try Workspace()
        let clock = ManualClock()
        let bidder = ScriptedAdapter(network: "bid", pricing: .bidder, clock: clock, script: [.after(.milliseconds(40), .bid(2.0))])
        let fixed = ScriptedAdapter(network: "fixed", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(10), .fill)])
        var networks = PrebuiltNetworks()
        networks.add("bid", pricing: .bidder, adapter: bidder)
        networks.add("fixed", pricing: .fixedPrice, adapter: fixed)
        try workspace.write("""
        {
          "networks": { "bid": { "adapter": "prebuilt.bid", "endpoint": "sandbox" }, "fixed": { "adapter": "prebuilt.fixed", "endpoint": "sandbox" } },
          "placements": {
            "level_end": {
              "format": "interstitial",
              "sources": [
                { "id": "b", "network": "bid", "ad_unit_id": "bid-unit" },
                { "id": "f", "network": "fixed", "ad_unit_id": "fixed-unit", "ecpm": 1.0 }
              ]
            }
          }
        }
        """, to: "Config/mediation.json")
        let output = CapturedOutput()
        let error = CapturedOutput()
        let environment = CommandEnvironment(standardOutput: output, standardError: error, currentDirectory: workspace.directory, clock: clock, registry: networks.registry)
        let code = await clock.run {
            await MediateCommand.run(arguments: ["--placement", "level_end", "--json"], environment: environment)
        }
        extendLifetime(workspace) // its directory holds the config until here
        #expect(try #require(code, "the run stalled") == .success, "\(error.contents)")

        let object = try jsonObject(output.contents)
        let winner = try #require(object["winner"] as? [String: Any])
        #expect(winner["line_item"] as? String == "b")
        #expect(winner["ad_id"] as? String == "bid-1")
        let trace = try #require(object["trace"] as? [String: Any])
        let auctionID = try #require(trace["auction_id"] as? String)

        // Each network heard the auction's decision about its one request, from the engine.
        #expect(bidder.requests.map(\.adUnitID) == ["bid-unit"])
        #expect(fixed.requests.map(\.adUnitID) == ["fixed-unit"])
        let won = try #require(bidder.notices.first)
        #expect(bidder.notices.count == 1)
        #expect(won.auctionID == auctionID)
        #expect(won.placementID == "level_end")
        #expect(won.lineItemID == "b")
        #expect(won.adUnitID == "bid-unit")
        #expect(won.outcome == .won)
        #expect(won.eCPM == 2.0)
        #expect(won.adID == "bid-1")
        // The winner's price to beat is the highest other valid value; a loser's, the winner's.
        #expect(won.priceToBeat == 1.0)
        let lost = try #require(fixed.notices.first)
        #expect(fixed.notices.count == 1)
        #expect(lost.auctionID == auctionID)
        #expect(lost.lineItemID == "f")
        #expect(lost.outcome == .lost(.lostToHigherBid))
        #expect(lost.eCPM == 1.0)
        #expect(lost.adID == "fixed-1")
        #expect(lost.priceToBeat == 2.0)

        // On the environment's clock: both asked at once, the bid decided it at 40 ms.
        #expect(bidder.requestInstants == [.origin])
        #expect(bidder.answerInstants == [.origin + .milliseconds(40)])
        #expect(fixed.answerInstants == [.origin + .milliseconds(10)])
        #expect(trace["started_at_ms"] as? Double == 0)
        #expect(trace["ended_at_ms"] as? Double == 40)

        // The CLI never shows the winner: both ads are given back, once (R7); then the engine
        // shut every network down.
        #expect(bidder.ads.map(\.releaseCount) == [1])
        #expect(fixed.ads.map(\.releaseCount) == [1])
        #expect(bidder.lifeCycleCalls == [.shutdown])
        #expect(fixed.lifeCycleCalls == [.shutdown])
    }

    /// The README's command on the shipped config: it runs the fallback line items' real
    /// latencies (well under a second) on the system clock.
    // A hang guard, not a speed check (tests run in parallel on two cores: under the thread
    // sanitizer a one-shot test waited 72 to 82 s for the pool; the limit was 1 minute).
    @Test(.timeLimit(.minutes(10)))
    func theShippedHomeBannerRunsAndPrintsJSON() async throws {
        let output = CapturedOutput()
        let error = CapturedOutput()
        let environment = CommandEnvironment(standardOutput: output, standardError: error, currentDirectory: Workspace.repositoryRoot, clock: SystemClock(), registry: .standard)
        let code = await MediateCommand.run(arguments: ["--placement", "home_banner", "--json"], environment: environment)
        #expect(code == .success, "\(error.contents)")
        let object = try jsonObject(output.contents)
        #expect(object["filled"] as? Bool == true)
        let trace = try #require(object["trace"] as? [String: Any])
        #expect((trace["sources"] as? [Any])?.count == 6) // Elo, Qartvelo, Nitx and the three fallback line items
    }
}

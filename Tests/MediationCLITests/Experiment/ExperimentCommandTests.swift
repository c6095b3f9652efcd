import Foundation
import Testing
@testable import MediationCLI

/// `mediate experiment report`: the fixture log (`sql/fixture`), the warehouse CSV, the split
/// check, the verdict, and strict errors with file and line.
@Suite("mediate experiment report")
struct ExperimentCommandTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("sql/fixture")

    static let config = """
    { "experiments": [ { "id": "waterfall_b", "salt": "s1", "start": "2026-12-01T00:00:00Z", "end": "2026-12-31T00:00:00Z",
      "allocation_bp": 10000, "variants": [ { "id": "A", "weight_bp": 5000 }, { "id": "B", "weight_bp": 5000 } ] } ] }
    """

    static func unit(_ index: Int) -> String {
        let hex = String(UInt64(index) &* 0x9E37_79B9_7F4A_7C15, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// A user-days CSV: `a` users in A and `b` in B, user i earning (i % 10) / 1000 USD in A and
    /// `lift` times that in B, on 2026-12-07.
    static func userDays(a: Int, b: Int, lift: Double) -> String {
        var text = "day,experiment,variant,unit,requests,impressions,revenue_usd\n"
        for index in 0..<(a + b) {
            let inB = index >= a
            let revenue = Double(index % 10) / 1000 * (inB ? lift : 1)
            text += "2026-12-07,waterfall_b,\(inB ? "B" : "A"),\(unit(index)),3,2,\(DecimalTextForTests.plain(revenue))\n"
        }
        return text
    }

    @Test("the fixture log: per-variant figures, split check and verdict; the same report from its warehouse CSV")
    func fixtureLog() async throws {
        let workspace = try Workspace()
        let config = Self.fixture.appendingPathComponent("config.json").path
        let events = Self.fixture.appendingPathComponent("events.ndjson").path
        let text = await workspace.run(["experiment", "report", "--config", config, "--events", events])
        #expect(text.code == .success, "\(text.error)")
        #expect(text.output.contains("experiment waterfall_b as of 2026-12-08"))
        #expect(text.output.contains("split check: chi-square 0.00, p = 1.0000 (ok)"))
        #expect(text.output.contains("verdict: not enough data: fewer than 150 users in a variant (20 so far); so far B "))
        let json = await workspace.run(["experiment", "report", "--config", config, "--events", events, "--json", "--report", "r.html"])
        #expect(json.code == .success, "\(json.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let experiment = try #require((object["experiments"] as? [[String: Any]])?.first)
        let variants = try #require(experiment["variants"] as? [[String: Any]])
        // Counted by hand from sql/fixture/events.ndjson (python3: exposure, auction_started and
        // shown events per variant): 20 users each; A 61 requests, 43 impressions; B 93, 68.
        #expect(variants.map { $0["users"] as? Int } == [20, 20])
        #expect(variants.map { $0["requests"] as? Int } == [61, 93])
        #expect(variants.map { $0["impressions"] as? Int } == [43, 68])
        let page = try String(contentsOf: workspace.directory.appendingPathComponent("r.html"), encoding: .utf8)
        #expect(page.contains("<h2>waterfall_b</h2>"))
    }

    @Test("a lift that is there: the verdict names it with its always-valid interval")
    func verdict() async throws {
        let workspace = try Workspace()
        try workspace.write(Self.config, to: "c.json")
        try workspace.write(Self.userDays(a: 20_000, b: 20_000, lift: 1.2), to: "u.csv")
        let result = await workspace.run(["experiment", "report", "--config", "c.json", "--user-days", "u.csv"])
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output.contains("verdict: B earns +20.0 % per user (+"), "\(result.output)")
    }

    @Test("a split off the configured weights withholds the result and says why")
    func sampleRatioMismatch() async throws {
        let workspace = try Workspace()
        try workspace.write(Self.config, to: "c.json")
        try workspace.write(Self.userDays(a: 5_300, b: 4_700, lift: 1.2), to: "u.csv")
        let result = await workspace.run(["experiment", "report", "--config", "c.json", "--user-days", "u.csv"])
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output.contains("verdict: result withheld: the users do not split as configured (A 5,300 (expected 5,000), B 4,700 (expected 5,000); chi-square 36.0"), "\(result.output)")
        #expect(!result.output.contains("earns"))
    }

    @Test("--as-of counts the rows up to that day")
    func asOf() async throws {
        let workspace = try Workspace()
        try workspace.write(Self.config, to: "c.json")
        try workspace.write("""
        day,experiment,variant,unit,requests,impressions,revenue_usd
        2026-12-07,waterfall_b,A,\(Self.unit(1)),2,1,0.5
        2026-12-08,waterfall_b,A,\(Self.unit(1)),2,1,0.5
        2026-12-08,waterfall_b,B,\(Self.unit(2)),2,1,0.5

        """, to: "u.csv")
        let result = await workspace.run(["experiment", "report", "--config", "c.json", "--user-days", "u.csv", "--as-of", "2026-12-07", "--json"])
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output.contains("\"requests\" : 2,"))
        #expect(result.output.contains("\"users\" : 0,"))
        #expect(result.error.contains("2 rows dated after --as-of 2026-12-07 are not counted"))
    }

    @Test("strict input: each mistake named with its file and line", arguments: [
        ("{\"event\":\"shown\",\"at_ms\":1,\"placement\":\"p\",\"experiment\":\"waterfall_b\",\"variant\":\"A\",\"day\":\"2026-12-07\",\"revenue_usd\":0.1}", "e.ndjson:2:1: an event with experiment needs unit too"),
        ("{\"event\":\"shown\",\"at_ms\":1,\"placement\":\"p\",\"experiment\":\"waterfall_b\",\"variant\":\"C\",\"unit\":\"00000000000000aa\",\"day\":\"2026-12-07\",\"revenue_usd\":0.1}", "e.ndjson:2:1: the experiment \"waterfall_b\" has no variant \"C\""),
        ("{\"event\":\"shown\",\"at_ms\":1,\"placement\":\"p\",\"experiment\":\"waterfall_b\",\"variant\":\"B\",\"unit\":\"00000000000000ab\",\"day\":\"2026-12-07\",\"revenue_usd\":0.1}", "e.ndjson:2:1: unit 00000000000000ab is in variant \"B\" here but in \"A\" at e.ndjson:1:1"),
        ("{\"event\":\"shown\",\"at_ms\":1,\"placement\":\"p\",\"experiment\":\"waterfall_b\",\"variant\":\"A\",\"unit\":\"00000000000000aa\",\"day\":\"2026-12-07\"}", "e.ndjson:2:1: a shown event needs its revenue_usd"),
        ("{\"event\":\"exposure\",\"at_ms\":1,\"placement\":\"p\",\"experiment\":\"waterfall_b\",\"variant\":\"A\",\"unit\":\"XYZ\",\"day\":\"2026-12-07\"}", "e.ndjson:2:1: unit must be 16 lower-case hex digits"),
        ("{\"event\":\"exposure\",\"at_ms\":1,\"placement\":\"p\",\"experiment\":\"waterfall_b\",\"variant\":\"A\",\"unit\":\"00000000000000aa\",\"day\":\"7 Dec\"}", "e.ndjson:2:1: day must be a UTC day YYYY-MM-DD"),
        ("[1]", "e.ndjson:2:1: a JSON array, not an object"),
        ("{\"event\":\"auction_started\",\"at_ms\":1,\"placement\":\"p\",\"experiment\":\"waterfall_b\",\"variant\":\"A\",\"unit\":\"00000000000000cc\"}", "e.ndjson:2:1: an auction_started event of unit 00000000000000cc comes before any event of that user with its day"),
    ])
    func strictEvents(line: String, message: String) async throws {
        let workspace = try Workspace()
        try workspace.write(Self.config, to: "c.json")
        try workspace.write("{\"event\":\"exposure\",\"at_ms\":0,\"placement\":\"p\",\"experiment\":\"waterfall_b\",\"variant\":\"A\",\"unit\":\"00000000000000ab\",\"day\":\"2026-12-07\"}\n\(line)\n", to: "e.ndjson")
        let result = await workspace.run(["experiment", "report", "--config", "c.json", "--events", "e.ndjson"])
        #expect(result.code == .dataError)
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("a request without a day counts on its user's latest day before it, across logs read in order")
    func requestDay() async throws {
        let workspace = try Workspace()
        try workspace.write(Self.config, to: "c.json")
        let arm = "\"experiment\":\"waterfall_b\",\"variant\":\"A\",\"unit\":\"00000000000000ab\""
        try workspace.write("{\"event\":\"exposure\",\"at_ms\":0,\"placement\":\"p\",\(arm),\"day\":\"2026-12-07\"}\n", to: "1.ndjson")
        try workspace.write("""
        {"event":"auction_started","at_ms":1,"placement":"p",\(arm)}
        {"event":"shown","at_ms":2,"placement":"p",\(arm),"day":"2026-12-08","revenue_usd":0.5}
        {"event":"auction_started","at_ms":3,"placement":"p",\(arm)}

        """, to: "2.ndjson")
        let result = await workspace.run(["experiment", "report", "--config", "c.json", "--events", "1.ndjson", "2.ndjson", "--as-of", "2026-12-07", "--json"])
        #expect(result.code == .success, "\(result.error)")
        // On 2026-12-07: the exposure and the first request; the shown and the second request are on 12-08.
        #expect(result.output.contains("\"requests\" : 1,"), "\(result.output)")
        #expect(result.error.contains("2 rows dated after --as-of 2026-12-07 are not counted"))
    }

    @Test("strict CSV: header, counts, revenue", arguments: [
        ("day,experiment,variant,unit,requests,impressions\n", "u.csv:1:1: the header must be day,experiment,variant,unit,requests,impressions,revenue_usd"),
        ("day,experiment,variant,unit,requests,impressions,revenue_usd\n2026-12-07,waterfall_b,A,00000000000000aa,-1,0,0\n", "u.csv:2:43: requests must be a whole number"),
        ("day,experiment,variant,unit,requests,impressions,revenue_usd\n2026-12-07,waterfall_b,A,00000000000000aa,1,0,1e-3\n", "u.csv:2:47: revenue_usd must be a plain decimal"),
    ])
    func strictCSV(text: String, message: String) async throws {
        let workspace = try Workspace()
        try workspace.write(Self.config, to: "c.json")
        try workspace.write(text, to: "u.csv")
        let result = await workspace.run(["experiment", "report", "--config", "c.json", "--user-days", "u.csv"])
        #expect(result.code == .dataError)
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("the options: one input kind, a day for --as-of, a subcommand, no file twice")
    func options() async throws {
        let workspace = try Workspace()
        for (arguments, message) in [
            (["experiment", "report", "--events", "a", "--user-days", "b"], "needs --events FILE.ndjson... or --user-days FILE.csv... (one of the two)"),
            (["experiment", "report"], "needs --events FILE.ndjson... or --user-days FILE.csv..."),
            (["experiment", "report", "--events", "a", "--as-of", "yesterday"], "--as-of needs a UTC day"),
            (["experiment", "show"], "mediate experiment needs a subcommand: report"),
            (["experiment", "report", "--events", "a", "--seed", "3"], "--seed does not apply to mediate experiment report"),
            (["experiment", "report", "--events", "a.ndjson", "./a.ndjson"], "'./a.ndjson' is given twice (its rows would count twice)"),
            (["experiment", "report", "--user-days", "u.csv", "x/../u.csv"], "'x/../u.csv' is given twice"),
        ] {
            let result = await workspace.run(arguments)
            #expect(result.code == .usage, "\(arguments)")
            #expect(result.error.contains(message), "\(arguments): \(result.error)")
        }
    }
}

/// Plain decimal text for the CSVs written here (no exponent).
enum DecimalTextForTests {
    static func plain(_ value: Double) -> String { String(format: "%.9f", value) }
}

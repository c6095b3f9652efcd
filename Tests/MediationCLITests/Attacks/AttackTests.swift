import Foundation
import Mediation
import MediationLearning
import Testing
@testable import MediationCLI

/// Failing tests found by a newcomer attacking the audiences, global-market, per-country
/// learning, users and experiment-report features. Each states the documented behaviour.
@Suite("attacks on the new features")
struct AttackTests {
    /// `Config/mediation.json` with `segments` on `level_end`.
    static func config(segments: Any) throws -> String {
        let url = Workspace.repositoryRoot.appendingPathComponent("Config/mediation.json")
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var placements = try #require(root["placements"] as? [String: Any])
        var levelEnd = try #require(placements["level_end"] as? [String: Any])
        levelEnd["segments"] = segments
        placements["level_end"] = levelEnd
        root["placements"] = placements
        return String(decoding: try JSONSerialization.data(withJSONObject: root), as: UTF8.self)
    }

    static func knownTests(_ count: Int, prefix: String = "k") -> [[String: Any]] {
        (0..<count).map { ["custom.\(prefix)\($0)": ["known": true]] }
    }

    /// Two segments whose `all` lists 400 tests each (a 31 KB config): the reachability check
    /// (`SegmentReachability`, run by `validate` and by every `MediationEngine` built) is cubic in
    /// the tests (`implies` recomputes the quadratic `isAlwaysFalse` per element): about 20 s in a
    /// debug build at 300 tests, 49 s at 400. A config from a server can hang the app this way.
    @Test("validate: two segments of 400 tests each are refused at the first predicate's path (at most 20 tests a predicate keeps the reachability check cheap)")
    func reachabilityIsNotCubic() async throws {
        let tests = Self.knownTests(400)
        let second = Array(tests.dropLast()) + [["custom.z": ["known": true]]]
        let workspace = try Workspace()
        try workspace.write(try Self.config(segments: [
            ["id": "a", "when": ["all": tests]],
            ["id": "b", "when": ["all": second]],
            ["id": "default"],
        ]), to: "Config/mediation.json")
        let result = await workspace.run(["validate"])
        #expect(result.code == .dataError, "\(result.output)")
        #expect(result.error.contains("placements.level_end.segments[0].when") && result.error.contains("at most 20 tests"), "\(result.error)")
    }

    /// One `all` of 8,000 `known` tests (280 KB; 4,000 take 14 s; nothing bounds the tests of a predicate, though
    /// `maximumSegments` is documented in the source as "the most tests one predicate may
    /// hold"): `isAlwaysFalse` is quadratic, 14 s in a debug build; 4 MiB of config is hours.
    @Test("validate: one segment whose all holds 8,000 tests is refused with its path")
    func bigAllIsNotQuadratic() async throws {
        let workspace = try Workspace()
        try workspace.write(try Self.config(segments: [["id": "a", "when": ["all": Self.knownTests(8000)]], ["id": "default"]]), to: "Config/mediation.json")
        let result = await workspace.run(["validate"])
        #expect(result.code == .dataError, "\(result.output)")
        #expect(result.error.contains("placements.level_end.segments[0].when") && result.error.contains("at most 20 tests"), "\(result.error)")
    }

    /// docs/audiences.md: "a privacy flag takes true / false with ==, !=, known only". `in` and
    /// `not_in` on a flag are accepted.
    @Test("validate: a privacy flag refuses in / not_in with the JSON path")
    func flagRefusesIn() async throws {
        for op in ["in", "not_in"] {
            let workspace = try Workspace()
            try workspace.write(try Self.config(segments: [["id": "kids", "when": ["coppa": [op: [true]]]], ["id": "default"]]), to: "Config/mediation.json")
            let result = await workspace.run(["validate"])
            #expect(result.code == .dataError, "\(op): exit \(result.code), \(result.output)")
            #expect(result.error.contains("placements.level_end.segments[0].when.coppa.\(op)"), "\(result.error)")
        }
    }

    /// docs/experiments.md: the report reads "the config's experiments" and the examples pass
    /// `--config Config/mediation.json`; the engine's loader refuses a top-level `experiments`
    /// (`unknown key "experiments"`), so no config is both one the engine runs and one the
    /// report reads. The repository's own fixture (sql/fixture/config.json) fails validate.
    @Test("a config with experiments (sql/fixture/config.json) is a valid engine config")
    func experimentConfigValidates() async throws {
        let fixture = Workspace.repositoryRoot.appendingPathComponent("sql/fixture/config.json").path
        let result = await Workspace.runInRepository(["validate", "--config", fixture])
        #expect(result.code == .success, "\(result.error)")
        let shipped = try Workspace()
        let url = Workspace.repositoryRoot.appendingPathComponent("Config/mediation.json")
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        root["experiments"] = [["id": "floor_test", "salt": "s", "start": "2026-12-01T00:00:00Z", "end": "2026-12-31T00:00:00Z", "allocation_bp": 10000,
                                "variants": [["id": "A", "weight_bp": 5000], ["id": "B", "weight_bp": 5000, "placements": ["level_end": ["ecpm": ["level_end_nitx": 7.0]]]]]]]
        let text = String(decoding: try JSONSerialization.data(withJSONObject: root), as: UTF8.self)
        try shipped.write(text, to: "Config/mediation.json")
        let validate = await shipped.run(["validate"])
        #expect(validate.code == .success, "\(validate.error)")
    }

    /// README: "`swift run -q mediate --help` lists it all"; the README's own
    /// `mediate simulate --users 1000 --days 7` is not in the help.
    @Test("--help lists simulate --users")
    func helpListsUsers() async throws {
        let result = await Workspace.runInRepository(["--help"])
        #expect((result.output + result.error).contains("--users"))
    }

    /// docs/learning.md: the true-means limit is "the best any learner of fixed prices can do".
    /// On the shipped global market (tiered networks) the limit priced every tier of a network at
    /// its base_ecpm (all admob tiers at 14), and the configured prices earned 1.16–1.60 × that
    /// "limit". The loop's limit is now the per-country true-means limit.
    @Test("simulate --days on Config/market-global.json: no learner earns more than the true-means limit")
    func learningLimitOnCountryMarket() async throws {
        let result = await Workspace.runInRepository(["simulate", "--placement", "level_end", "--config", "Config/mediation-global.json",
                                                      "--market", "Config/market-global.json", "--days", "1", "--auctions", "300",
                                                      "--learner", "static", "--json"])
        #expect(result.code == .success, "\(result.error)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let summaries = try #require(root["summaries"] as? [[String: Any]])
        for summary in summaries {
            let ratio = try #require(summary["ratio_to_limit"] as? Double)
            #expect(ratio <= 1.02, "\(summary["learner"] ?? "?") earns \(ratio) × the limit")
        }
    }

    /// docs/experiments.md: "Memory grows with the exposed users kept …, not with the rows read";
    /// every row of an unknown experiment is kept by name and warned about: 2,000 distinct unknown
    /// experiments print 2,000 warning lines (400,000 rows: 400,000 lines, +35 MB).
    @Test("experiment report: rows of many unknown experiments give a bounded warning, not one line each")
    func unknownExperimentsAreBounded() async throws {
        let workspace = try Workspace()
        try workspace.write(ExperimentCommandTests.config, to: "Config/mediation.json")
        var csv = "day,experiment,variant,unit,requests,impressions,revenue_usd\n"
        for index in 0..<2000 { csv += "2026-12-07,other_\(index),A,\(ExperimentCommandTests.unit(index)),1,1,0.01\n" }
        csv += "2026-12-07,waterfall_b,A,\(ExperimentCommandTests.unit(1)),1,1,0.01\n"
        csv += "2026-12-07,waterfall_b,B,\(ExperimentCommandTests.unit(2)),1,1,0.01\n"
        try workspace.write(csv, to: "u.csv")
        let result = await workspace.run(["experiment", "report", "--user-days", "u.csv"])
        #expect(result.code == .success, "\(result.error)")
        let lines = result.error.split(separator: "\n").count
        #expect(lines <= 25, "\(lines) warning lines")
        #expect(result.error.contains("2000 rows") && result.error.contains("\"other_9\"") && !result.error.contains("other_10"), "\(result.error)")
    }

    /// The users of a report keep at most 10 names of unknown experiments, however many rows
    /// and distinct ids are read: memory does not grow with them.
    @Test("experiment users: unknown experiments are counted, at most 10 kept by name")
    func unknownExperimentNamesAreBounded() throws {
        var users = ExperimentUsers(designs: [ExperimentDesign(id: "x", variants: [.init(id: "A", weightBP: 5000), .init(id: "B", weightBP: 5000)])], asOf: nil)
        let day = try #require(UTCDay("2026-12-07"))
        for index in 0..<5000 {
            try users.add(experiment: "other_\(index % 2500)", variant: "A", unit: "0123456789abcdef", day: day, requests: 1, impressions: 0, revenue: 0, at: ReportLocation(file: "u.csv"))
        }
        #expect(users.unknownExperimentRows == 5000)
        #expect(users.unknownExperiments == (0..<10).map { "other_\($0)" })
        #expect(users.moreUnknownExperiments)
    }

    /// docs/audiences.md: "strings as strings (byte order: "10" < "9")". Swift's String `<`
    /// compares canonically equivalent forms: "e\u{301}" (bytes 65 CC 81) sorts after "f" (66).
    @Test("custom string comparison is byte order, as documented")
    func customStringsCompareByBytes() {
        let audience = Audience(custom: ["name": .string("e\u{301}")])
        let less = AudienceTest(signal: .custom("name"), operation: .less(.string("f")), text: "< f")
        #expect(less.matches(audience), "\"e\\u{301}\" < \"f\" in byte order")
        let equal = AudienceTest(signal: .custom("name"), operation: .equal(.string("\u{e9}")), text: "== é")
        #expect(!equal.matches(audience), "different bytes are different strings")
        let member = AudienceTest(signal: .custom("name"), operation: .isIn([.string("\u{e9}")]), text: "in [é]")
        #expect(!member.matches(audience), "different bytes are not in the set")
    }

    /// docs/experiments.md: "A line that is wrong stops the report with its file, line and what
    /// is wrong". A `shown` event whose revenue_usd is `1e999` (out of range) is reported as
    /// `e.ndjson:1:1:  has the wrong type; …`: no field is named.
    @Test("experiment report: an out-of-range revenue_usd names the field")
    func outOfRangeRevenueIsNamed() async throws {
        let workspace = try Workspace()
        try workspace.write(ExperimentCommandTests.config, to: "Config/mediation.json")
        try workspace.write(#"{"event":"shown","at_ms":0,"placement":"p","experiment":"waterfall_b","variant":"A","unit":"0123456789abcdef","day":"2026-12-07","revenue_usd":1e999}"# + "\n", to: "e.ndjson")
        let result = await workspace.run(["experiment", "report", "--events", "e.ndjson"])
        #expect(result.code == .dataError)
        #expect(result.error.contains("e.ndjson:1:"), "\(result.error)")
        #expect(result.error.contains("revenue_usd has") || result.error.contains("revenue_usd must") || result.error.contains("revenue_usd:"), "\(result.error)")
        #expect(!result.error.contains(":  has the wrong type"), "\(result.error)")
    }

    /// docs/audiences.md: the loader checks "a floor some remaining line item can reach (R19)",
    /// and "in an auction whose country is listed, the country's price replaces ecpm". A US-only
    /// segment with floor 6 over level_end_nitx (ecpm 5.2, ecpm_by_country US 10: 10 in every
    /// auction this segment takes) is refused: "the floor 6.0 USD CPM is above every source's
    /// eCPM (the highest is 5.2) … so no source could ever win".
    @Test("validate: a segment floor reachable through ecpm_by_country is accepted")
    func floorReachableByCountryPrice() async throws {
        let url = Workspace.repositoryRoot.appendingPathComponent("Config/mediation.json")
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var placements = try #require(root["placements"] as? [String: Any])
        var levelEnd = try #require(placements["level_end"] as? [String: Any])
        var sources = try #require(levelEnd["sources"] as? [[String: Any]])
        let index = try #require(sources.firstIndex { $0["id"] as? String == "level_end_nitx" })
        sources[index]["ecpm_by_country"] = ["US": 10]
        levelEnd["sources"] = sources
        levelEnd["segments"] = [["id": "us", "when": ["country": ["in": ["US"]]], "sources": ["level_end_nitx"], "floor": 6], ["id": "default"]]
        placements["level_end"] = levelEnd
        root["placements"] = placements
        let workspace = try Workspace()
        try workspace.write(String(decoding: try JSONSerialization.data(withJSONObject: root), as: UTF8.self), to: "Config/mediation.json")
        let result = await workspace.run(["validate"])
        #expect(result.code == .success, "\(result.error)")
    }
}

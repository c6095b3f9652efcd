import Adapters
import Foundation
import Mediation
import Testing
@testable import MediationCLI

/// `mediate optimize`: learned eCPMs from revenue reports, printed, as JSON, and written.
@Suite("mediate optimize")
struct OptimizeCommandTests {
    static let config = """
    {
      "networks": {
        "nitx": { "adapter": "nitx", "credentials": { "source_code": "SDK-AM-DEMOI" }, "endpoint": "sandbox" },
        "backfill": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1, "latency_ms": 0 } },
        "elo": { "adapter": "elo", "credentials": { "publisher_id": "elo-pub-demo-0001" }, "endpoint": "sandbox" }
      },
      "placements": {
        "home": {
          "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 },
          "sources": [
            { "id": "home_elo", "network": "elo", "ad_unit_id": "elo-home" },
            { "id": "home_nitx", "network": "nitx", "ad_unit_id": "SLOT-HOME", "ecpm": 1.0 },
            { "id": "home_backfill", "network": "backfill", "ad_unit_id": "bf-home", "ecpm": 0.5, "currency": "EUR", "timeout_ms": 1200 }
          ]
        }
      },
      "currency_rates": { "EUR": 1.25 }
    }
    """

    /// home_nitx: 1000 impressions paying 1.20 USD on 03-10 and 1000 paying 1.50 on 03-07 (the
    /// hand-worked case of BayesianECPMTests: μ = 1.29986, sd = 0.0306308). home_backfill: 50
    /// impressions, too few.
    static let report = """
    day,network,ad_unit_id,impressions,revenue,currency
    2026-03-07,nitx,SLOT-HOME,1000,1.5,USD
    2026-03-08,nitx,SLOT-HOME,0,0,USD
    2026-03-09,nitx,SLOT-HOME,0,0,USD
    2026-03-10,nitx,SLOT-HOME,1000,1.2,USD
    2026-03-10,backfill,bf-home,50,0.02,EUR

    """

    static func workspace() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.write(config, to: "Config/mediation.json")
        try workspace.write(report, to: "r.csv")
        return workspace
    }

    @Test("the table: configured, learned, interval, impressions, days, decision")
    func table() async throws {
        let workspace = try Self.workspace()
        let result = await workspace.run(["optimize", "--reports", "r.csv"])
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output.contains("as of 2026-03-10"))
        let nitx = result.output.split(separator: "\n").first { $0.hasPrefix("home ") && $0.contains("home_nitx") }
        #expect(nitx?.contains("1.0000") == true)
        #expect(nitx?.contains("1.2999") == true)
        #expect(nitx?.contains("1.2499–1.3506") == true)
        #expect(nitx?.contains("2000 (1500 eff.)") == true)
        #expect(nitx?.contains("changed") == true)
        #expect(result.output.contains("kept_too_little_data"))
        #expect(!result.output.contains("home_elo"))
    }

    @Test("--json is machine-readable")
    func json() async throws {
        let workspace = try Self.workspace()
        let result = await workspace.run(["optimize", "--reports", "r.csv", "--json", "--as-of", "2026-03-10"])
        #expect(result.code == .success)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["as_of"] as? String == "2026-03-10")
        let items = try #require(object["line_items"] as? [[String: Any]])
        #expect(items.count == 2)
        #expect(items[0]["line_item"] as? String == "home_nitx")
        #expect(abs((items[0]["learned_ecpm"] as? Double ?? 0) - 1.299859263211786) < 1e-9)
        #expect(abs((items[0]["ecpm_sd"] as? Double ?? 0) - 0.0306307893264141) < 1e-9)
        #expect(items[0]["decision"] as? String == "changed")
        #expect(items[1]["decision"] as? String == "kept_too_little_data")
        #expect(abs((items[1]["configured_ecpm"] as? Double ?? 0) - 0.625) < 1e-12) // 0.5 EUR at 1.25
    }

    @Test("--write keeps everything else, adds ecpm_sd and ecpm_impressions, and validates")
    func write() async throws {
        let workspace = try Self.workspace()
        let result = await workspace.run(["optimize", "--config", "Config/mediation.json", "--reports", "r.csv", "--write", "new.json"])
        #expect(result.code == .success, "\(result.error)")
        let text = try String(contentsOf: workspace.directory.appendingPathComponent("new.json"), encoding: .utf8)
        let configuration = try MediationConfiguration(json: text, registry: .standard)
        let sources = configuration.placements[0].sources
        #expect(sources.map(\.id) == ["home_elo", "home_nitx", "home_backfill"])
        #expect(sources[1].eCPM == 1.299859)
        #expect(sources[1].eCPMSD == 0.030631)
        #expect(sources[1].eCPMImpressions == 2000)
        #expect(sources[2].eCPM == 0.5) // kept, untouched
        #expect(sources[2].eCPMSD == nil)
        #expect(sources[2].timeout == .milliseconds(1200))
        #expect(configuration.currencyRates == ["EUR": 1.25])
        #expect(text.contains("\"ecpm\": 1.299859,\n          \"ecpm_sd\": 0.030631,\n          \"ecpm_impressions\": 2000"))
        let validate = await workspace.run(["validate", "--config", "new.json"])
        #expect(validate.code == .success, "\(validate.error)")
    }

    @Test("--write replaces a file whole (temporary file and rename), through a symbolic link that is kept; a directory is exit 73")
    func writeIsAtomic() async throws {
        let workspace = try Self.workspace()
        let directory = workspace.directory
        try workspace.write("old contents", to: "target.json")
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("link.json").path, withDestinationPath: "target.json")
        let result = await workspace.run(["optimize", "--reports", "r.csv", "--write", "link.json"])
        #expect(result.code == .success, "\(result.error)")
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("link.json").path)
        #expect(attributes[.type] as? FileAttributeType == .typeSymbolicLink)
        let text = try String(contentsOf: directory.appendingPathComponent("target.json"), encoding: .utf8)
        #expect(try MediationConfiguration(json: text, registry: .standard).placements.count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("adir"), withIntermediateDirectories: true)
        let intoDirectory = await workspace.run(["optimize", "--reports", "r.csv", "--write", "adir"])
        #expect(intoDirectory.code == .cannotCreate)
        #expect(intoDirectory.error == "mediate: cannot write adir: Is a directory\n")
    }

    @Test("a mistake in a report: exit 65 with file:line:column")
    func badReport() async throws {
        let workspace = try Self.workspace()
        try workspace.write("day,network,ad_unit_id,impressions,revenue,currency\n2026-03-10,nitx,SLOT-HOME,10,-0.5,USD\n", to: "bad.csv")
        let result = await workspace.run(["optimize", "--reports", "r.csv", "bad.csv"])
        #expect(result.code == .dataError)
        #expect(result.error == "mediate: invalid input: bad.csv:2:30: revenue must be a finite number >= 0, found \"-0.5\"\n")
    }

    @Test("a report ending in empty lines is read; an empty line before more rows is exit 65 at its line")
    func trailingEmptyLines() async throws {
        let workspace = try Self.workspace()
        try workspace.write(Self.report + "\n\r\n", to: "trailing.csv")
        let trailing = await workspace.run(["optimize", "--reports", "trailing.csv"])
        #expect(trailing.code == .success, "\(trailing.error)")
        #expect(trailing.output.contains("home_nitx"))
        try workspace.write("day,network,ad_unit_id,impressions,revenue,currency\n2026-03-10,nitx,SLOT-HOME,10,0.5,USD\n\n2026-03-11,nitx,SLOT-HOME,10,0.5,USD\n", to: "middle.csv")
        let middle = await workspace.run(["optimize", "--reports", "middle.csv"])
        #expect(middle.code == .dataError)
        #expect(middle.error == "mediate: invalid input: middle.csv:3:1: an empty line with rows after it (empty lines are skipped only at the end of the file)\n")
    }

    @Test("--events: an engine log reads; a line that is not an event record, or a file with no event, is exit 65 saying where")
    func eventsFileIsAnEngineLog() async throws {
        let workspace = try Self.workspace()
        let watch = await workspace.run(["--placement", "home", "--watch", "--fast", "--duration", "61", "--events", "run.ndjson"])
        #expect(watch.code == .success, "\(watch.error)")
        let logged = await workspace.run(["optimize", "--reports", "r.csv", "--events", "run.ndjson"])
        #expect(logged.code == .success, "\(logged.error)")
        #expect(logged.error.contains("(impression_discrepancy)"), "\(logged.error)")

        // One log given twice is refused as `simulate --replay` refuses it, not counted twice.
        let log = try String(contentsOf: workspace.directory.appendingPathComponent("run.ndjson"), encoding: .utf8)
        let lines = log.split(separator: "\n").count
        try workspace.write(log + log, to: "twice.ndjson")
        let twice = await workspace.run(["optimize", "--reports", "r.csv", "--events", "twice.ndjson"])
        #expect(twice.code == .dataError, "\(twice.output)")
        #expect(twice.error.contains("twice.ndjson:\(lines + 1)") || twice.error.contains("twice.ndjson:\(lines + 2)") || twice.error.contains("twice.ndjson:\(lines + 3)"), "\(twice.error)")
        #expect(twice.error.contains("trace.auction_id: the auction \"") && twice.error.contains("an events log holds each auction once (is one log given twice?)"), "\(twice.error)")

        try workspace.write(#"{"event":"clicked","at_ms":2,"placement":"home"}"# + "\n" + #"{"a":1}"# + "\n", to: "wrong.ndjson")
        let wrong = await workspace.run(["optimize", "--reports", "r.csv", "--events", "wrong.ndjson"])
        #expect(wrong.code == .dataError)
        #expect(wrong.error == "mediate: invalid input: wrong.ndjson:2:1: event is missing; not an engine event record: each line of an events log has event (a string), at_ms (a number) and placement (a string) (mediate --watch --events)\n")

        try workspace.write("\n", to: "empty.ndjson")
        let empty = await workspace.run(["optimize", "--reports", "r.csv", "--events", "empty.ndjson"])
        #expect(empty.code == .dataError)
        #expect(empty.error == "mediate: invalid input: empty.ndjson: the events file holds no events; expected an engine events log, one JSON event record a line (mediate --watch --events)\n")
    }

    @Test("an ad unit id with a quote and a line end cannot forge a warning line")
    func hostileAdUnitWarning() async throws {
        let workspace = try Self.workspace()
        let forged = "X\"\"; (unknown_ad_unit)\nmediate: warning:"
        try workspace.write("day,network,ad_unit_id,impressions,revenue,currency\n2026-03-10,nitx,\"\(forged)\",10,0.01,USD\n", to: "hostile.csv")
        let result = await workspace.run(["optimize", "--reports", "r.csv", "hostile.csv"])
        #expect(result.code == .success, "\(result.error)")
        let warnings = result.error.split(separator: "\n").filter { $0.hasPrefix("mediate: warning:") }
        #expect(warnings == [#"mediate: warning: hostile.csv:2:1: no fixed-price line item of the config has network "nitx" and ad unit "X\"; (unknown_ad_unit)\u{0A}mediate: warning:"; the row is not used (unknown_ad_unit)"#], "\(result.error)")
    }

    @Test("rows of unknown ad units print the first 20 warnings, then one line with how many more")
    func unknownAdUnitWarningsAreCapped() async throws {
        let workspace = try Self.workspace()
        let rows = (0..<1000).map { "2026-03-10,nitx,SLOT-GONE-\($0),10,0.01,USD" }
        try workspace.write((["day,network,ad_unit_id,impressions,revenue,currency"] + rows).joined(separator: "\n") + "\n", to: "gone.csv")
        let result = await workspace.run(["optimize", "--reports", "r.csv", "gone.csv"])
        #expect(result.code == .success, "\(result.error)")
        let warnings = result.error.split(separator: "\n").filter { $0.hasPrefix("mediate: warning:") }
        #expect(warnings.count == 21, "\(warnings.count) warning lines")
        #expect(warnings.first?.hasPrefix("mediate: warning: gone.csv:2:1: no fixed-price line item of the config has network \"nitx\" and ad unit \"SLOT-GONE-0\"") == true)
        #expect(warnings.dropLast().last?.contains("\"SLOT-GONE-19\"") == true)
        #expect(warnings.last == "mediate: warning: … and 980 more rows for unknown ad units (unknown_ad_unit)")
        // --json lists the same 20 and counts the others.
        let json = await workspace.run(["optimize", "--reports", "r.csv", "gone.csv", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect((object["warnings"] as? [Any])?.count == 20)
        #expect((object["warnings_not_listed"] as? [String: Int]) == ["unknown_ad_unit": 980])
    }

    @Test("--reports takes at most 64 MiB, one report or several together: the error names the option and the limit, before anything is read")
    func reportsTogetherAreCapped() async throws {
        let workspace = try Self.workspace()
        // Two files of 40 MiB each (sparse: nothing is written, and nothing should be read).
        for name in ["a.csv", "b.csv"] {
            let url = workspace.directory.appendingPathComponent(name)
            #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: 40 << 20)
            try handle.close()
        }
        let both = await workspace.run(["optimize", "--reports", "a.csv", "b.csv"])
        #expect(both.code == .dataError)
        #expect(both.error == "mediate: --reports: the reports are larger than 64 MiB together (at b.csv); --reports takes at most 64 MiB, one report or several together\n")
        // Either alone is under the limit: read, and refused for what it holds.
        let one = await workspace.run(["optimize", "--reports", "a.csv"])
        #expect(one.code == .dataError)
        #expect(one.error.contains("a.csv:1:1: a control character (byte 0x0)"), "\(one.error)")
    }

    @Test("a report saved as UTF-16 (Excel's \"Unicode Text\") is named as such, with its file: not a control character at 1:4")
    func utf16ReportIsNamed() async throws {
        let workspace = try Self.workspace()
        try workspace.write([0xFF, 0xFE] + Self.report.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, to: "r16.csv")
        let result = await workspace.run(["optimize", "--json", "--reports", "r16.csv"])
        #expect(result.code == .dataError)
        #expect(result.error == "mediate: invalid input: r16.csv: the file is UTF-16 (little-endian) text, not UTF-8; save it as UTF-8 (CSV UTF-8)\n")
    }

    @Test("rows dated after --as-of are counted in one warning at the first of them")
    func rowsAfterAsOfAreReported() async throws {
        let workspace = try Self.workspace()
        let result = await workspace.run(["optimize", "--reports", "r.csv", "--as-of", "2026-03-08"])
        #expect(result.code == .success, "\(result.error)")
        let warnings = result.error.split(separator: "\n").filter { $0.hasPrefix("mediate: warning:") }
        #expect(warnings == ["mediate: warning: r.csv:4:1: 3 report rows are dated after --as-of 2026-03-08 (up to 2026-03-10) and not used; the first is here (after_as_of)"], "\(result.error)")
        let json = await workspace.run(["optimize", "--reports", "r.csv", "--as-of", "2026-03-09", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let codes = (object["warnings"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
        #expect(codes == ["after_as_of"])
        let latest = await workspace.run(["optimize", "--reports", "r.csv", "--as-of", "2026-03-10"])
        #expect(!latest.error.contains("after_as_of"), "\(latest.error)")
    }

    @Test("warnings go to standard error; missing files and bad options have their exit codes")
    func warningsAndExits() async throws {
        let workspace = try Self.workspace()
        try workspace.write("day,network,ad_unit_id,impressions,revenue,currency\n2026-03-10,nitx,SLOT-GONE,10,0.01,USD\n", to: "gone.csv")
        let warned = await workspace.run(["optimize", "--reports", "r.csv", "gone.csv"])
        #expect(warned.code == .success)
        #expect(warned.error.contains("mediate: warning: gone.csv:2:1: no fixed-price line item of the config has network \"nitx\" and ad unit \"SLOT-GONE\"; the row is not used (unknown_ad_unit)"))
        let missing = await workspace.run(["optimize", "--reports", "nope.csv"])
        #expect(missing.code == .noInput)
        #expect(missing.error == "mediate: report file not found: nope.csv\n")
        try FileManager.default.createDirectory(at: workspace.directory.appendingPathComponent("adir"), withIntermediateDirectories: true)
        let directory = await workspace.run(["optimize", "--reports", "adir"])
        #expect(directory.code == .noInput)
        #expect(directory.error == "mediate: cannot read report file adir: it is a directory\n")
        let noReports = await workspace.run(["optimize"])
        #expect(noReports.code == .usage)
        let badDay = await workspace.run(["optimize", "--reports", "r.csv", "--as-of", "2026-02-30"])
        #expect(badDay.code == .usage)
        #expect(badDay.error.contains("--as-of needs a UTC day YYYY-MM-DD from 1970-01-01 to 9999-12-31, got '2026-02-30'"))
        let badConfig = await workspace.run(["optimize", "--reports", "r.csv", "--config", "missing.json"])
        #expect(badConfig.code == .noInput)
        let events = await workspace.run(["optimize", "--reports", "r.csv", "--events", "r.csv"])
        #expect(events.code == .dataError)
        #expect(events.error.hasPrefix("mediate: invalid input: r.csv:1:1: not JSON: "), "\(events.error)")
        let unwritable = await workspace.run(["optimize", "--reports", "r.csv", "--write", "no/such/dir/new.json"])
        #expect(unwritable.code == .cannotCreate)
    }

    @Test("the options parse: --reports takes several files")
    func parsing() throws {
        let invocation = try InvocationParser.parse(["optimize", "--reports", "a.csv", "b.csv", "--json", "--as-of=2026-03-10", "--events", "e.ndjson", "--write", "n.json"])
        guard case .optimize(let options) = invocation else {
            Issue.record("not optimize: \(invocation)")
            return
        }
        #expect(options.reportPaths == ["a.csv", "b.csv"])
        #expect(options.json)
        #expect(options.asOf?.description == "2026-03-10")
        #expect(options.eventsPath == "e.ndjson")
        #expect(options.writePath == "n.json")
        guard case .optimize(let dayOptions) = try InvocationParser.parse(["optimize", "--reports", "a.csv", "--events", "e.ndjson", "--events-start", "2026-03-01"]) else {
            Issue.record("not optimize")
            return
        }
        #expect(dayOptions.eventsStart?.description == "2026-03-01")
        #expect(throws: UsageError(message: "--events-start applies to --events only")) { try InvocationParser.parse(["optimize", "--reports", "a.csv", "--events-start", "2026-03-01"]) }
        #expect(throws: UsageError.self) { try InvocationParser.parse(["optimize", "--reports", "a.csv", "--seed", "1"]) }
        #expect(throws: UsageError.self) { try InvocationParser.parse(["optimize", "--reports", "a.csv", "--json", "--json"]) }
    }

    @Test("--write keeps a wild report's learned fields within the loader's bounds: ecpm_sd at most the ecpm written, ecpm_impressions at most 10^12")
    func writeBoundsWildEstimates() async throws {
        let workspace = try Self.workspace()
        // home_nitx: 200 impressions paying 10^12 USD, a capped change whose estimate's sd is
        // about 10^11; home_backfill: two days of 10^12 impressions each (2 x 10^12 in its window).
        try workspace.write("""
        day,network,ad_unit_id,impressions,revenue,currency
        2026-03-10,nitx,SLOT-HOME,200,1000000000000,USD
        2026-03-09,backfill,bf-home,1000000000000,500000000,EUR
        2026-03-10,backfill,bf-home,1000000000000,500000000,EUR

        """, to: "wild.csv")
        let result = await workspace.run(["optimize", "--config", "Config/mediation.json", "--reports", "wild.csv", "--write", "new.json"])
        #expect(result.code == .success, "\(result.error)")
        let text = try String(contentsOf: workspace.directory.appendingPathComponent("new.json"), encoding: .utf8)
        let configuration = try MediationConfiguration(json: text, registry: .standard)
        let sources = configuration.placements[0].sources
        #expect(sources[1].eCPM == 1.5)
        #expect(sources[1].eCPMSD == 1.414214)
        #expect(sources[1].eCPMImpressions == 200)
        #expect(sources[2].eCPMImpressions == 1_000_000_000_000)
        let validate = await workspace.run(["validate", "--config", "new.json"])
        #expect(validate.code == .success, "\(validate.error)")
    }
}

/// The command of docs/cli-simulate.md on the shipped config and sample report.
@Suite("mediate optimize on the shipped config")
struct OptimizeShippedConfigTests {
    @Test("the sample report learns Nitx and Qartvelo's home banner; the written config validates")
    func shipped() async throws {
        let result = await Workspace.runInRepository(["optimize", "--config", "Config/mediation.json", "--reports", "Config/sample-revenue-report.csv", "--json"])
        #expect(result.code == .success, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let items = try #require(object["line_items"] as? [[String: Any]])
        let decisions = Dictionary(items.map { ($0["line_item"] as? String ?? "", $0["decision"] as? String ?? "") }, uniquingKeysWith: { first, _ in first })
        #expect(decisions["home_banner_nitx"] == "changed")
        #expect(decisions["home_banner_qartvelo"] == "changed")
        #expect(decisions["home_banner_premium"] == "kept_too_little_data")
        #expect(decisions["feed_inline_nitx"] == "kept_too_little_data")
        #expect(result.error.isEmpty)

        let workspace = try Workspace()
        let shipped = try String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/mediation.json"), encoding: .utf8)
        try workspace.write(shipped, to: "Config/mediation.json")
        try workspace.write(try String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/sample-revenue-report.csv"), encoding: .utf8), to: "r.csv")
        let written = await workspace.run(["optimize", "--reports", "r.csv", "--write", "Config/learned.json"])
        #expect(written.code == .success, "\(written.error)")
        let validate = await workspace.run(["validate", "--config", "Config/learned.json"])
        #expect(validate.code == .success, "\(validate.error)")
    }

    @Test("a report with its header only is refused (exit 65), not learned as of 1970; --as-of runs it")
    func headerOnly() async throws {
        let workspace = try OptimizeCommandTests.workspace()
        try workspace.write("day,network,ad_unit_id,impressions,revenue,currency\n", to: "empty.csv")
        let result = await workspace.run(["optimize", "--reports", "empty.csv"])
        #expect(result.code == .dataError)
        #expect(result.error.contains("the reports hold no rows (empty.csv)"), "\(result.error)")
        #expect(!result.output.contains("1970"))
        let dated = await workspace.run(["optimize", "--reports", "empty.csv", "--as-of", "2026-03-10"])
        #expect(dated.code == .success, "\(dated.error)")
        #expect(dated.output.contains("as of 2026-03-10"))
    }

}

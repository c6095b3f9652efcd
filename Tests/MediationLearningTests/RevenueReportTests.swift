import Adapters
import Mediation
import Testing
@testable import MediationLearning

/// The strict revenue report parser and the assembly of reports into line items' data.
@Suite("Revenue reports")
struct RevenueReportTests {
    static let header = "day,network,ad_unit_id,impressions,revenue,currency\n"

    static let configJSON = """
    {
      "networks": {
        "nitx": { "adapter": "nitx", "credentials": { "source_code": "SDK-AM-DEMOI" }, "endpoint": "sandbox" },
        "backfill": { "adapter": "fallback", "endpoint": "sandbox" }
      },
      "placements": {
        "home": {
          "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 },
          "sources": [
            { "id": "home_nitx", "network": "nitx", "ad_unit_id": "SLOT-HOME", "ecpm": 1.4 },
            { "id": "home_backfill", "network": "backfill", "ad_unit_id": "bf-home", "ecpm": 0.5, "currency": "EUR" }
          ]
        }
      },
      "currency_rates": { "EUR": 1.08 }
    }
    """

    static func configuration() throws -> MediationConfiguration {
        try MediationConfiguration(json: configJSON, registry: .standard)
    }

    static func parse(_ text: String, file: String = "r.csv") throws(ReportError) -> [RevenueRow] {
        try RevenueReportParser.parse(Array(text.utf8), file: file, currencyRates: ["EUR": 1.08])
    }

    static func error(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("a BOM, CRLF line ends and RFC 4180 quoting are read; currencies converted once")
    func valid() throws {
        let text = "\u{FEFF}day,network,ad_unit_id,impressions,revenue,currency\r\n2026-03-01,nitx,\"SLOT,\"\"HOME\"\"\",1000,1.5,USD\r\n2026-03-02,backfill,bf-home,200,1e-1,EUR"
        let rows = try Self.parse(text)
        #expect(rows.count == 2)
        #expect(rows[0].adUnitID == "SLOT,\"HOME\"")
        #expect(rows[0].impressions == 1000)
        #expect(rows[0].revenueUSD == 1.5)
        #expect(rows[1].revenue == 0.1)
        #expect(abs(rows[1].revenueUSD - 0.108) < 1e-12)
        #expect(rows[1].location.description == "r.csv:3:1")
    }

    @Test("empty lines at the end of the file are skipped, any number, LF or CRLF; a quoted empty field is not an empty line")
    func trailingEmptyLines() throws {
        let row = "2026-03-01,nitx,SLOT-HOME,3,1,USD"
        for ending in ["\n", "\n\n", "\r\n\r\n", "\n\r\n\n\n", "\r\n\n"] {
            let rows = try Self.parse(Self.header + row + ending)
            #expect(rows.count == 1, "\(ending.debugDescription)")
            #expect(rows.first?.location.description == "r.csv:2:1")
        }
        #expect(try Self.parse(Self.header + "\n\n").isEmpty)
        #expect(try Self.parse("\u{FEFF}" + Self.header + row + "\r\n\r\n").count == 1)
        #expect(Self.error(Self.header + row + "\n\"\"\n") == "r.csv:3:1: expected 6 fields (day,network,ad_unit_id,impressions,revenue,currency), found 1")
        #expect(Self.error("\n\n") == "r.csv:1:1: the report is empty; expected the header day,network,ad_unit_id,impressions,revenue,currency")
    }

    @Test("revenue on a row with 0 impressions is an error at its column; 0 and 0 is a row")
    func revenueWithoutImpressions() throws {
        let header = "day,network,ad_unit_id,impressions,revenue,currency\n"
        let message = try #require(Self.error(header + "2026-03-10,nitx,SLOT-HOMEBANNER,0,7.2,USD\n"))
        #expect(message.hasPrefix("r.csv:2:35:"), "\(message)")
        #expect(message.contains("revenue must be 0 on a row with 0 impressions"))
        #expect(try Self.parse(header + "2026-03-10,nitx,SLOT-HOMEBANNER,0,0,USD\n").count == 1)
    }

    @Test("each mistake names file:line:column")
    func errors() {
        let h = Self.header
        #expect(Self.error(h + "2026-03-01,nitx,SLOT-HOME,10,-1,USD\n") == "r.csv:2:30: revenue must be a finite number >= 0, found \"-1\"")
        #expect(Self.error(h + "2026-03-01,nitx,SLOT-HOME,10,nan,USD\n") == "r.csv:2:30: revenue must be a finite number >= 0, found \"nan\"")
        #expect(Self.error(h + "2026-03-01,nitx,SLOT-HOME,10,1e400,USD\n") == "r.csv:2:30: revenue must be a finite number >= 0, found \"1e400\"")
        #expect(Self.error(h + "2026-03-01,nitx,SLOT-HOME,1.5,1,USD\n") == "r.csv:2:27: impressions must be a whole number from 0 to 1000000000000, found \"1.5\"")
        #expect(Self.error(h + "2026-03-01,nitx,SLOT-HOME,-3,1,USD\n") == "r.csv:2:27: impressions must be a whole number from 0 to 1000000000000, found \"-3\"")
        #expect(Self.error(h + "2026-02-30,nitx,SLOT-HOME,3,1,USD\n") == "r.csv:2:1: day must be a UTC day YYYY-MM-DD from 1970-01-01 to 9999-12-31, found \"2026-02-30\"")
        #expect(Self.error(h + "1969-12-31,nitx,SLOT-HOME,3,1,USD\n") == "r.csv:2:1: day must be a UTC day YYYY-MM-DD from 1970-01-01 to 9999-12-31, found \"1969-12-31\"")
        #expect(Self.error("\u{FEFF}\u{FEFF}" + h + "2026-03-01,nitx,SLOT-HOME,3,1,USD\n") == "r.csv:1:1: a second byte order mark (EF BB BF) after the first; a report starts with at most one")
        #expect(Self.error("\u{FEFF}" + h + "2026-03-01,nitx,SLOT-HOME,3,1,USD\n") == nil)
        #expect(Self.error(h + "2026-03-01,nitx,SLOT-HOME,3,1,GBP\n") == "r.csv:2:31: unknown currency \"GBP\": the config's currency_rates has no rate for it (USD per unit)")
        #expect(Self.error(h + "2026-03-01,nitx,SLOT-HOME,3,1\n") == "r.csv:2:1: expected 6 fields (day,network,ad_unit_id,impressions,revenue,currency), found 5")
        #expect(Self.error(h + "\n2026-03-01,nitx,SLOT-HOME,3,1,USD\n") == "r.csv:2:1: an empty line with rows after it (empty lines are skipped only at the end of the file)")
        #expect(Self.error(h + "2026-03-01,nitx,SLOT-HOME,3,1,USD\r\n\r\n\r\n2026-03-02,nitx,SLOT-HOME,3,1,USD") == "r.csv:3:1: an empty line with rows after it (empty lines are skipped only at the end of the file)")
        #expect(Self.error(h + "2026-03-01,nitx,SLOT-HOME,3,1,USD\n\r") == "r.csv:3:1: a carriage return must be followed by a line feed")
        #expect(Self.error(h + "2026-03-01,nitx,SLOT-HOME,3,1,USD\n\n\r") == "r.csv:3:1: an empty line with rows after it (empty lines are skipped only at the end of the file)")
        #expect(Self.error("day,network,ad_unit,impressions,revenue,currency\n") == "r.csv:1:13: the header must be day,network,ad_unit_id,impressions,revenue,currency or day,network,ad_unit_id,country,impressions,revenue,currency; field 3 must be \"ad_unit_id\"")
        #expect(Self.error("") == "r.csv:1:1: the report is empty; expected the header day,network,ad_unit_id,impressions,revenue,currency")
        #expect(Self.error(h + "2026-03-01,\"nitx,SLOT-HOME,3,1,USD\n") == "r.csv:2:12: the quoted field is never closed")
        #expect(Self.error(h + "2026-03-01,ni\"tx,SLOT-HOME,3,1,USD\n") == "r.csv:2:14: a double quote inside an unquoted field (quote the whole field and double the quote)")
        #expect(Self.error(h + "2026-03-01,\"nitx\"x,SLOT-HOME,3,1,USD\n") == "r.csv:2:18: unexpected text after a closing quote (a field ends at a comma or a line end)")
        #expect(Self.error(h + "2026-03-01,nitx\r,SLOT-HOME,3,1,USD\n") == "r.csv:2:16: a carriage return must be followed by a line feed")
    }

    @Test("a report saved as UTF-16 or UTF-32, with or without a byte order mark, is refused as such, not as a control character; a UTF-8 BOM is read")
    func wideEncodingsAreNamed() throws {
        let text = Self.header + "2026-03-01,nitx,SLOT-HOME,3,1,USD\n"
        let le16 = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let be16 = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let le32 = text.unicodeScalars.flatMap { scalar in (0..<4).map { UInt8((scalar.value >> (8 * UInt32($0))) & 0xFF) } }
        let be32 = text.unicodeScalars.flatMap { scalar in (0..<4).reversed().map { UInt8((scalar.value >> (8 * UInt32($0))) & 0xFF) } }
        for (bytes, encoding) in [
            (le16, "UTF-16 (little-endian)"), ([0xFF, 0xFE] + le16, "UTF-16 (little-endian)"),
            (be16, "UTF-16 (big-endian)"), ([0xFE, 0xFF] + be16, "UTF-16 (big-endian)"),
            (le32, "UTF-32 (little-endian)"), ([0xFF, 0xFE, 0, 0] + le32, "UTF-32 (little-endian)"),
            (be32, "UTF-32 (big-endian)"), ([0, 0, 0xFE, 0xFF] + be32, "UTF-32 (big-endian)"),
        ] {
            #expect(throws: ReportError(ReportLocation(file: "r.csv"), "the file is \(encoding) text, not UTF-8; save it as UTF-8 (CSV UTF-8)"), "\(bytes.prefix(4))") {
                try RevenueReportParser.parse(bytes, file: "r.csv", currencyRates: [:])
            }
        }
        #expect(try RevenueReportParser.parse([0xEF, 0xBB, 0xBF] + Array(text.utf8), file: "r.csv", currencyRates: [:]).count == 1)
    }

    @Test("garbage never traps: binary data, a huge line, invalid UTF-8")
    func garbage() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 0..<300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = try? RevenueReportParser.parse(bytes, file: "g.csv", currencyRates: [:])
            _ = try? RevenueReportParser.parse(Array(Self.header.utf8) + bytes, file: "g.csv", currencyRates: [:])
        }
        #expect(Self.error(Self.header + "2026-03-01,\u{0}nitx,S,1,1,USD\n") == "r.csv:2:12: a control character (byte 0x0) where text was expected; is this a CSV file?")
        let huge = Self.header + String(repeating: "x", count: 100_000) + "\n"
        #expect(Self.error(huge) == "r.csv:2:1: the record is longer than 4096 bytes")
        let invalid = Array(Self.header.utf8) + [0x32, 0x30, 0xC3, 0x28] + Array(",n,a,1,1,USD\n".utf8)
        #expect(throws: ReportError.self) { try RevenueReportParser.parse(invalid, file: "r.csv", currencyRates: [:]) }
    }

    @Test("reports are added up as they are read: what is kept is an entry per ad unit and day, whatever the rows of unknown ad units")
    func aggregationKeepsPerKeyState() throws {
        let configuration = try Self.configuration()
        // Both line items' ad units on 30 days, and 50,000 rows of ad units the config does not
        // have, made a chunk at a time (never held whole).
        var known = Self.header
        for day in 1...30 {
            let date = "2026-03-\(day < 10 ? "0" : "")\(day)"
            known += "\(date),nitx,SLOT-HOME,10,0.01,USD\n\(date),backfill,bf-home,10,0.01,EUR\n"
        }
        var chunks = 0
        let unknown = RevenueReportInput(file: "u.csv") { () throws(ReportError) -> [UInt8]? in
            guard chunks < 50 else { return nil }
            defer { chunks += 1 }
            var chunk = chunks == 0 ? Self.header : ""
            for row in 0..<1000 { chunk += "2026-03-01,nitx,GONE-\(chunks * 1000 + row),10,0.01,USD\n" }
            return Array(chunk.utf8)
        }
        let assembly = try ReportAssembly(reading: [RevenueReportInput(file: "k.csv", bytes: Array(known.utf8)), unknown], configuration: configuration)
        #expect(assembly.rowCount == 50_060)
        #expect(assembly.warningCounts[.unknownAdUnit] == 50_000)
        #expect(assembly.warnings.count == ReportAssembly.listedWarningsPerKind)
        // 60 ad-unit days (an observation, where its row is and its day's scope, each), 30 days of each of the 2
        // networks, 20 listed warnings: nothing per row.
        #expect(assembly.retainedEntries == 60 * 3 + 60 + 20)
        #expect(assembly.inputs.map(\.observations.count) == [30, 30])
    }

    @Test("the reports together are at most 64 MiB: the one that goes past is refused before it is parsed")
    func reportsTogetherAreCapped() throws {
        let configuration = try Self.configuration()
        let small = RevenueReportInput(file: "a.csv", bytes: Array((Self.header + "2026-03-01,nitx,SLOT-HOME,10,0.01,USD\n").utf8))
        let large = RevenueReportInput(file: "b.csv", bytes: [UInt8](repeating: UInt8(ascii: "x"), count: RevenueReportParser.maximumSize))
        #expect {
            _ = try ReportAssembly(reading: [small, large], configuration: configuration)
        } throws: { error in
            (error as? ReportError)?.description == "b.csv: the reports are larger than 64 MiB together (the limit of one report or of several)"
        }
    }

    @Test("warnings: an unknown ad unit, a missing day")
    func warnings() throws {
        let configuration = try Self.configuration()
        let text = Self.header + "2026-03-01,nitx,SLOT-HOME,10,0.01,USD\n2026-03-03,nitx,SLOT-HOME,10,0.01,USD\n2026-03-01,nitx,SLOT-OTHER,10,0.01,USD\n"
        let assembly = try ReportAssembly(reports: [("n.csv", Array(text.utf8))], configuration: configuration)
        #expect(assembly.warnings.map(\.code) == [.unknownAdUnit, .missingDay])
        #expect(assembly.warnings[0].location.description == "n.csv:4:1")
        #expect(assembly.warnings[1].message.contains("2026-03-02"))
        #expect(assembly.inputs.map(\.lineItemID) == ["home_nitx", "home_backfill"])
        #expect(assembly.inputs[0].observations.count == 2)
        #expect(abs(assembly.inputs[1].configuredECPM - 0.54) < 1e-12)
        #expect(assembly.latestDay?.description == "2026-03-03")
    }

    @Test("an ad unit id with a quote, a line end or a control character is quoted escaped: its warning and its error stay one line")
    func hostileAdUnitIDs() throws {
        let configuration = try Self.configuration()
        // In the CSV, a quoted field: doubled quotes, a line end, a tab, a line separator, a
        // right-to-left override and a backslash.
        let field = "\"S\"\"; used\n(unknown_ad_unit)\t\u{2028}\u{202E}\\\""
        let text = Self.header + "2026-03-01,nitx,\(field),10,0.01,USD\n"
        let assembly = try ReportAssembly(reports: [("n.csv", Array(text.utf8))], configuration: configuration)
        #expect(assembly.warnings.map(\.code) == [.unknownAdUnit])
        let line = try #require(assembly.warnings.first).description
        #expect(line == #"n.csv:2:1: no fixed-price line item of the config has network "nitx" and ad unit "S\"; used\u{0A}(unknown_ad_unit)\u{09}\u{2028}\u{202E}\\"; the row is not used (unknown_ad_unit)"#)
        #expect(!line.unicodeScalars.contains { DisplayText.needsEscape($0) })
        // Given twice, it is warned about twice: a row no line item uses is counted, not kept,
        // so it is not checked for repeats.
        let twice = text + "2026-03-01,nitx,\(field),10,0.01,USD\n"
        let again = try ReportAssembly(reports: [("n.csv", Array(twice.utf8))], configuration: configuration)
        #expect(again.warnings.map(\.description) == [line, line.replacingOccurrences(of: "n.csv:2:1", with: "n.csv:4:1")])
    }

    @Test("revenue too large for the estimate's sums is refused at its file:line:column, not learned as inf")
    func hugeRevenueIsRefused() throws {
        let h = Self.header
        #expect(Self.error(h + "2026-03-01,nitx,SLOT-HOME,10,1e306,USD\n") == "r.csv:2:30: revenue must be a finite number from 0 to 1000000000000 once converted to USD, found \"1e306\" USD")
        #expect(Self.error(h + "2026-03-01,backfill,bf-home,10,1e12,EUR\n") == "r.csv:2:32: revenue must be a finite number from 0 to 1000000000000 once converted to USD, found \"1e12\" EUR")
        // At the limit, on every day of the window, the estimate stays finite.
        let configuration = try Self.configuration()
        var text = h
        for day in 1...28 { text += "2026-03-\(day < 10 ? "0" : "")\(day),nitx,SLOT-HOME,1,1e12,USD\n" }
        let assembly = try ReportAssembly(reports: [("r.csv", Array(text.utf8))], configuration: configuration)
        for estimate in BayesianECPM().estimate(assembly.inputs, asOf: UTCDay("2026-03-28")!) {
            #expect(estimate.mean.isFinite && estimate.standardDeviation.isFinite && estimate.upper.isFinite && estimate.newECPM.isFinite)
        }
    }

    @Test("missing days are one warning per gap: two rows 8000 years apart give one warning, not millions")
    func missingDaysAreRanges() throws {
        let configuration = try Self.configuration()
        let text = Self.header + "1970-01-01,nitx,SLOT-HOME,10,0.01,USD\n9999-12-31,nitx,SLOT-HOME,10,0.01,USD\n2026-03-05,nitx,SLOT-HOME,10,0.01,USD\n2026-03-07,nitx,SLOT-HOME,10,0.01,USD\n"
        let assembly = try ReportAssembly(reports: [("n.csv", Array(text.utf8))], configuration: configuration)
        #expect(assembly.warnings.map(\.message) == [
            "network \"nitx\" has no rows from 1970-01-02 to 2026-03-04 (20516 days), between its first day 1970-01-01 and its last 9999-12-31",
            "network \"nitx\" has no row on 2026-03-06, between its first day 1970-01-01 and its last 9999-12-31",
            "network \"nitx\" has no rows from 2026-03-08 to 9999-12-30 (2912376 days), between its first day 1970-01-01 and its last 9999-12-31",
        ])
    }

    static func shownEvents(_ count: Int, lineItem: String = "home_nitx") -> String {
        let line = #"{"ad":{"adID":"x","configVersion":0,"creativeID":"c","eCPM":1.4,"format":"banner","lineItemID":"\#(lineItem)","network":"nitx","placementID":"home","size":{"height":50,"width":320}},"at_ms":1,"event":"shown","placement":"home","revenue_usd":0.0014}"#
        return String(repeating: line + "\n", count: count) + #"{"at_ms":2,"event":"clicked","placement":"home"}"# + "\n"
    }

    @Test("the app's impressions more than 10 % from the network's are an impression_discrepancy")
    func discrepancy() throws {
        let configuration = try Self.configuration()
        let report = Array((Self.header + "2026-03-01,nitx,SLOT-HOME,60,0.01,USD\n2026-03-02,nitx,SLOT-HOME,40,0.01,USD\n").utf8)
        func codes(_ shown: Int) throws -> [ReportWarning.Code] {
            try ReportAssembly(reports: [("n.csv", report)], events: ("e.ndjson", Array(Self.shownEvents(shown).utf8)), configuration: configuration).warnings.map(\.code)
        }
        #expect(try codes(89) == [.impressionDiscrepancy]) // 11 % fewer
        #expect(try codes(90) == []) // 10 %: not over
        #expect(try codes(110) == [])
        #expect(try codes(111) == [.impressionDiscrepancy])
        #expect(ReportAssembly.isDiscrepancy(app: 1, network: 0))
        #expect {
            _ = try ReportAssembly(reports: [("n.csv", report)], events: ("e.ndjson", Array("{\"event\":\"shown\",\"at_ms\":1,\"placement\":\"home\"}\nnot json\n".utf8)), configuration: configuration)
        } throws: { error in
            (error as? ReportError)?.description == "e.ndjson:1:1: a shown event needs its ad's placementID and lineItemID (strings): ad is missing"
        }
    }
}

/// What an events file is: the engine's event records, one a line.
@Suite("Revenue reports: the events file")
struct EventsFileTests {
    static let record = "not an engine event record: each line of an events log has event (a string), at_ms (a number) and placement (a string) (mediate --watch --events)"

    static func error(_ text: String) -> String? {
        do {
            _ = try AppImpressions.count(Array(text.utf8), file: "e.ndjson")
            return nil
        } catch {
            return error.description
        }
    }

    @Test("a line that is JSON but not an event record is refused at its file:line:column, naming the field", arguments: [
        (#"{"a":1}"#, "event is missing; \(record)"),
        (#"{"event":1,"at_ms":0,"placement":"home"}"#, "event is not a string; \(record)"),
        (#"{"event":"clicked","placement":"home"}"#, "at_ms is missing; \(record)"),
        (#"{"event":"clicked","at_ms":"0","placement":"home"}"#, "at_ms is not a number; \(record)"),
        (#"{"event":"clicked","at_ms":true,"placement":"home"}"#, "at_ms is not a number; \(record)"),
        (#"{"event":"clicked","at_ms":0,"placement":null}"#, "placement is null, not a string; \(record)"),
        (#"{"event":"shown","at_ms":0,"placement":"home","ad":{"placementID":"home","lineItemID":5}}"#, "a shown event needs its ad's placementID and lineItemID (strings): ad.lineItemID is not a string"),
        (#"{"event":"shown","at_ms":0,"placement":"home","ad":[]}"#, "a shown event needs its ad's placementID and lineItemID (strings): ad is not an object"),
        (#"[{"event":"clicked","at_ms":0,"placement":"home"}]"#, "a JSON array, not an object; each line of an events log is one JSON object (an engine events file, mediate --watch --events)"),
        ("day,network", "not JSON: unexpected character 'd'; expected a value (line 1, column 1) at $ (an engine events file, mediate --watch --events)"),
        (#"{"event":"clicked","event":"shown","at_ms":0,"placement":"home"}"#, "the key \"event\" appears twice at event; each key appears once in an event record (an engine events file, mediate --watch --events)"),
    ])
    func notAnEventRecord(_ line: String, _ message: String) {
        let good = RevenueReportTests.shownEvents(1)
        #expect(Self.error(good + "\r\n" + line + "\n") == "e.ndjson:4:1: \(message)")
    }

    @Test("events of names the reader does not use are skipped, with fields of their own")
    func unknownEventNames() throws {
        let text = #"{"event":"a_future_kind","at_ms":5,"placement":"","config_version":3,"extra":{"x":[1,null]}}"# + "\n" + RevenueReportTests.shownEvents(2)
        #expect(try AppImpressions.count(Array(text.utf8), file: "e.ndjson") == [AppImpressions.Key(placementID: "home", lineItemID: "home_nitx"): 2])
        #expect(try AppImpressions.count(Array(#"{"event":"clicked","at_ms":2,"placement":"home"}"#.utf8), file: "e.ndjson").isEmpty)
    }

    @Test("a file with no event at all is refused and says so", arguments: ["", "\n", "\r\n\n"])
    func noEvents(_ text: String) throws {
        #expect(Self.error(text) == "e.ndjson: the events file holds no events; expected an engine events log, one JSON event record a line (mediate --watch --events)")
        let start = try #require(UTCDay("2026-03-01"))
        #expect(throws: ReportError.self) { try AppImpressions.countByDay(Array(text.utf8), file: "e.ndjson", start: start) }
    }
}

/// `--events-start`: the app's impressions per line item and day.
@Suite("Revenue reports: impressions per day")
struct ImpressionsPerDayTests {
    static func shown(atMilliseconds: Double) -> String {
        #"{"ad":{"adID":"x","configVersion":0,"creativeID":"c","eCPM":1.4,"format":"banner","lineItemID":"home_nitx","network":"nitx","placementID":"home","size":{"height":50,"width":320}},"at_ms":\#(atMilliseconds),"event":"shown","placement":"home"}"#
    }

    @Test("events fall on start + floor(at_ms / 1 day); each day is compared on its own")
    func perDay() throws {
        let configuration = try RevenueReportTests.configuration()
        // The network: 60 on 03-01 and 40 on 03-02 (100 in all). The app: 40 on 03-01 and 60
        // on 03-02: the totals agree, each day is a third or more apart.
        let report = Array((RevenueReportTests.header + "2026-03-01,nitx,SLOT-HOME,60,0.01,USD\n2026-03-02,nitx,SLOT-HOME,40,0.01,USD\n").utf8)
        let events = String(repeating: Self.shown(atMilliseconds: 1000) + "\n", count: 40) + String(repeating: Self.shown(atMilliseconds: 86_400_000 + 5) + "\n", count: 60)
        let start = try #require(UTCDay("2026-03-01"))
        let perDay = try ReportAssembly(reports: [("n.csv", report)], events: ("e.ndjson", Array(events.utf8)), eventsStart: start, configuration: configuration)
        #expect(perDay.warnings.map(\.code) == [.impressionDiscrepancy, .impressionDiscrepancy])
        #expect(perDay.warnings[0].message.contains("on 2026-03-01: the app counted 40 impressions for its ad unit, the network reported 60"))
        #expect(perDay.warnings[1].message.contains("on 2026-03-02: the app counted 60"))
        let total = try ReportAssembly(reports: [("n.csv", report)], events: ("e.ndjson", Array(events.utf8)), configuration: configuration)
        #expect(total.warnings.isEmpty)
        let counts = try AppImpressions.countByDay(Array(events.utf8), file: "e.ndjson", start: start)
        #expect(counts[AppImpressions.Key(placementID: "home", lineItemID: "home_nitx")] == [start: 40, start.adding(days: 1): 60])
        #expect(throws: ReportError.self) {
            try AppImpressions.countByDay(Array(Self.shown(atMilliseconds: -1).utf8), file: "e.ndjson", start: start)
        }
        // A finite, positive instant past the bound is refused with the bound, not as "not >= 0".
        let far = #expect(throws: ReportError.self) {
            try AppImpressions.countByDay(Array(Self.shown(atMilliseconds: 9_000_000_000_000_000).utf8), file: "e.ndjson", start: start)
        }
        #expect(far?.description.contains("a finite number from 0 to under 10^15") == true, "\(far?.description ?? "")")
    }
}

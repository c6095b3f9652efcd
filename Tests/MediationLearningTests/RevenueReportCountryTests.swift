import Mediation
import Testing
@testable import MediationLearning

/// The revenue report's optional `country` column, and rows repeated by overlapping exports.
@Suite("Revenue reports: countries and repeated rows")
struct RevenueReportCountryTests {
    static let countryHeader = "day,network,ad_unit_id,country,impressions,revenue,currency\n"

    static func assembly(_ reports: [(String, String)]) throws(ReportError) -> ReportAssembly {
        let configuration: MediationConfiguration
        do {
            configuration = try RevenueReportTests.configuration()
        } catch {
            throw ReportError(ReportLocation(file: "config"), "\(error)")
        }
        return try ReportAssembly(reports: reports.map { ($0.0, Array($0.1.utf8)) }, configuration: configuration)
    }

    static func failure(_ reports: [(String, String)]) -> String? {
        do {
            _ = try assembly(reports)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("a country column gives each row its country; an empty one is traffic of no known country; without the column a row covers every country")
    func countryColumn() throws {
        let text = Self.countryHeader + "2026-03-01,nitx,SLOT-HOME,US,1000,4.2,USD\n2026-03-01,nitx,SLOT-HOME,IN,500,0.3,USD\n2026-03-01,nitx,SLOT-HOME,,7,0.01,USD\n"
        let rows = try RevenueReportParser.parse(Array(text.utf8), file: "c.csv", currencyRates: [:])
        #expect(rows.map(\.country) == ["US", "IN", RevenueRow.unknownCountry])
        #expect(rows.map(\.impressions) == [1000, 500, 7])
        #expect(rows[1].revenueUSD == 0.3)
        #expect(rows[0].location.description == "c.csv:2:1")
        let plain = try RevenueReportTests.parse(RevenueReportTests.header + "2026-03-01,nitx,SLOT-HOME,1000,4.2,USD\n")
        #expect(plain.map(\.country) == [nil])
        let assembly = try Self.assembly([("c.csv", text)])
        #expect(assembly.inputs[0].observations.map(\.country) == ["US", "IN", ""])
        #expect(assembly.warnings.isEmpty)
    }

    @Test("a bad country is refused at its column; the fields after it are located in their own columns")
    func badCountry() {
        for code in ["us", "USA", "U", "1A", "Ü"] {
            let message = RevenueReportTests.error(Self.countryHeader + "2026-03-01,nitx,SLOT-HOME,\(code),10,0.01,USD\n")
            #expect(message?.hasPrefix("r.csv:2:27: country must be an upper-case ISO 3166-1 alpha-2 code") == true, "\(code): \(message ?? "accepted")")
        }
        #expect(RevenueReportTests.error(Self.countryHeader + "2026-03-01,nitx,SLOT-HOME,US,-1,0.01,USD\n")?.hasPrefix("r.csv:2:30: impressions must be") == true)
        #expect(RevenueReportTests.error(Self.countryHeader + "2026-03-01,nitx,SLOT-HOME,US,10,0.01,XXX\n")?.hasPrefix("r.csv:2:38: unknown currency") == true)
        #expect(RevenueReportTests.error(Self.countryHeader + "2026-03-01,nitx,SLOT-HOME,10,0.01,USD\n") == "r.csv:2:1: expected 7 fields (day,network,ad_unit_id,country,impressions,revenue,currency), found 6")
    }

    @Test("a row repeated exactly (same key, same numbers), in one report or across two, is a warning and counted once")
    func exactRepeatIsAWarning() throws {
        let a = Self.countryHeader + "2026-03-01,nitx,SLOT-HOME,US,10,0.01,USD\n2026-03-01,nitx,SLOT-HOME,IN,10,0.01,USD\n"
        let b = Self.countryHeader + "2026-03-02,nitx,SLOT-HOME,US,10,0.01,USD\n2026-03-01,nitx,SLOT-HOME,US,10,0.01,USD\n"
        let assembly = try Self.assembly([("a.csv", a), ("b.csv", b)])
        #expect(assembly.warnings.map(\.description) == [
            "b.csv:3:1: 2026-03-01, network \"nitx\", ad unit \"SLOT-HOME\", country \"US\" repeats a.csv:2:1 exactly; counted once (duplicate_row)",
        ])
        #expect(assembly.inputs[0].observations.map(\.impressions) == [10, 10, 10])
        let plain = RevenueReportTests.header + "2026-03-01,nitx,SLOT-HOME,10,0.01,USD\n"
        let twice = try Self.assembly([("a.csv", plain), ("b.csv", plain)])
        #expect(twice.warnings.map(\.code) == [.duplicateRow])
        #expect(twice.inputs[0].observations.count == 1)
    }

    @Test("the same key with other numbers stays an error naming both places")
    func conflictingRepeatIsAnError() {
        let a = RevenueReportTests.header + "2026-03-01,nitx,SLOT-HOME,10,0.01,USD\n"
        let b = RevenueReportTests.header + "2026-03-02,nitx,SLOT-HOME,10,0.01,USD\n2026-03-01,nitx,SLOT-HOME,12,0.01,USD\n"
        #expect(Self.failure([("a.csv", a), ("b.csv", b)]) == "b.csv:3:1: duplicate row: 2026-03-01, network \"nitx\", ad unit \"SLOT-HOME\" is already reported at a.csv:2:1 with other numbers (10 impressions and 0.01 USD there, 12 and 0.01 here)")
        let c = Self.countryHeader + "2026-03-01,nitx,SLOT-HOME,US,10,0.01,USD\n2026-03-01,nitx,SLOT-HOME,US,10,0.02,USD\n"
        #expect(Self.failure([("c.csv", c)]) == "c.csv:3:1: duplicate row: 2026-03-01, network \"nitx\", ad unit \"SLOT-HOME\", country \"US\" is already reported at c.csv:2:1 with other numbers (10 impressions and 0.01 USD there, 10 and 0.02 here)")
    }

    @Test("a day of an ad unit reported for every country and per country is an error naming both places")
    func everyCountryAndPerCountryDoNotMix() {
        let a = RevenueReportTests.header + "2026-03-01,nitx,SLOT-HOME,10,0.01,USD\n"
        let b = Self.countryHeader + "2026-03-01,nitx,SLOT-HOME,US,10,0.01,USD\n"
        #expect(Self.failure([("a.csv", a), ("b.csv", b)]) == "b.csv:2:1: 2026-03-01, network \"nitx\", ad unit \"SLOT-HOME\", country \"US\": a.csv:2:1 reports this ad unit and day for every country (no country column), this row per country; one of them would count the same impressions twice")
    }
}

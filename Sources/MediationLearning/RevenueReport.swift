import Foundation
import Mediation

/// One row of a revenue report: what a network says one of its ad units earned on one UTC day.
public struct RevenueRow: Hashable, Sendable {
    /// The UTC day.
    public var day: UTCDay
    /// The network id (a key of the config's `networks`).
    public var network: String
    /// The network's own id for the ad unit (a line item's `ad_unit_id`).
    public var adUnitID: String
    /// Impressions the network counted.
    public var impressions: Int
    /// Revenue in ``currency``.
    public var revenue: Double
    /// The ISO 4217 currency of ``revenue``.
    public var currency: String
    /// Revenue in USD, converted once with the config's `currency_rates` (USD is 1).
    public var revenueUSD: Double
    /// Where the row is (its first column).
    public var location: ReportLocation
    /// The country the row covers: an upper-case ISO 3166-1 alpha-2 code, ``unknownCountry``
    /// (an empty `country` field: traffic whose country the app did not know), or `nil` for a
    /// report without the `country` column (the row covers every country).
    public var country: String?

    /// The ``country`` of a row whose `country` field is empty: traffic of no known country.
    public static let unknownCountry = ""

    /// Creates a row.
    public init(day: UTCDay, network: String, adUnitID: String, country: String? = nil, impressions: Int, revenue: Double, currency: String, revenueUSD: Double, location: ReportLocation) {
        self.day = day
        self.network = network
        self.adUnitID = adUnitID
        self.country = country
        self.impressions = impressions
        self.revenue = revenue
        self.currency = currency
        self.revenueUSD = revenueUSD
        self.location = location
    }
}

/// A strict parser of revenue reports: CSV (RFC 4180 quoting, LF or CRLF line ends, an
/// optional UTF-8 byte order mark, empty lines skipped at the very end of the file only) with
/// exactly the header `day,network,ad_unit_id,impressions,revenue,currency`, or
/// `day,network,ad_unit_id,country,impressions,revenue,currency` (rows per country). The first mistake
/// (an empty line before more rows is one) refuses the file with its `file:line:column`; no
/// input traps (binary data, huge lines, invalid UTF-8).
public enum RevenueReportParser {
    /// The header, field by field.
    public static let header = ["day", "network", "ad_unit_id", "impressions", "revenue", "currency"]
    /// The header of a report with rows per country, field by field.
    public static let countryHeader = ["day", "network", "ad_unit_id", "country", "impressions", "revenue", "currency"]
    /// The largest report read: 64 MiB.
    public static let maximumSize = 64 << 20
    /// The longest record: 4096 bytes.
    public static let maximumRecordLength = 4096
    /// The most impressions one row may count (10^12).
    public static let maximumImpressions = 1_000_000_000_000
    /// The most revenue one row may count, in USD once converted (10^12): the estimate sums
    /// rows and multiplies them by 1000, so a larger finite value could overflow to infinity.
    public static let maximumRevenueUSD = 1e12

    /// Parses a report.
    /// - Parameters:
    ///   - bytes: the file's bytes.
    ///   - file: the file's name for locations.
    ///   - currencyRates: USD per unit of each currency besides USD (the config's `currency_rates`).
    /// - Returns: the rows in file order.
    /// - Throws: ``ReportError`` at the first mistake.
    public static func parse(_ bytes: [UInt8], file: String, currencyRates: [String: Double]) throws(ReportError) -> [RevenueRow] {
        guard bytes.count <= maximumSize else {
            throw ReportError(ReportLocation(file: file), "the report is larger than \(maximumSize >> 20) MiB")
        }
        var rows: [RevenueRow] = []
        try forEachRow(RevenueReportInput(file: file, bytes: bytes), currencyRates: currencyRates) { (row: RevenueRow) throws(ReportError) in
            rows.append(row)
        }
        return rows
    }

    /// Reads a report a record at a time and calls `body` with each row, in file order: what
    /// is held is one record and one chunk of the input, never the whole report.
    /// - Parameters:
    ///   - input: the report.
    ///   - currencyRates: USD per unit of each currency besides USD.
    ///   - body: what to do with each row.
    /// - Throws: ``ReportError`` at the first mistake (or what `body` or the input throws).
    static func forEachRow(_ input: RevenueReportInput, currencyRates: [String: Double], _ body: (RevenueRow) throws(ReportError) -> Void) throws(ReportError) {
        let file = input.file
        var reader = CSVReader(file: file, maximumRecordLength: maximumRecordLength, read: input.read)
        guard let first = try reader.next() else {
            throw ReportError(ReportLocation(file: file, line: 1, column: 1), "the report is empty; expected the header \(header.joined(separator: ","))")
        }
        // The fourth field says which of the two headers it is.
        let byCountry = first.fields.count > 3 && first.fields[3].text == "country"
        let expected = byCountry ? countryHeader : header
        let both = "\(header.joined(separator: ",")) or \(countryHeader.joined(separator: ","))"
        for (index, name) in expected.enumerated() {
            guard index < first.fields.count, first.fields[index].text == name else {
                let column = index < first.fields.count ? first.fields[index].column : (first.fields.last?.column ?? 1)
                throw ReportError(ReportLocation(file: file, line: first.line, column: column), "the header must be \(both); field \(index + 1) must be \"\(name)\"")
            }
        }
        guard first.fields.count == expected.count else {
            throw ReportError(ReportLocation(file: file, line: first.line, column: first.fields[expected.count].column), "the header must be \(expected.joined(separator: ",")); it has \(first.fields.count) fields")
        }
        while let record = try reader.next() {
            try body(try row(record, file: file, byCountry: byCountry, currencyRates: currencyRates))
        }
    }

    private static func row(_ record: CSVRecord, file: String, byCountry: Bool, currencyRates: [String: Double]) throws(ReportError) -> RevenueRow {
        let expected = byCountry ? countryHeader : header
        guard record.fields.count == expected.count else {
            throw ReportError(ReportLocation(file: file, line: record.line, column: 1), "expected \(expected.count) fields (\(expected.joined(separator: ","))), found \(record.fields.count)")
        }
        // Without the country column, the fields after ad_unit_id move one place left.
        let shift = byCountry ? 1 : 0
        func at(_ index: Int) -> ReportLocation {
            let field = index > 2 ? index + shift : index
            return ReportLocation(file: file, line: record.fields[field].line, column: record.fields[field].column)
        }
        var fields = record.fields.map(\.text)
        var country: String?
        if byCountry {
            let code = fields.remove(at: 3)
            // The engine's own rule for a country (a configuration's `ecpm_by_country` key, a
            // segment's country): two capital letters, user-assigned codes such as XK included.
            guard code.isEmpty || CountryCode.isAlpha2(code) else {
                throw ReportError(ReportLocation(file: file, line: record.fields[3].line, column: record.fields[3].column), "country must be an upper-case ISO 3166-1 alpha-2 code (US), or empty for traffic of no known country, found \(quoted(code))")
            }
            country = code
        }
        guard let day = UTCDay(fields[0]) else {
            throw ReportError(at(0), "day must be a UTC day YYYY-MM-DD from \(UTCDay.earliest) to \(UTCDay.latest), found \(quoted(fields[0]))")
        }
        guard !fields[1].isEmpty else {
            throw ReportError(at(1), "network must not be empty")
        }
        guard fields[2].contains(where: { !$0.isWhitespace }) else {
            throw ReportError(at(2), "ad_unit_id must not be blank")
        }
        let impressionsText = fields[3]
        guard !impressionsText.isEmpty, impressionsText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let impressions = Int(impressionsText), impressions <= maximumImpressions else {
            throw ReportError(at(3), "impressions must be a whole number from 0 to \(maximumImpressions), found \(quoted(impressionsText))")
        }
        guard let revenue = decimal(fields[4]) ?? Self.negativeZero(fields[4]), revenue.isFinite, revenue >= 0 else {
            throw ReportError(at(4), "revenue must be a finite number >= 0, found \(quoted(fields[4]))")
        }
        guard impressions > 0 || revenue == 0 else {
            // Money for no impressions is a broken row; learned, it would price a line item
            // (and its network's pool) at anything.
            throw ReportError(at(4), "revenue must be 0 on a row with 0 impressions, found \(quoted(fields[4]))")
        }
        let currency = fields[5]
        let rate: Double
        if currency == "USD" {
            rate = 1
        } else if let known = currencyRates[currency] {
            rate = known
        } else {
            throw ReportError(at(5), "unknown currency \(quoted(currency)): the config's currency_rates has no rate for it (USD per unit)")
        }
        let revenueUSD = revenue * rate
        guard revenueUSD.isFinite, revenueUSD <= maximumRevenueUSD else {
            throw ReportError(at(4), "revenue must be a finite number from 0 to 1000000000000 once converted to USD, found \(quoted(fields[4])) \(currency)")
        }
        return RevenueRow(day: day, network: fields[1], adUnitID: fields[2], country: country, impressions: impressions, revenue: revenue, currency: currency, revenueUSD: revenueUSD, location: at(0))
    }

    /// 0 for a negative zero (`-0`, `-0.00`, `-0e3`: a spreadsheet's rounding of a tiny
    /// negative adjustment), which is no amount below 0; `nil` for anything else.
    static func negativeZero(_ text: String) -> Double? {
        guard text.hasPrefix("-"), decimal(String(text.dropFirst())) == 0 else { return nil }
        return 0
    }

    /// A plain decimal number: digits, an optional fraction, an optional exponent (no sign,
    /// no `inf`, `nan` or hexadecimal).
    static func decimal(_ text: String) -> Double? {
        var bytes = Array(text.utf8)[...]
        func digits() -> Int {
            var count = 0
            while let byte = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                bytes = bytes.dropFirst()
                count += 1
            }
            return count
        }
        guard digits() > 0 else { return nil }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            guard digits() > 0 else { return nil }
        }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return nil }
        }
        guard bytes.isEmpty else { return nil }
        return Double(text)
    }

    /// `text` in double quotes, at most 40 characters, escaped so that it stays one
    /// unambiguous piece of one line: `"` and `\` as `\"` and `\\`, and every character that
    /// could move the cursor, break the line or reorder it (``DisplayText``)
    /// as `\u{XX}`. A report's ids are quoted with it wherever a message names them.
    static func quoted(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(40) {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default: out += DisplayText.escaped(scalar)
            }
        }
        return "\"\(out)\(text.unicodeScalars.count > 40 ? "…" : "")\""
    }
}

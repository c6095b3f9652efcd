import Foundation
import Mediation

/// Writes revenue reports in the CSV format ``RevenueReportParser`` reads: the header
/// `day,network,ad_unit_id,impressions,revenue,currency` (with `country` after `ad_unit_id`
/// when any row has a country), one row per line, revenue with six
/// decimals, fields quoted when they hold a comma, a quote or a line break.
public enum RevenueReportWriter {
    /// One row of a report.
    public struct Row: Hashable, Sendable {
        /// The UTC day.
        public var day: UTCDay
        /// The network id.
        public var network: String
        /// The network's ad unit id.
        public var adUnitID: String
        /// The country the row covers (an ISO 3166-1 alpha-2 code, empty for traffic of no
        /// known country), or `nil` for every country.
        public var country: String?
        /// The impressions.
        public var impressions: Int
        /// The revenue, in ``currency``.
        public var revenue: Double
        /// The ISO 4217 currency of ``revenue``.
        public var currency: String

        /// Creates a row (`country` `nil`: the row covers every country).
        public init(day: UTCDay, network: String, adUnitID: String, country: String? = nil, impressions: Int, revenue: Double, currency: String) {
            self.day = day
            self.network = network
            self.adUnitID = adUnitID
            self.country = country
            self.impressions = impressions
            self.revenue = revenue
            self.currency = currency
        }
    }

    /// The report's text: with the `country` column when `byCountry` or any row has a country (a
    /// row without one is then written with an empty country, traffic of no known country).
    /// - Parameters:
    ///   - rows: the rows, in order.
    ///   - byCountry: whether to write the `country` column even when no row has a country.
    /// - Returns: the CSV, each line ending in `\n`.
    public static func csv(_ rows: [Row], byCountry: Bool = false) -> String {
        let byCountry = byCountry || rows.contains { $0.country != nil }
        var out = (byCountry ? RevenueReportParser.countryHeader : RevenueReportParser.header).joined(separator: ",") + "\n"
        for row in rows {
            let revenue = (row.revenue.isFinite && row.revenue >= 0) ? row.revenue : 0
            let country = byCountry ? [field(row.country ?? "")] : []
            out += ([row.day.description, field(row.network), field(row.adUnitID)] + country + [String(row.impressions), decimal(revenue), field(row.currency)]).joined(separator: ",") + "\n"
        }
        return out
    }

    /// `value` with six decimals, without exponent.
    static func decimal(_ value: Double) -> String {
        DecimalText.fixed(value, digits: 6)
    }

    /// A CSV field, quoted (quotes doubled) when it holds a comma, a quote or a line break.
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

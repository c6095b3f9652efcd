import Foundation
import Mediation

/// The one set of number formatters and the one JSON writer of `mediate`'s reports (text, HTML
/// and JSON): milliseconds, money and ratios, all decimal text from ``DecimalText`` (never the
/// C library's locale).
enum ReportFormat {
    /// Whole milliseconds, rounded: `90`; `-` when `nil`, not finite, or beyond 9·10^15.
    static func millis(_ value: Double?) -> String {
        guard let value, value.isFinite, abs(value) < 9e15 else { return "-" }
        return String(Int64(value.rounded()))
    }

    /// Whole milliseconds with the unit: `90 ms`; `-` as ``millis(_:)``.
    static func milliseconds(_ value: Double) -> String {
        let text = millis(value)
        return text == "-" ? text : text + " ms"
    }

    /// Money (USD, or CPM) with `digits` decimals (default 2): `1.20`.
    static func money(_ value: Double, digits: Int = 2) -> String {
        DecimalText.fixed(value, digits: digits)
    }

    /// A ratio or any other figure with exactly `digits` decimals: `0.875`.
    static func ratio(_ value: Double, digits: Int) -> String {
        DecimalText.fixed(value, digits: digits)
    }

    /// `value` as pretty-printed JSON with sorted keys, unescaped slashes and a trailing
    /// newline; a non-finite number is written as the string `NaN`, `Infinity` or
    /// `-Infinity`.
    /// - Throws: `EncodingError` when a value cannot be encoded.
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }
}

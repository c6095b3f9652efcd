/// A wall-clock time, in whole milliseconds since 1970-01-01 00:00:00 UTC; JSON: an ISO 8601
/// string in UTC with milliseconds, e.g. `"2026-12-01T14:00:00.000Z"`.
public struct WallClockTime: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01 00:00:00 UTC.
    public var millisecondsSince1970: Int64

    /// Creates a time from milliseconds since 1970.
    /// - Parameter millisecondsSince1970: whole milliseconds since 1970-01-01 00:00:00 UTC.
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// Creates a time from seconds since 1970, rounded down to the millisecond (NaN is 1970;
    /// values out of years 0001 to 9999 are clamped to them).
    /// - Parameter secondsSince1970: seconds since 1970-01-01 00:00:00 UTC.
    public init(secondsSince1970: Double) {
        let limit = 253_402_300_799.0 // 9999-12-31T23:59:59Z
        let lowest = -62_135_596_800.0 // 0001-01-01T00:00:00Z
        let clamped = secondsSince1970.isNaN ? 0 : min(max(secondsSince1970, lowest), limit)
        millisecondsSince1970 = Int64((clamped * 1000).rounded(.down))
    }

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-12-01T14:00:00.000Z` (proleptic
    /// Gregorian calendar).
    public var description: String {
        let totalMillis = min(max(millisecondsSince1970, -62_135_596_800_000), 253_402_300_799_999)
        var days = totalMillis >= 0 ? totalMillis / 86_400_000 : (totalMillis - 86_399_999) / 86_400_000
        let millisOfDay = totalMillis - days * 86_400_000
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let hours = millisOfDay / 3_600_000
        let minutes = millisOfDay / 60000 % 60
        let seconds = millisOfDay / 1000 % 60
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2)).\(pad(millisOfDay % 1000, 3))Z"
    }

    /// Encodes as the ISO 8601 string of ``description``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Decodes a string of the form `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    /// - Throws: `DecodingError` for any other form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        let digits = text.split(whereSeparator: { "-T:.Z".contains($0) }).compactMap { Int64($0) }
        guard digits.count == 7, text.hasSuffix("Z") else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 UTC time: \(text)")
        }
        let (year, month, day) = (digits[0] - (digits[1] <= 2 ? 1 : 0), digits[1], digits[2])
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let millis = ((days * 24 + digits[3]) * 60 + digits[4]) * 60_000 + digits[5] * 1000 + digits[6]
        millisecondsSince1970 = millis
    }
}

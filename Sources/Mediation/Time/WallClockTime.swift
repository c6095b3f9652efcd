/// A wall-clock time, in whole milliseconds since 1970-01-01 00:00:00 UTC; JSON: an ISO 8601
/// string in UTC with milliseconds, e.g. `"2026-12-01T14:00:00.000Z"`.
package struct WallClockTime: Hashable, Sendable, Codable, CustomStringConvertible {
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
        self.init(year: digits[0], month: digits[1], day: digits[2], hour: digits[3], minute: digits[4], second: digits[5], millisecond: digits[6])
    }

    /// A strict RFC 3339 time in UTC, `YYYY-MM-DDTHH:MM:SSZ` with an optional fraction of one
    /// to three digits (`.5`, `.250`), or `nil` for any other text or an impossible date
    /// (month 13, February 30, hour 24). Used for a configuration's `issued_at`.
    /// - Parameter text: the text.
    package init?(rfc3339 text: String) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count, bytes[range].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
            return bytes[range].reduce(0) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        }
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"),
              bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var millisecond: Int64 = 0
        if bytes.count > 20 {
            let fraction = 20..<(bytes.count - 1)
            guard bytes[19] == UInt8(ascii: "."), (1...3).contains(fraction.count), let value = number(fraction) else { return nil }
            millisecond = value * [100, 10, 1][fraction.count - 1]
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let monthDays: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...monthDays[Int(month - 1)]).contains(day), hour < 24, minute < 60, second < 60 else { return nil }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second, millisecond: millisecond)
    }

    /// The time of a civil date and time in UTC (proleptic Gregorian; Howard Hinnant's
    /// days-from-civil).
    private init(year civilYear: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, millisecond: Int64) {
        let year = civilYear - (month <= 2 ? 1 : 0)
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        millisecondsSince1970 = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
    }
}

/// A UTC calendar day, `YYYY-MM-DD`, as a number of days since 1970-01-01 (proleptic
/// Gregorian calendar), so that ages and gaps are subtractions.
public struct UTCDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01 (negative before).
    public var daysSince1970: Int

    /// Creates a day from its number.
    /// - Parameter daysSince1970: days since 1970-01-01.
    public init(daysSince1970: Int) {
        self.daysSince1970 = daysSince1970
    }

    /// Parses `YYYY-MM-DD` exactly (four-digit year 1970...9999, a real month and day), else `nil`.
    /// - Parameter text: e.g. `"2026-03-07"`.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              year >= 1970, (1...12).contains(month), day >= 1, day <= UTCDay.daysIn(month: month, year: year) else { return nil }
        daysSince1970 = UTCDay.days(year: year, month: month, day: day)
    }

    /// The earliest day read, `1970-01-01`.
    public static let earliest = UTCDay(daysSince1970: 0)
    /// The latest day read, `9999-12-31`.
    public static let latest = UTCDay(daysSince1970: UTCDay.days(year: 9999, month: 12, day: 31))

    /// The day `offset` days later (earlier when negative).
    /// - Parameter offset: a number of days.
    public func adding(days offset: Int) -> UTCDay {
        UTCDay(daysSince1970: daysSince1970 + offset)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        let (year, month, day) = UTCDay.civil(daysSince1970)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// Whether `lhs` is earlier.
    public static func < (lhs: UTCDay, rhs: UTCDay) -> Bool { lhs.daysSince1970 < rhs.daysSince1970 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a civil date (H. Hinnant's `days_from_civil`).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day number (H. Hinnant's `civil_from_days`).
    static func civil(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

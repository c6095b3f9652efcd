import Foundation
import Mediation

/// Reads a warehouse's per-user aggregate (`sql/user_day.sql`) into ``ExperimentUsers``, a
/// record at a time: the header `day,experiment,variant,unit,requests,impressions,revenue_usd`,
/// then one row per user, experiment, variant and day (rows for the same user and day add up).
package enum UserDayCSV {
    /// The header, field by field.
    package static let header = ["day", "experiment", "variant", "unit", "requests", "impressions", "revenue_usd"]
    /// The longest record read: 4 KiB.
    static let maximumRecordLength = 4096

    /// Adds the rows of one file to `users`.
    /// - Throws: ``ReportError`` at `file:line:column` for a missing or different header, a row
    ///   with another number of fields, a day that is not YYYY-MM-DD, counts that are not whole
    ///   numbers from 0 to 4,294,967,295, a revenue that is not a plain decimal from 0 to under
    ///   10^12, a CSV mistake (``CSVReader``), and as ``ExperimentUsers/add``.
    package static func read(_ input: RevenueReportInput, into users: inout ExperimentUsers) throws(ReportError) {
        let file = input.file
        var reader = CSVReader(file: file, maximumRecordLength: maximumRecordLength, read: input.read)
        guard let first = try reader.next() else {
            throw ReportError(ReportLocation(file: file, line: 1, column: 1), "the file is empty; expected the header \(header.joined(separator: ","))")
        }
        guard first.fields.map(\.text) == header else {
            throw ReportError(ReportLocation(file: file, line: first.line, column: 1), "the header must be \(header.joined(separator: ",")) (sql/user_day.sql)")
        }
        while let record = try reader.next() {
            let fields = record.fields
            guard fields.count == header.count else {
                throw ReportError(ReportLocation(file: file, line: record.line, column: 1), "expected \(header.count) fields (\(header.joined(separator: ","))), found \(fields.count)")
            }
            func at(_ index: Int) -> ReportLocation { ReportLocation(file: file, line: fields[index].line, column: fields[index].column) }
            guard let day = UTCDay(fields[0].text) else {
                throw ReportError(at(0), "day must be a UTC day YYYY-MM-DD, found \"\(DisplayText.escaped(String(fields[0].text.prefix(40))))\"")
            }
            var counts: [Int] = []
            for index in [4, 5] {
                guard let count = NumberText.whole(fields[index].text, as: Int.self), (0...Int(UInt32.max)).contains(count) else {
                    throw ReportError(at(index), "\(header[index]) must be a whole number from 0 to \(UInt32.max), found \"\(DisplayText.escaped(String(fields[index].text.prefix(40))))\"")
                }
                counts.append(count)
            }
            guard let revenue = NumberText.decimal(fields[6].text), revenue >= 0, revenue < 1e12 else {
                throw ReportError(at(6), "revenue_usd must be a plain decimal from 0 to under 10^12, found \"\(DisplayText.escaped(String(fields[6].text.prefix(40))))\"")
            }
            try users.add(experiment: fields[1].text, variant: fields[2].text, unit: fields[3].text, day: day, requests: counts[0], impressions: counts[1], revenue: revenue, at: at(0))
        }
    }
}

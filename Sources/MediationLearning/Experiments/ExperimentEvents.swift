import Foundation
import Mediation

/// Reads the experiment fields of an engine events log into ``ExperimentUsers``: the events
/// that carry `experiment`, `variant`, `unit` and `day` (those of a placement under an
/// experiment, from its exposure on) count as one user-day row each: `exposure` (the user is
/// exposed), `auction_started` (one request), `shown` (one impression and its `revenue_usd`).
/// Other events, and events without `experiment`, are skipped. The engine writes `day` on
/// `exposure` and `shown` only: an `auction_started` without it counts on the day of the same
/// user's latest event with a day before it (its exposure, or a `shown`), in the order the logs
/// are read (``Days``).
package enum ExperimentEvents {
    /// Each user's latest day read so far, by experiment and unit, carried from one log to the
    /// next: the day of a request whose event has none.
    package struct Days {
        private var latest: [String: [String: UTCDay]] = [:]

        /// None yet.
        package init() {}

        fileprivate func day(experiment: String, unit: String) -> UTCDay? { latest[experiment]?[unit] }

        fileprivate mutating func record(_ day: UTCDay, experiment: String, unit: String) {
            latest[experiment, default: [:]][unit] = day
        }
    }

    /// Adds the events of one log to `users`.
    /// - Parameters:
    ///   - bytes: the log (at most ``EventLog/maximumSize``), one JSON object a line.
    ///   - file: its name, for locations.
    ///   - users: where the rows go.
    ///   - days: the users' latest days, carried across the logs read in order.
    /// - Throws: ``ReportError`` at `file:line` for a line that is not a JSON object with each key
    ///   once, not an engine event record (`event`, `at_ms`, `placement`), an event with
    ///   `experiment` but without a string `variant` or `unit`, an `exposure` or `shown` event
    ///   without a `day` YYYY-MM-DD (an `auction_started` before any day of its user), a `shown`
    ///   event without a finite `revenue_usd` ≥ 0, and as ``ExperimentUsers/add``; for a log
    ///   larger than the limit or one that holds no event.
    package static func read(_ bytes: [UInt8], file: String, into users: inout ExperimentUsers, days: inout Days) throws(ReportError) {
        guard bytes.count <= EventLog.maximumSize else {
            throw ReportError(ReportLocation(file: file), "the events file is larger than \(EventLog.maximumSize >> 20) MiB")
        }
        let decoder = JSONDecoder()
        var events = 0
        for (lineNumber, line) in EventLogLines(bytes) {
            let at = ReportLocation(file: file, line: lineNumber, column: 1)
            if let problem = EventLog.problem(ofLine: line) {
                throw ReportError(at, "\(problem) (an engine events file, mediate --watch --events)")
            }
            let event: Line
            do {
                event = try decoder.decode(Line.self, from: Data(line))
            } catch {
                throw ReportError(at, Line.problem(error))
            }
            events += 1
            guard let experiment = event.experiment else { continue }
            guard let variant = event.variant, let unit = event.unit else {
                throw ReportError(at, "an event with experiment needs \(event.variant == nil ? "variant" : "unit") too (experiment, variant, unit: strings; day: YYYY-MM-DD)")
            }
            guard ["exposure", "auction_started", "shown"].contains(event.event) else { continue }
            let day: UTCDay
            if let dayText = event.day {
                guard let read = UTCDay(dayText) else {
                    throw ReportError(at, "day must be a UTC day YYYY-MM-DD, found \"\(DisplayText.escaped(String(dayText.prefix(40))))\"")
                }
                day = read
                days.record(day, experiment: experiment, unit: unit)
            } else if event.event == "auction_started", let carried = days.day(experiment: experiment, unit: unit) {
                day = carried
            } else {
                throw ReportError(at, event.event == "auction_started"
                    ? "an auction_started event of unit \(DisplayText.escaped(String(unit.prefix(64)))) comes before any event of that user with its day (its exposure); are the logs given in order?"
                    : "an event with experiment needs day too (an \(event.event) event: its UTC day, YYYY-MM-DD)")
            }
            switch event.event {
            case "exposure":
                try users.add(experiment: experiment, variant: variant, unit: unit, day: day, requests: 0, impressions: 0, revenue: 0, at: at)
            case "auction_started":
                try users.add(experiment: experiment, variant: variant, unit: unit, day: day, requests: 1, impressions: 0, revenue: 0, at: at)
            case "shown":
                guard let revenue = event.revenue, revenue.isFinite, revenue >= 0, revenue < 1e9 else {
                    throw ReportError(at, "a shown event needs its revenue_usd, a finite number from 0 to under 10^9")
                }
                try users.add(experiment: experiment, variant: variant, unit: unit, day: day, requests: 0, impressions: 1, revenue: revenue, at: at)
            default:
                continue
            }
        }
        guard events > 0 else {
            throw ReportError(ReportLocation(file: file), "the events file holds no events; expected an engine events log, one JSON event record a line (mediate --watch --events)")
        }
    }

    /// The fields read of one event record.
    private struct Line: Decodable {
        var event: String
        var experiment: String?
        var variant: String?
        var unit: String?
        var day: String?
        var revenue: Double?

        private enum CodingKeys: String, CodingKey {
            case event, experiment, variant, unit, day, placement
            case atMilliseconds = "at_ms"
            case revenue = "revenue_usd"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            event = try container.decode(String.self, forKey: .event)
            _ = try container.decode(Double.self, forKey: .atMilliseconds)
            _ = try container.decode(String.self, forKey: .placement)
            experiment = try container.decodeIfPresent(String.self, forKey: .experiment)
            variant = try container.decodeIfPresent(String.self, forKey: .variant)
            unit = try container.decodeIfPresent(String.self, forKey: .unit)
            day = try container.decodeIfPresent(String.self, forKey: .day)
            revenue = try container.decodeIfPresent(Double.self, forKey: .revenue)
        }

        /// What is wrong with a JSON object that did not decode, naming the field.
        static func problem(_ error: any Error) -> String {
            let record = "not an engine event record: each line of an events log has event (a string), at_ms (a number) and placement (a string); experiment, variant, unit and day are strings, revenue_usd a number (mediate --watch --events)"
            guard let error = error as? DecodingError else { return "a JSON object that is \(record)" }
            switch error {
            case .keyNotFound(let key, _): return "\(key.stringValue) is missing; \(record)"
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                return "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type; \(record)"
            @unknown default: return "a JSON object that is \(record)"
            }
        }
    }
}

import Foundation
import Mediation

/// Reads a config's revenue reports (and optionally the app's events file) into what
/// ``BayesianECPM`` learns from: each fixed-price line item's reported days, with the
/// warnings the reports deserve.
///
/// A report row belongs to every fixed-price line item of the config with its `network` and
/// `ad_unit_id` (an ad unit used by two placements teaches both).
public struct ReportAssembly: Sendable {
    /// The relative difference between the app's and the network's impressions of a line item
    /// above which they are an `impression_discrepancy` (0.10: 10 %, of the network's count).
    public static let discrepancyThreshold = 0.10

    /// The rows of every report, in file then line order.
    public var rows: [RevenueRow]
    /// The warnings, in the order found.
    public var warnings: [ReportWarning]
    /// Each fixed-price line item of the config, in config order, with its reported days.
    public var inputs: [BayesianECPM.Input]
    /// The latest reported day (the default as-of day), `nil` with no rows.
    public var latestDay: UTCDay?

    /// Reads the reports.
    /// - Parameters:
    ///   - reports: each report's name (for locations) and bytes.
    ///   - events: the events file's name and bytes (``MediationEvent/NDJSONWriter``'s lines), if
    ///     any.
    ///   - eventsStart: the UTC day on whose midnight the events file's clock started (its
    ///     `at_ms` 0): then the app's and the network's impressions are compared per line item
    ///     and day, over the days the file covers; without it, over all days at once.
    ///   - configuration: the loaded config (its line items and `currency_rates`).
    /// - Throws: ``ReportError`` at the first mistake (including a row repeated for the same
    ///   day, network and ad unit, in one report or two).
    public init(reports: [(file: String, bytes: [UInt8])], events: (file: String, bytes: [UInt8])? = nil, eventsStart: UTCDay? = nil, configuration: MediationConfiguration) throws(ReportError) {
        var rows: [RevenueRow] = []
        for report in reports {
            rows += try RevenueReportParser.parse(report.bytes, file: report.file, currencyRates: configuration.currencyRates)
        }
        var warnings: [ReportWarning] = []

        // One row per day, network and ad unit.
        struct Key: Hashable { var day: UTCDay, network: String, adUnitID: String }
        var seen: [Key: ReportLocation] = [:]
        for row in rows {
            let key = Key(day: row.day, network: row.network, adUnitID: row.adUnitID)
            if let first = seen[key] {
                throw ReportError(row.location, "duplicate row: \(row.day), network \(RevenueReportParser.quoted(row.network)), ad unit \(RevenueReportParser.quoted(row.adUnitID)) is already reported at \(first)")
            }
            seen[key] = row.location
        }

        // The config's fixed-price line items by network and ad unit.
        struct AdUnit: Hashable { var network: String, adUnitID: String }
        var lineItems: [(placement: MediationConfiguration.Placement, lineItem: LineItem)] = []
        var known = Set<AdUnit>()
        for placement in configuration.placements {
            for lineItem in placement.sources where lineItem.pricing == .fixedPrice && lineItem.eCPM != nil {
                lineItems.append((placement, lineItem))
                known.insert(AdUnit(network: lineItem.network, adUnitID: lineItem.adUnitID))
            }
        }
        var byAdUnit: [AdUnit: [BayesianECPM.Observation]] = [:]
        var reported: [AdUnit: Int] = [:]
        var reportedByDay: [AdUnit: [UTCDay: Int]] = [:]
        for row in rows {
            let unit = AdUnit(network: row.network, adUnitID: row.adUnitID)
            guard known.contains(unit) else {
                warnings.append(ReportWarning(code: .unknownAdUnit, location: row.location, message: "no fixed-price line item of the config has network \(RevenueReportParser.quoted(row.network)) and ad unit \(RevenueReportParser.quoted(row.adUnitID)); the row is not used"))
                continue
            }
            byAdUnit[unit, default: []].append(BayesianECPM.Observation(day: row.day, impressions: row.impressions, revenueUSD: row.revenueUSD))
            reported[unit, default: 0] += row.impressions
            reportedByDay[unit, default: [:]][row.day, default: 0] += row.impressions
        }

        // A missing day between a network's first and last reported day.
        var networkDays: [String: (file: String, days: Set<UTCDay>)] = [:]
        var networkOrder: [String] = []
        for row in rows {
            if networkDays[row.network] == nil {
                networkOrder.append(row.network)
                networkDays[row.network] = (row.location.file, [])
            }
            networkDays[row.network]?.days.insert(row.day)
        }
        for network in networkOrder {
            guard let entry = networkDays[network], let first = entry.days.min(), let last = entry.days.max() else { continue }
            // One warning per gap (a run of missing days), not per day: two rows decades apart
            // must not print millions of lines.
            let days = entry.days.sorted()
            for (previous, next) in zip(days, days.dropFirst()) where next.daysSince1970 - previous.daysSince1970 > 1 {
                let from = previous.adding(days: 1), to = next.adding(days: -1)
                let missing = from == to ? "no row on \(from)" : "no rows from \(from) to \(to) (\(to.daysSince1970 - from.daysSince1970 + 1) days)"
                warnings.append(ReportWarning(code: .missingDay, location: ReportLocation(file: entry.file), message: "network \(RevenueReportParser.quoted(network)) has \(missing), between its first day \(first) and its last \(last)"))
            }
        }

        // The app's own impressions against the network's.
        if let events {
            let shown: [AppImpressions.Key: [UTCDay: Int]]
            if let eventsStart {
                shown = try AppImpressions.countByDay(events.bytes, file: events.file, start: eventsStart)
            } else {
                shown = try AppImpressions.count(events.bytes, file: events.file).mapValues { [UTCDay(daysSince1970: 0): $0] }
            }
            let lastEventDay = shown.values.flatMap(\.keys).max()
            for (placement, lineItem) in lineItems {
                let unit = AdUnit(network: lineItem.network, adUnitID: lineItem.adUnitID)
                // An ad unit shared by line items is reported once for all of them.
                var app: [UTCDay: Int] = [:]
                for other in lineItems where other.lineItem.network == unit.network && other.lineItem.adUnitID == unit.adUnitID {
                    for (day, count) in shown[AppImpressions.Key(placementID: other.placement.id, lineItemID: other.lineItem.id)] ?? [:] {
                        app[day, default: 0] += count
                    }
                }
                guard let network = reported[unit] else { continue }
                let name = "line item \(placement.path(of: lineItem)) (\(RevenueReportParser.quoted(lineItem.id)))"
                let threshold = "more than \(Int(ReportAssembly.discrepancyThreshold * 100)) % apart"
                if let eventsStart {
                    guard let lastEventDay else { continue }
                    var day = eventsStart
                    while day <= lastEventDay {
                        let appCount = app[day] ?? 0, networkCount = reportedByDay[unit]?[day] ?? 0
                        if ReportAssembly.isDiscrepancy(app: appCount, network: networkCount) {
                            warnings.append(ReportWarning(code: .impressionDiscrepancy, location: ReportLocation(file: events.file), message: "\(name) on \(day): the app counted \(appCount) impressions for its ad unit, the network reported \(networkCount) (\(threshold))"))
                        }
                        day = day.adding(days: 1)
                    }
                } else {
                    let appCount = app.values.reduce(0, +)
                    if ReportAssembly.isDiscrepancy(app: appCount, network: network) {
                        warnings.append(ReportWarning(code: .impressionDiscrepancy, location: ReportLocation(file: events.file), message: "\(name): the app counted \(appCount) impressions for its ad unit, the network reported \(network) over all its days (\(threshold))"))
                    }
                }
            }
        }

        self.rows = rows
        self.warnings = warnings
        self.latestDay = rows.map(\.day).max()
        self.inputs = lineItems.compactMap { placement, lineItem in
            guard let eCPM = lineItem.eCPM else { return nil }
            let unit = AdUnit(network: lineItem.network, adUnitID: lineItem.adUnitID)
            return BayesianECPM.Input(placementID: placement.id, lineItemID: lineItem.id, network: lineItem.network, configuredECPM: eCPM * lineItem.usdRate, observations: byAdUnit[unit] ?? [])
        }
    }

    /// Whether the app's and the network's impression counts are more than
    /// ``discrepancyThreshold`` apart, relative to the network's (any app impression against
    /// none reported is one).
    /// - Parameters:
    ///   - app: the app's impressions (the events file's `shown`).
    ///   - network: the network's reported impressions.
    public static func isDiscrepancy(app: Int, network: Int) -> Bool {
        guard network > 0 else { return app > 0 }
        return Double(abs(app - network)) / Double(network) > discrepancyThreshold
    }
}

/// The app's own impressions per line item, from the engine's NDJSON events file: its
/// `shown` events (``MediationEvent/NDJSONWriter``), by their `ad`'s placement and line item.
///
/// Every line is an engine event record, or the file is refused at the first that is not (a
/// wrong file would otherwise read as an app that showed nothing); events the count does not
/// use are skipped by name only, so a newer engine's kinds of event still read.
///
/// An event's `at_ms` is the engine clock's offset from its start, not a wall-clock time: given
/// the UTC day on whose midnight the clock started, an event falls on that day plus
/// `floor(at_ms / 86,400,000)`.
public enum AppImpressions {
    /// A line item: its placement and id.
    public struct Key: Hashable, Sendable {
        /// The placement id.
        public var placementID: String
        /// The line item id.
        public var lineItemID: String

        /// Creates a key.
        public init(placementID: String, lineItemID: String) {
            self.placementID = placementID
            self.lineItemID = lineItemID
        }
    }

    /// The largest events file read: 256 MiB (``EventLog/maximumSize``, as `simulate --replay`).
    public static let maximumSize = EventLog.maximumSize

    /// Counts the `shown` events per line item and UTC day.
    /// - Parameters:
    ///   - bytes: the events file (one JSON object a line).
    ///   - file: its name for locations.
    ///   - start: the UTC day on whose midnight the events' clock started (`at_ms` 0).
    /// - Throws: as ``count(_:file:)``, and at a `shown` event whose `at_ms` is not a finite
    ///   number from 0 to under 10^15.
    public static func countByDay(_ bytes: [UInt8], file: String, start: UTCDay) throws(ReportError) -> [Key: [UTCDay: Int]] {
        var counts: [Key: [UTCDay: Int]] = [:]
        try forEachShown(bytes, file: file) { (key, milliseconds, line) throws(ReportError) in
            guard milliseconds.isFinite, milliseconds >= 0, milliseconds < 1e15 else {
                throw ReportError(ReportLocation(file: file, line: line, column: 1), "a shown event needs its at_ms, a finite number from 0 to under 10^15 (milliseconds from the start day, about 31,000 years)")
            }
            let day = start.adding(days: Int((milliseconds / 86_400_000).rounded(.down)))
            counts[key, default: [:]][day, default: 0] += 1
        }
        return counts
    }

    /// Counts the `shown` events per line item.
    /// - Parameters:
    ///   - bytes: the events file (one JSON object a line).
    ///   - file: its name for locations.
    /// - Throws: ``ReportError`` at a line that is not a JSON object, or not an engine event
    ///   record (`event` and `placement` strings, an `at_ms` number; the message names the
    ///   field), at a `shown` event without its `ad`'s `placementID` and `lineItemID`, and for a
    ///   file that holds no event. Events of names other than `shown` are skipped.
    public static func count(_ bytes: [UInt8], file: String) throws(ReportError) -> [Key: Int] {
        guard bytes.count <= maximumSize else {
            throw ReportError(ReportLocation(file: file), "the events file is larger than \(maximumSize >> 20) MiB")
        }
        var counts: [Key: Int] = [:]
        try forEachShown(bytes, file: file) { (key, _, _) throws(ReportError) in
            counts[key, default: 0] += 1
        }
        return counts
    }

    /// Calls `body` with each `shown` event's line item, `at_ms` and line number.
    ///
    /// Every line but an empty one must be an engine event record (``EventLine``); events of
    /// any other name are skipped (a newer engine's kinds read too). A file with no event is
    /// refused: it is not an events log, or its run never started.
    private static func forEachShown(_ bytes: [UInt8], file: String, _ body: (Key, Double, Int) throws(ReportError) -> Void) throws(ReportError) {
        guard bytes.count <= maximumSize else {
            throw ReportError(ReportLocation(file: file), "the events file is larger than \(maximumSize >> 20) MiB")
        }
        let decoder = JSONDecoder()
        var lineNumber = 0
        var events = 0
        var recorded = EventLog.Auctions()
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = line
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.isEmpty { continue }
            if let problem = EventLog.problem(ofLine: line) {
                throw ReportError(ReportLocation(file: file, line: lineNumber, column: 1), "\(problem) (an engine events file, mediate --watch --events)")
            }
            let event: EventLine
            do {
                event = try decoder.decode(EventLine.self, from: Data(line))
            } catch {
                throw ReportError(ReportLocation(file: file, line: lineNumber, column: 1), EventLine.problem(error))
            }
            events += 1
            if let id = event.finishedAuction, let problem = recorded.record(id, line: lineNumber) {
                throw ReportError(ReportLocation(file: file, line: lineNumber, column: 1), "trace.auction_id: \(problem)")
            }
            if let key = event.shown {
                try body(key, event.atMilliseconds, lineNumber)
            }
        }
        guard events > 0 else {
            throw ReportError(ReportLocation(file: file), "the events file holds no events; expected an engine events log, one JSON event record a line (mediate --watch --events)")
        }
    }

    /// What every line of an events log is: an engine event record (`EventRecord`, as
    /// `MediationEvent.NDJSONWriter` writes it), of which the reader checks the fields every record
    /// has, `event` (a string), `at_ms` (a number) and `placement` (a string), and of a `shown`
    /// event its `ad`'s `placementID` and `lineItemID` (strings).
    private struct EventLine: Decodable {
        var atMilliseconds: Double
        /// A `shown` event's line item; `nil` for every other event.
        var shown: Key?
        /// An `auction_finished` event's `trace.auction_id`; `nil` for every other event.
        var finishedAuction: String?

        private enum CodingKeys: String, CodingKey {
            case event
            case atMilliseconds = "at_ms"
            case placement
            case ad
            case trace
        }

        private enum TraceKeys: String, CodingKey {
            case auctionID = "auction_id"
        }

        private enum AdKeys: String, CodingKey {
            case placementID
            case lineItemID
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let event = try container.decode(String.self, forKey: .event)
            atMilliseconds = try container.decode(Double.self, forKey: .atMilliseconds)
            _ = try container.decode(String.self, forKey: .placement)
            if event == "auction_finished", let trace = try? container.nestedContainer(keyedBy: TraceKeys.self, forKey: .trace) {
                finishedAuction = try? trace.decodeIfPresent(String.self, forKey: .auctionID)
            }
            guard event == "shown" else { return }
            let ad = try container.nestedContainer(keyedBy: AdKeys.self, forKey: .ad)
            shown = Key(placementID: try ad.decode(String.self, forKey: .placementID), lineItemID: try ad.decode(String.self, forKey: .lineItemID))
        }

        /// What is wrong with a line that is a JSON object but did not decode, naming the
        /// field's JSON path.
        static func problem(_ error: any Error) -> String {
            let record = "not an engine event record: each line of an events log has event (a string), at_ms (a number) and placement (a string) (mediate --watch --events)"
            // The line is a JSON object (``EventLog/problem(ofLine:)`` came first): what is left
            // is a field.
            let notJSON = "a JSON object that is \(record)"
            guard let error = error as? DecodingError else { return notJSON }
            let path: [any CodingKey], what: String
            switch error {
            case .keyNotFound(let key, let context):
                (path, what) = (context.codingPath + [key], "is missing")
            case .valueNotFound(let type, let context):
                (path, what) = (context.codingPath, "is null, not \(name(of: type))")
            case .typeMismatch(let type, let context):
                (path, what) = (context.codingPath, "is not \(name(of: type))")
            case .dataCorrupted(let context):
                (path, what) = (context.codingPath, "is not a valid value")
            @unknown default:
                return notJSON
            }
            guard let first = path.first else { return notJSON }
            let field = path.map(\.stringValue).joined(separator: ".")
            if first.stringValue == CodingKeys.ad.stringValue {
                return "a shown event needs its ad's placementID and lineItemID (strings): \(field) \(what)"
            }
            return "\(field) \(what); \(record)"
        }

        private static func name(of type: Any.Type) -> String {
            type == String.self ? "a string" : type == Double.self ? "a number" : "an object"
        }
    }

}

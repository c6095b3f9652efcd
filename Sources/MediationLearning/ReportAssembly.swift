import Foundation
import Mediation

/// Reads a config's revenue reports (and optionally the app's events file) into what
/// ``BayesianECPM`` learns from: each fixed-price line item's reported days, with the
/// warnings the reports deserve.
///
/// A report row belongs to every fixed-price line item of the config with its `network` and
/// `ad_unit_id` (an ad unit used by two placements teaches both).
///
/// The reports are read a record at a time and added up as they are read: what is kept is one
/// entry per ad unit of the config and day (and per network of the config and day, for the
/// missing days), and the first ``listedWarningsPerKind`` warnings of each kind, never the rows.
/// A report may carry a `country` column: its rows are kept per country.
/// A row of an ad unit the config does not have is counted in a warning and dropped (so it is
/// not checked for repeats).
public struct ReportAssembly: Sendable {
    /// The relative difference between the app's and the network's impressions of a line item
    /// above which they are an `impression_discrepancy` (0.10: 10 %, of the network's count).
    public static let discrepancyThreshold = 0.10
    /// The most warnings of one kind ``warnings`` lists (20); ``warningCounts`` counts them all.
    public static let listedWarningsPerKind = 20

    /// The rows read, every report together.
    public var rowCount = 0
    /// The first ``listedWarningsPerKind`` warnings of each kind, in the order found.
    public var warnings: [ReportWarning] = []
    /// Every warning, listed or not, by kind.
    public var warningCounts: [ReportWarning.Code: Int] = [:]
    /// Each fixed-price line item of the config, in config order, with its reported days.
    public var inputs: [BayesianECPM.Input] = []
    /// The latest reported day (the default as-of day), `nil` with no rows.
    public var latestDay: UTCDay?
    /// The rows dated after the `asOf` day given (which an estimate as of it does not use): how
    /// many, where the first is, and the latest day among them; `nil` when there are none or
    /// no day was given.
    public var rowsAfterAsOf: (count: Int, first: ReportLocation, latest: UTCDay)?
    /// The entries the reading kept at its largest, for tests: the ad units' days (an
    /// observation and where its row is, each), the networks' days and the listed warnings.
    var retainedEntries = 0

    /// Reads reports already in memory (see ``init(reading:events:eventsStart:asOf:configuration:)``).
    /// - Parameters:
    ///   - reports: each report's name (for locations) and bytes.
    ///   - events: the events file's name and bytes, if any.
    ///   - eventsStart: the UTC day on whose midnight the events file's clock started.
    ///   - asOf: the day the estimates are learned as of, if given (for ``rowsAfterAsOf``).
    ///   - configuration: the loaded config.
    /// - Throws: ``ReportError`` at the first mistake.
    public init(reports: [(file: String, bytes: [UInt8])], events: (file: String, bytes: [UInt8])? = nil, eventsStart: UTCDay? = nil, asOf: UTCDay? = nil, configuration: MediationConfiguration) throws(ReportError) {
        try self.init(reading: reports.map { RevenueReportInput(file: $0.file, bytes: $0.bytes) }, events: events, eventsStart: eventsStart, asOf: asOf, configuration: configuration)
    }

    /// Reads the reports, a record at a time, at most ``RevenueReportParser/maximumSize`` bytes
    /// in all.
    /// - Parameters:
    ///   - reports: the reports, each with its name (for locations) and its bytes.
    ///   - events: the events file's name and bytes (``MediationEvent/NDJSONWriter``'s lines), if
    ///     any.
    ///   - eventsStart: the UTC day on whose midnight the events file's clock started (its
    ///     `at_ms` 0): then the app's and the network's impressions are compared per line item
    ///     and day, over the days the file covers; without it, over all days at once.
    ///   - asOf: the day the estimates are learned as of, if given (for ``rowsAfterAsOf``).
    ///   - configuration: the loaded config (its line items and `currency_rates`).
    /// - Throws: ``ReportError`` at the first mistake (including a row of a line item's ad unit
    ///   repeated for the same day and country with other numbers, in one report or two (an
    ///   exact repeat is the warning `duplicate_row`, counted once), a day reported both for
    ///   every country and per country, and reports larger than
    ///   ``RevenueReportParser/maximumSize`` together).
    public init(reading reports: [RevenueReportInput], events: (file: String, bytes: [UInt8])? = nil, eventsStart: UTCDay? = nil, asOf: UTCDay? = nil, configuration: MediationConfiguration) throws(ReportError) {
        // The config's fixed-price line items by network and ad unit.
        struct AdUnit: Hashable { var network: String, adUnitID: String }
        /// Where a row is: its report (an index of `reports`), line and column (a few bytes, where
        /// a ``ReportLocation`` holds the file's name).
        struct Place { var report: Int32, line: Int32, column: Int32, observation: Int32 }
        /// A row's key within its ad unit: its day and country (`nil`: every country).
        struct Cell: Hashable { var day: UTCDay, country: String? }
        /// What the reports say of one ad unit of the config: one entry per day and country.
        struct Reported {
            var observations: [BayesianECPM.Observation] = []
            var places: [Cell: Place] = [:]
            /// Per day, where its first row is and whether it covers every country (a report
            /// without the country column): the two kinds must not be mixed on one day.
            var scopes: [UTCDay: (everyCountry: Bool, place: Place)] = [:]
            var impressions = 0
        }
        func location(_ place: Place) -> ReportLocation {
            ReportLocation(file: reports[Int(place.report)].file, line: Int(place.line), column: Int(place.column))
        }
        var lineItems: [(placement: MediationConfiguration.Placement, lineItem: LineItem)] = []
        var reported: [AdUnit: Reported] = [:]
        for placement in configuration.placements {
            for lineItem in placement.sources where lineItem.pricing == .fixedPrice && lineItem.eCPM != nil {
                lineItems.append((placement, lineItem))
                reported[AdUnit(network: lineItem.network, adUnitID: lineItem.adUnitID)] = Reported()
            }
        }
        // The days of each network of the config, for the missing days (a network the config
        // does not have has no line item to learn).
        var networkDays: [String: (file: String, days: Set<UTCDay>)] = [:]
        var networkOrder: [String] = []
        let configNetworks = Set(configuration.networks.map(\.id))

        var total = 0
        for (reportIndex, report) in reports.enumerated() {
            let read = report.read
            let file = report.file
            let counted = RevenueReportInput(file: file) { () throws(ReportError) -> [UInt8]? in
                guard let chunk = try read() else { return nil }
                total += chunk.count
                guard total <= RevenueReportParser.maximumSize else {
                    throw ReportError(ReportLocation(file: file), "the reports are larger than \(RevenueReportParser.maximumSize >> 20) MiB together (the limit of one report or of several)")
                }
                return chunk
            }
            try RevenueReportParser.forEachRow(counted, currencyRates: configuration.currencyRates) { (row: RevenueRow) throws(ReportError) in
                rowCount += 1
                if latestDay.map({ row.day > $0 }) ?? true { latestDay = row.day }
                if let asOf, row.day > asOf {
                    if var later = rowsAfterAsOf {
                        later.count += 1
                        later.latest = max(later.latest, row.day)
                        rowsAfterAsOf = later
                    } else {
                        rowsAfterAsOf = (1, row.location, row.day)
                    }
                }
                if configNetworks.contains(row.network) {
                    if networkDays[row.network] == nil {
                        networkOrder.append(row.network)
                        networkDays[row.network] = (row.location.file, [])
                    }
                    networkDays[row.network]?.days.insert(row.day)
                }
                let unit = AdUnit(network: row.network, adUnitID: row.adUnitID)
                guard var entry = reported[unit] else {
                    warn(ReportWarning(code: .unknownAdUnit, location: row.location, message: "no fixed-price line item of the config has network \(RevenueReportParser.quoted(row.network)) and ad unit \(RevenueReportParser.quoted(row.adUnitID)); the row is not used"))
                    return
                }
                // One row per day, network, ad unit and country; a repeat with the same numbers
                // (overlapping exports) is counted once.
                let what = "\(row.day), network \(RevenueReportParser.quoted(row.network)), ad unit \(RevenueReportParser.quoted(row.adUnitID))\(row.country.map { ", country \(RevenueReportParser.quoted($0))" } ?? "")"
                let cell = Cell(day: row.day, country: row.country)
                if let first = entry.places[cell] {
                    let earlier = entry.observations[Int(first.observation)]
                    guard earlier.impressions == row.impressions, earlier.revenueUSD == row.revenueUSD else {
                        throw ReportError(row.location, "duplicate row: \(what) is already reported at \(location(first)) with other numbers (\(earlier.impressions) impressions and \(earlier.revenueUSD) USD there, \(row.impressions) and \(row.revenueUSD) here)")
                    }
                    warn(ReportWarning(code: .duplicateRow, location: row.location, message: "\(what) repeats \(location(first)) exactly; counted once"))
                    return
                }
                if let scope = entry.scopes[row.day], scope.everyCountry != (row.country == nil) {
                    throw ReportError(row.location, "\(what): \(location(scope.place)) reports this ad unit and day \(scope.everyCountry ? "for every country (no country column)" : "per country"), this row \(row.country == nil ? "for every country" : "per country"); one of them would count the same impressions twice")
                }
                reported[unit] = nil // no copy of the entry while it grows
                // At most 64 MiB of reports: an index, a line, a column and a row count fit in 32 bits.
                let place = Place(report: Int32(truncatingIfNeeded: reportIndex), line: Int32(truncatingIfNeeded: row.location.line ?? 0), column: Int32(truncatingIfNeeded: row.location.column ?? 0), observation: Int32(truncatingIfNeeded: entry.observations.count))
                entry.places[cell] = place
                if entry.scopes[row.day] == nil { entry.scopes[row.day] = (row.country == nil, place) }
                entry.observations.append(BayesianECPM.Observation(day: row.day, impressions: row.impressions, revenueUSD: row.revenueUSD, country: row.country))
                entry.impressions += row.impressions
                reported[unit] = entry
            }
        }

        // A missing day between a network's first and last reported day.
        for network in networkOrder {
            guard let entry = networkDays[network], let first = entry.days.min(), let last = entry.days.max() else { continue }
            // One warning per gap (a run of missing days), not per day: two rows decades apart
            // must not print millions of lines.
            let days = entry.days.sorted()
            for (previous, next) in zip(days, days.dropFirst()) where next.daysSince1970 - previous.daysSince1970 > 1 {
                let from = previous.adding(days: 1), to = next.adding(days: -1)
                let missing = from == to ? "no row on \(from)" : "no rows from \(from) to \(to) (\(to.daysSince1970 - from.daysSince1970 + 1) days)"
                warn(ReportWarning(code: .missingDay, location: ReportLocation(file: entry.file), message: "network \(RevenueReportParser.quoted(network)) has \(missing), between its first day \(first) and its last \(last)"))
            }
        }
        retainedEntries = reported.values.reduce(0) { $0 + $1.observations.count + $1.places.count + $1.scopes.count } + networkDays.values.reduce(0) { $0 + $1.days.count } + warnings.count
        networkDays = [:]

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
                guard let entry = reported[unit], !entry.observations.isEmpty else { continue }
                let network = entry.impressions
                let name = "line item \(placement.path(of: lineItem)) (\(RevenueReportParser.quoted(lineItem.id)))"
                let threshold = "more than \(Int(ReportAssembly.discrepancyThreshold * 100)) % apart"
                if let eventsStart {
                    guard let lastEventDay else { continue }
                    var networkByDay: [UTCDay: Int] = [:]
                    for observation in entry.observations { networkByDay[observation.day, default: 0] += observation.impressions }
                    var day = eventsStart
                    while day <= lastEventDay {
                        let appCount = app[day] ?? 0, networkCount = networkByDay[day] ?? 0
                        if ReportAssembly.isDiscrepancy(app: appCount, network: networkCount) {
                            warn(ReportWarning(code: .impressionDiscrepancy, location: ReportLocation(file: events.file), message: "\(name) on \(day): the app counted \(appCount) impressions for its ad unit, the network reported \(networkCount) (\(threshold))"))
                        }
                        day = day.adding(days: 1)
                    }
                } else {
                    let appCount = app.values.reduce(0, +)
                    if ReportAssembly.isDiscrepancy(app: appCount, network: network) {
                        warn(ReportWarning(code: .impressionDiscrepancy, location: ReportLocation(file: events.file), message: "\(name): the app counted \(appCount) impressions for its ad unit, the network reported \(network) over all its days (\(threshold))"))
                    }
                }
            }
        }

        inputs = lineItems.compactMap { placement, lineItem in
            guard let eCPM = lineItem.eCPM else { return nil }
            let unit = AdUnit(network: lineItem.network, adUnitID: lineItem.adUnitID)
            return BayesianECPM.Input(placementID: placement.id, lineItemID: lineItem.id, network: lineItem.network, configuredECPM: eCPM * lineItem.usdRate, observations: reported[unit]?.observations ?? [])
        }
    }

    /// Lists `warning` among the first ``listedWarningsPerKind`` of its kind, and counts it.
    private mutating func warn(_ warning: ReportWarning) {
        let count = warningCounts[warning.code, default: 0] + 1
        warningCounts[warning.code] = count
        if count <= ReportAssembly.listedWarningsPerKind { warnings.append(warning) }
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
        var events = 0
        var recorded = EventLog.Auctions()
        for (lineNumber, line) in EventLogLines(bytes) {
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

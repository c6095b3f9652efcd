import Foundation
import Mediation
import MediationLearning

/// One source's line of a recorded auction, as much of the engine's trace line as a replay
/// reads (`line_item`, `network`, `start_ms`, `latency_ms`, `outcome.status`, `ecpm`,
/// `raw_price`). Unknown keys are skipped, so a trace with more fields still reads; the fields a
/// replay reads are strict: a status that is not one of ``knownStatuses``, a latency, start or
/// value that is not a number in range is refused with its JSON path, rather than replayed as
/// a market draw (or, for a value past the largest price, as an ad at that price).
public struct RecordedSource: Hashable, Sendable, Decodable {
    /// The line item id.
    public var lineItemID: String
    /// The network id.
    public var network: String
    /// The outcome's status word (`won`, `lost`, `no_fill`, `error`, `timeout`, `cancelled`,
    /// `not_asked`, `late`, or any other).
    public var status: String
    /// When it was asked, milliseconds from the auction's start (`nil`: not asked).
    public var startOffsetMilliseconds: Double?
    /// How long it took to answer, milliseconds (`nil`: no answer by the end).
    public var latencyMilliseconds: Double?
    /// Its value in USD CPM (a bid converted to USD, or the configured eCPM of a fill).
    public var eCPM: Double?
    /// A bid's price as the network gave it, in the line item's currency.
    public var rawPrice: Double?

    private enum CodingKeys: String, CodingKey {
        case lineItemID = "line_item"
        case network
        case startOffsetMilliseconds = "start_ms"
        case latencyMilliseconds = "latency_ms"
        case outcome
        case eCPM = "ecpm"
        case rawPrice = "raw_price"
    }

    private enum OutcomeKeys: String, CodingKey {
        case status
    }

    /// Creates a line.
    public init(lineItemID: String, network: String, status: String, startOffsetMilliseconds: Double? = nil, latencyMilliseconds: Double? = nil, eCPM: Double? = nil, rawPrice: Double? = nil) {
        self.lineItemID = lineItemID
        self.network = network
        self.status = status
        self.startOffsetMilliseconds = startOffsetMilliseconds
        self.latencyMilliseconds = latencyMilliseconds
        self.eCPM = eCPM
        self.rawPrice = rawPrice
    }

    /// The status words a trace line may have: the engine's (`won`, `lost`, `no_fill`, `error`,
    /// `timeout`, `cancelled`, `not_asked`) and `late`.
    public static let knownStatuses: [String] = ["won", "lost", "no_fill", "error", "timeout", "cancelled", "not_asked", "late"]

    /// Decodes a trace line; the outcome may be `{"status": …}` with any detail, or a bare
    /// status string.
    /// - Throws: `DecodingError` (its coding path names the field) when `line_item`, `network`
    ///   or the status is missing or not a string, the status is not one of ``knownStatuses``,
    ///   `start_ms` or `latency_ms` is not a number from 0 to
    ///   ``SourceDraw/maximumLatencyMilliseconds``, `ecpm` is not a number above 0 and at most
    ///   ``SourceDraw/maximumPrice``, or `raw_price` is not a number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        lineItemID = try container.decode(String.self, forKey: .lineItemID)
        network = try container.decode(String.self, forKey: .network)
        let longest = Double(SourceDraw.maximumLatencyMilliseconds)
        startOffsetMilliseconds = try Self.number(container, .startOffsetMilliseconds, "a number of milliseconds from 0 to \(SourceDraw.maximumLatencyMilliseconds)") { $0 >= 0 && $0 <= longest }
        latencyMilliseconds = try Self.number(container, .latencyMilliseconds, "a number of milliseconds from 0 to \(SourceDraw.maximumLatencyMilliseconds)") { $0 >= 0 && $0 <= longest }
        eCPM = try Self.number(container, .eCPM, "a USD CPM above 0 and at most \(Int(SourceDraw.maximumPrice))") { $0 > 0 && $0 <= SourceDraw.maximumPrice }
        rawPrice = try Self.number(container, .rawPrice, "a number") { _ in true }
        if let outcome = try? container.nestedContainer(keyedBy: OutcomeKeys.self, forKey: .outcome) {
            status = try outcome.decode(String.self, forKey: .status)
            guard Self.knownStatuses.contains(status) else {
                throw DecodingError.dataCorruptedError(forKey: .status, in: outcome, debugDescription: Self.unknownStatus(status))
            }
        } else {
            status = try container.decode(String.self, forKey: .outcome)
            guard Self.knownStatuses.contains(status) else {
                throw DecodingError.dataCorruptedError(forKey: .outcome, in: container, debugDescription: Self.unknownStatus(status))
            }
        }
    }

    /// The optional number at `key`, refused (with the key's path) when it is not a number or
    /// `accepts` rejects it.
    private static func number(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys, _ expected: String, accepts: (Double) -> Bool) throws -> Double? {
        let value: Double?
        do {
            value = try container.decodeIfPresent(Double.self, forKey: key)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "must be \(expected)")
        }
        if let value, !(value.isFinite && accepts(value)) {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "must be \(expected), found \(value)")
        }
        return value
    }

    private static func unknownStatus(_ status: String) -> String {
        "unknown outcome status \"\(DisplayText.escaped(String(status.prefix(64))))\"; a recording has \(knownStatuses.joined(separator: ", "))"
    }

    /// The answer this line records, for a source of `usdRate` (USD per unit of its currency):
    /// `won` / `lost` with a value is an ad at it, `no_fill` and `error` are themselves after
    /// their latency, `timeout` is silence; `cancelled`, `not_asked`, `late` and any other
    /// status record no answer (`nil`), nor does a line without the latency it needs.
    func answer(usdRate: Double) -> RecordedAnswer? {
        let kind: SourceDraw.Answer
        var priceUSD = 0.0
        switch status {
        case "won", "lost":
            if let eCPM, eCPM.isFinite, eCPM > 0 {
                priceUSD = eCPM
            } else if let rawPrice, rawPrice.isFinite, rawPrice > 0, (rawPrice * usdRate).isFinite, rawPrice * usdRate <= SourceDraw.maximumPrice {
                priceUSD = rawPrice * usdRate
            } else {
                return nil
            }
            kind = .ad
        case "no_fill": kind = .noFill
        case "error": kind = .error
        case "timeout":
            return RecordedAnswer(draw: SourceDraw(answer: .never, priceMicros: 1, latencyMilliseconds: SourceDraw.maximumLatencyMilliseconds), latency: .milliseconds(SourceDraw.maximumLatencyMilliseconds))
        default:
            return nil
        }
        guard let latency = latencyMilliseconds, latency.isFinite, latency >= 0, latency <= Double(SourceDraw.maximumLatencyMilliseconds) else { return nil }
        let draw = SourceDraw(answer: kind, priceMicros: SourceDraw.micros(ofPrice: priceUSD), latencyMilliseconds: SourceDraw.wholeMilliseconds(latency))
        return RecordedAnswer(draw: draw, latency: .nanoseconds(Int64((latency * 1_000_000).rounded())))
    }
}

/// One recorded auction: the trace of an `auction_finished` event (as much of it as a replay
/// reads).
public struct RecordedAuction: Hashable, Sendable, Decodable {
    /// The auction's id (the trace's `auction_id`), when the line has one: the engine writes it
    /// on every trace; a recording holds each auction once.
    public var auctionID: String?
    /// The placement id.
    public var placementID: String
    /// The winning line item, if any.
    public var winner: String?
    /// The winning value, USD CPM.
    public var winningECPM: Double?
    /// One line per source.
    public var sources: [RecordedSource]
    /// The line of the NDJSON file it was read from (1-based), when read from one.
    public var line: Int? = nil

    private enum CodingKeys: String, CodingKey {
        case auctionID = "auction_id"
        case placementID = "placement"
        case winner
        case winningECPM = "winning_ecpm"
        case sources
    }

    /// Creates a recorded auction.
    public init(auctionID: String? = nil, placementID: String, winner: String?, winningECPM: Double?, sources: [RecordedSource], line: Int? = nil) {
        self.auctionID = auctionID
        self.placementID = placementID
        self.winner = winner
        self.winningECPM = winningECPM
        self.sources = sources
        self.line = line
    }

    /// The line of `lineItemID`.
    public func source(_ lineItemID: String) -> RecordedSource? {
        sources.first { $0.lineItemID == lineItemID }
    }
}

/// A recorded run: the auctions of an NDJSON event log (`mediate --watch --events FILE`, or
/// ``MediationEvent/NDJSONWriter`` in a host), in file order, each auction once (by its
/// `auction_id`). Lines whose `event` is not `auction_finished` are skipped; so is a blank line.
public struct Recording: Hashable, Sendable {
    /// The longest line read, in bytes (a trace of 10,000 sources fits).
    public static let maximumLineBytes = 4 << 20
    /// The most auctions a recording holds.
    public static let maximumAuctions = 10_000_000

    /// Every recorded auction, in file order.
    public var auctions: [RecordedAuction]

    /// Creates a recording.
    public init(auctions: [RecordedAuction]) {
        self.auctions = auctions
    }

    /// The auctions of `placementID`, in order.
    public func auctions(of placementID: String) -> [RecordedAuction] {
        auctions.filter { $0.placementID == placementID }
    }

    /// Reads an NDJSON event log.
    /// - Parameter data: the file's bytes: one JSON object per line.
    /// - Returns: the recording.
    /// - Throws: ``SimulationError`` (`invalid_recording`) naming the line (`line 12`) of the
    ///   first line that is not JSON, too long, or an `auction_finished` event without a
    ///   readable trace, and in a trace the field's JSON path
    ///   (`line 12: trace.sources[1].latency_ms`): a missing or mistyped field, an unknown
    ///   outcome status, a latency or value out of range (see ``RecordedSource/init(from:)``), a
    ///   `winning_ecpm` that is not above 0 and at most ``SourceDraw/maximumPrice``, an
    ///   `auction_id` that is not a string or that an earlier line already has
    ///   (`line 12: trace.auction_id`, naming the first line: a duplicated auction would be
    ///   counted twice; ``EventLog/Auctions``), or more than ``EventLog/maximumSize`` bytes.
    public static func read(ndjson data: Data) throws(SimulationError) -> Recording {
        var auctions: [RecordedAuction] = []
        guard data.count <= EventLog.maximumSize else {
            throw SimulationError(code: .invalidRecording, message: "larger than \(EventLog.maximumSize) bytes (\(BoundedFile.mebibytes(EventLog.maximumSize))), the most an events log may be")
        }
        var recorded = EventLog.Auctions()
        let decoder = JSONDecoder()
        var lineNumber = 0
        var start = data.startIndex
        while start < data.endIndex {
            lineNumber += 1
            let end = data[start...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
            let line = data[start..<end]
            start = end < data.endIndex ? data.index(after: end) : end
            func invalid(_ message: String) -> SimulationError {
                SimulationError(code: .invalidRecording, path: "line \(lineNumber)", message: message)
            }
            guard line.count <= maximumLineBytes else { throw invalid("longer than \(maximumLineBytes) bytes") }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            if let problem = EventLog.problem(ofLine: line) { throw invalid(problem) }
            let header: EventHeader
            do {
                header = try decoder.decode(EventHeader.self, from: line)
            } catch {
                throw invalid("a JSON object without an \"event\" name (a string); each line of an events log is an engine event record")
            }
            guard header.event == "auction_finished" else { continue }
            var auction: RecordedAuction
            do {
                auction = try decoder.decode(AuctionLine.self, from: line).trace
            } catch let error as DecodingError {
                let (field, problem) = describe(error)
                throw SimulationError(code: .invalidRecording, path: "line \(lineNumber)" + (field.isEmpty ? "" : ": \(field)"), message: problem)
            } catch {
                throw invalid("an auction_finished event without a readable trace (placement, sources with line_item, network and outcome.status)")
            }
            if let value = auction.winningECPM, !(value.isFinite && value > 0 && value <= SourceDraw.maximumPrice) {
                // Past the largest price it would be clamped to it and counted as revenue.
                throw SimulationError(code: .invalidRecording, path: "line \(lineNumber): trace.winning_ecpm", message: "must be a USD CPM above 0 and at most \(Int(SourceDraw.maximumPrice)), found \(value)")
            }
            if let id = auction.auctionID {
                if let problem = recorded.record(id, line: lineNumber) {
                    throw SimulationError(code: .invalidRecording, path: "line \(lineNumber): trace.auction_id", message: problem)
                }
            }
            auction.line = lineNumber
            auctions.append(auction)
            guard auctions.count <= maximumAuctions else { throw invalid("more than \(maximumAuctions) auctions") }
        }
        return Recording(auctions: auctions)
    }

    /// Reads the NDJSON event log at `url` (at most ``EventLog/maximumSize`` bytes, as
    /// `mediate optimize --events`).
    /// - Throws: ``SimulationError``: `unreadable_recording` when the file cannot be read,
    ///   `invalid_recording` when it is larger than the limit, or as ``read(ndjson:)``.
    public static func load(contentsOf url: URL) throws(SimulationError) -> Recording {
        // One rule with `mediate optimize --events`: a regular file of at most
        // ``EventLog/maximumSize``, read no further than one byte past it.
        let data: Data
        switch BoundedFile.read(url, limit: EventLog.maximumSize) {
        case .success(let read): data = read
        case .failure(.notFound): throw SimulationError(code: .unreadableRecording, message: "no such file: \(url.path)")
        case .failure(.tooLarge(let limit)): throw SimulationError(code: .invalidRecording, message: "\(url.path) is larger than \(limit) bytes (\(BoundedFile.mebibytes(limit))), the most an events log may be")
        case .failure(let failure): throw SimulationError(code: .unreadableRecording, message: "cannot read \(url.path): \(failure.reason)")
        }
        return try read(ndjson: data)
    }

    /// The JSON path of a decoding error (`trace.sources[1].latency_ms`) and what is wrong there.
    private static func describe(_ error: DecodingError) -> (path: String, problem: String) {
        let needs = "an auction_finished event needs a trace with placement and sources with line_item, network and outcome.status"
        switch error {
        case .keyNotFound(let key, let context):
            return (jsonPath(context.codingPath + [key]), "missing: \(needs)")
        case .valueNotFound(_, let context):
            return (jsonPath(context.codingPath), "null where a value is needed: \(needs)")
        case .typeMismatch(let type, let context):
            let expected = type == String.self ? "a string" : type == Double.self ? "a number" : "\(type)"
            return (jsonPath(context.codingPath), "not \(expected)" + (expected.hasPrefix("a ") ? "" : " value"))
        case .dataCorrupted(let context):
            return (jsonPath(context.codingPath), context.debugDescription)
        @unknown default:
            return ("", "an auction_finished event without a readable trace (\(needs))")
        }
    }

    /// `trace.sources[1].latency_ms` for a coding path.
    private static func jsonPath(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    private struct EventHeader: Decodable {
        var event: String
    }

    private struct AuctionLine: Decodable {
        var trace: RecordedAuction
    }
}

/// A source's recorded answer in one auction: what the market draw would have said, and the
/// exact latency.
struct RecordedAnswer: Hashable, Sendable {
    let draw: SourceDraw
    let latency: Duration
}

/// The recorded answers of one placement's auctions, handed to the simulated networks, and
/// the counters of answers taken from them or drawn.
struct ReplaySources: Sendable {
    let placementID: String
    let auctions: [RecordedAuction]
    let counters: ReplayCounters

    /// The recorded answers of `lineItem`, by auction index, and the indices of the auctions
    /// that have a line of it (with an answer or without).
    func answers(of lineItem: LineItem) -> (answers: [UInt64: RecordedAnswer], lines: IndexSet) {
        var answers: [UInt64: RecordedAnswer] = [:]
        var lines = IndexSet()
        for (index, auction) in auctions.enumerated() {
            guard let source = auction.source(lineItem.id) else { continue }
            lines.insert(index)
            if let answer = source.answer(usdRate: lineItem.usdRate) {
                answers[UInt64(index)] = answer
            }
        }
        return (answers, lines)
    }
}

/// How many requests of a replay took a recorded answer and how many a market draw, and of
/// those drawn, how many were of a line item the recorded auction has no line of.
final class ReplayCounters: Sendable {
    private let counts = Locked((recorded: 0, drawn: 0, withoutLine: 0))

    func count(recorded: Bool, hasLine: Bool = true) {
        counts.withLock { counts in
            if recorded {
                counts.recorded += 1
            } else {
                counts.drawn += 1
                if !hasLine { counts.withoutLine += 1 }
            }
        }
    }

    var recorded: Int { counts.withLock { $0.recorded } }
    var drawn: Int { counts.withLock { $0.drawn } }
    var drawnWithoutLine: Int { counts.withLock { $0.withoutLine } }
}

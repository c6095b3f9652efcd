import Foundation
import Mediation

/// One source's line of a recorded auction, as much of the engine's trace line as a replay
/// reads (`line_item`, `network`, `start_ms`, `latency_ms`, `outcome.status`, `ecpm`,
/// `raw_price`). Decoding is tolerant: unknown keys and statuses are kept as they are, so a
/// trace with more fields or new statuses still reads.
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

    /// Decodes a trace line; the outcome may be `{"status": …}` with any detail, or a bare
    /// status string.
    /// - Throws: `DecodingError` when `line_item`, `network` or the status is missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        lineItemID = try container.decode(String.self, forKey: .lineItemID)
        network = try container.decode(String.self, forKey: .network)
        startOffsetMilliseconds = try? container.decodeIfPresent(Double.self, forKey: .startOffsetMilliseconds)
        latencyMilliseconds = try? container.decodeIfPresent(Double.self, forKey: .latencyMilliseconds)
        eCPM = try? container.decodeIfPresent(Double.self, forKey: .eCPM)
        rawPrice = try? container.decodeIfPresent(Double.self, forKey: .rawPrice)
        if let outcome = try? container.nestedContainer(keyedBy: OutcomeKeys.self, forKey: .outcome) {
            status = try outcome.decode(String.self, forKey: .status)
        } else {
            status = try container.decode(String.self, forKey: .outcome)
        }
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
            } else if let rawPrice, rawPrice.isFinite, rawPrice > 0 {
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
    /// The placement id.
    public var placementID: String
    /// The winning line item, if any.
    public var winner: String?
    /// The winning value, USD CPM.
    public var winningECPM: Double?
    /// One line per source.
    public var sources: [RecordedSource]

    private enum CodingKeys: String, CodingKey {
        case placementID = "placement"
        case winner
        case winningECPM = "winning_ecpm"
        case sources
    }

    /// Creates a recorded auction.
    public init(placementID: String, winner: String?, winningECPM: Double?, sources: [RecordedSource]) {
        self.placementID = placementID
        self.winner = winner
        self.winningECPM = winningECPM
        self.sources = sources
    }

    /// The line of `lineItemID`.
    public func source(_ lineItemID: String) -> RecordedSource? {
        sources.first { $0.lineItemID == lineItemID }
    }
}

/// A recorded run: the auctions of an NDJSON event log (`mediate --watch --events FILE`, or
/// ``NDJSONEventWriter`` in a host), in file order. Lines whose `event` is not
/// `auction_finished` are skipped; so is a blank line.
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
    ///   readable trace.
    public static func read(ndjson data: Data) throws(SimulationError) -> Recording {
        var auctions: [RecordedAuction] = []
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
            let header: EventHeader
            do {
                header = try decoder.decode(EventHeader.self, from: line)
            } catch {
                throw invalid("not a JSON object with an \"event\" name")
            }
            guard header.event == "auction_finished" else { continue }
            do {
                auctions.append(try decoder.decode(AuctionLine.self, from: line).trace)
            } catch {
                throw invalid("an auction_finished event without a readable trace (placement, sources with line_item, network and outcome.status)")
            }
            guard auctions.count <= maximumAuctions else { throw invalid("more than \(maximumAuctions) auctions") }
        }
        return Recording(auctions: auctions)
    }

    /// Reads the NDJSON event log at `url`.
    /// - Throws: ``SimulationError``: `unreadable_recording` when the file cannot be read,
    ///   `invalid_recording` as ``read(ndjson:)``.
    public static func load(contentsOf url: URL) throws(SimulationError) -> Recording {
        // Only a regular file (through a symbolic link): a FIFO's open would block until a
        // writer came, a device would never end; Foundation's error for them says "permission".
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw SimulationError(code: .unreadableRecording, message: "no such file: \(url.path)")
        }
        guard !isDirectory.boolValue else {
            throw SimulationError(code: .unreadableRecording, message: "cannot read \(url.path): it is a directory")
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
        guard (attributes?[.type] as? FileAttributeType) == .typeRegular else {
            throw SimulationError(code: .unreadableRecording, message: "cannot read \(url.path): not a regular file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SimulationError(code: .unreadableRecording, message: "cannot read \(url.path): \((error as NSError).localizedDescription)")
        }
        return try read(ndjson: data)
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

    /// The recorded answers of `lineItem`, by auction index.
    func answers(of lineItem: LineItem) -> [UInt64: RecordedAnswer] {
        var answers: [UInt64: RecordedAnswer] = [:]
        for (index, auction) in auctions.enumerated() {
            if let answer = auction.source(lineItem.id)?.answer(usdRate: lineItem.usdRate) {
                answers[UInt64(index)] = answer
            }
        }
        return answers
    }
}

/// How many requests of a replay took a recorded answer and how many a market draw.
final class ReplayCounters: Sendable {
    private let counts = Locked((recorded: 0, drawn: 0))

    func count(recorded: Bool) {
        counts.withLock { counts in
            if recorded { counts.recorded += 1 } else { counts.drawn += 1 }
        }
    }

    var recorded: Int { counts.withLock { $0.recorded } }
    var drawn: Int { counts.withLock { $0.drawn } }
}

import Foundation
import Mediation
import MediationSimulation
import Testing

/// `Recording.read(ndjson:)` is strict about what a replay takes from a line: a tampered line is
/// refused with its line and JSON path, not replayed as a market draw.
@Suite("Recording reader")
struct RecordingReaderTests {
    private static func line(_ source: String) -> String {
        #"{"event":"auction_finished","at_ms":50,"placement":"p","trace":{"placement":"p","winner":"a","winning_ecpm":1.2,"sources":[{"line_item":"b","network":"nb","latency_ms":80,"outcome":{"status":"no_fill"}},"# + source + "]}}"
    }

    private static let good = #"{"line_item":"a","network":"na","start_ms":0,"latency_ms":50,"outcome":{"status":"won"},"ecpm":1.2}"#

    private static func read(_ lines: [String]) throws(SimulationError) -> Recording {
        try Recording.read(ndjson: Data(lines.joined(separator: "\n").utf8))
    }

    @Test("a good recording reads, each auction with its line")
    func goodRecording() throws {
        let recording = try Self.read([#"{"event":"auction_started","at_ms":0}"#, Self.line(Self.good), Self.line(Self.good)])
        #expect(recording.auctions.map(\.line) == [2, 3])
        #expect(recording.auctions[0].source("a")?.eCPM == 1.2)
        #expect(recording.auctions[0].source("a")?.latencyMilliseconds == 50)
    }

    @Test("an auction id recorded twice is refused at the second line, naming the first; distinct ids read")
    func repeatedAuctionID() throws {
        func line(_ id: String) -> String {
            Self.line(Self.good).replacingOccurrences(of: #""trace":{"#, with: #""trace":{"auction_id":"# + id + ",")
        }
        let distinct = try Self.read([line(#""a1""#), line(#""a2""#), Self.line(Self.good), Self.line(Self.good)])
        #expect(distinct.auctions.map(\.auctionID) == ["a1", "a2", nil, nil])
        do throws(SimulationError) {
            _ = try Self.read([line(#""a1""#), line(#""a2""#), "", line(#""a1""#)])
            Issue.record("read")
        } catch {
            #expect(error.code == .invalidRecording)
            #expect(error.path == "line 4: trace.auction_id", "\(error)")
            #expect(error.message == #"the auction "a1" is already recorded at line 1; an events log holds each auction once (is one log given twice?)"#, "\(error)")
        }
        do throws(SimulationError) {
            _ = try Self.read([line("7")])
            Issue.record("read")
        } catch {
            #expect(error.path == "line 1: trace.auction_id", "\(error)")
            #expect(error.message == "not a string", "\(error)")
        }
    }

    @Test("a winning eCPM past the largest price is refused, not clamped to it and counted as revenue")
    func winningECPMOutOfRange() {
        do throws(SimulationError) {
            _ = try Self.read([Self.line(Self.good).replacingOccurrences(of: #""winning_ecpm":1.2"#, with: #""winning_ecpm":1e308"#)])
            Issue.record("read")
        } catch {
            #expect(error.path == "line 1: trace.winning_ecpm", "\(error)")
            #expect(error.message == "must be a USD CPM above 0 and at most 1000000, found 1e+308", "\(error)")
        }
    }

    @Test("a bad latency, an unknown outcome, an out-of-range eCPM: refused with the line and field", arguments: [
        (#""latency_ms":50"#, #""latency_ms":-5"#, "line 2: trace.sources[1].latency_ms", "must be a number of milliseconds from 0 to 3600000, found -5.0"),
        (#""latency_ms":50"#, #""latency_ms":"soon""#, "line 2: trace.sources[1].latency_ms", "must be a number of milliseconds from 0 to 3600000"),
        (#""latency_ms":50"#, #""latency_ms":3600001"#, "line 2: trace.sources[1].latency_ms", "must be a number of milliseconds from 0 to 3600000, found 3600001.0"),
        (#""start_ms":0"#, #""start_ms":-1"#, "line 2: trace.sources[1].start_ms", "must be a number of milliseconds from 0 to 3600000, found -1.0"),
        (#""won""#, #""w0n""#, "line 2: trace.sources[1].outcome.status", #"unknown outcome status "w0n"; a recording has won, lost, no_fill, error, timeout, cancelled, not_asked, late"#),
        (#""ecpm":1.2"#, #""ecpm":1e308"#, "line 2: trace.sources[1].ecpm", "must be a USD CPM above 0 and at most 1000000, found 1e+308"),
        (#""ecpm":1.2"#, #""ecpm":0"#, "line 2: trace.sources[1].ecpm", "must be a USD CPM above 0 and at most 1000000, found 0.0"),
        (#""ecpm":1.2"#, #""ecpm":1.2,"raw_price":"x""#, "line 2: trace.sources[1].raw_price", "must be a number"),
        (#""network":"na","#, "", "line 2: trace.sources[1].network", "missing: an auction_finished event needs a trace with placement and sources with line_item, network and outcome.status"),
    ])
    func tamperedLines(_ original: String, _ tampered: String, _ path: String, _ message: String) throws {
        let source = Self.good.replacingOccurrences(of: original, with: tampered)
        #expect(source != Self.good)
        do throws(SimulationError) {
            _ = try Self.read([Self.line(Self.good), Self.line(source)])
            Issue.record("\(source) was read")
        } catch {
            #expect(error.code == .invalidRecording)
            #expect(error.path == path, "\(error)")
            #expect(error.message == message, "\(error)")
        }
    }
}

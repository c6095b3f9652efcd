import Foundation
import Testing
@testable import MediationLearning

/// The events log's lines are read one at a time: a log of blank lines is read without keeping
/// them (an attack gave 64 MiB of blank lines and the reader first built an array of every line).
@Suite("EventLog lines")
struct EventLogLinesTests {
    /// Counts the bytes an iterator takes from its log.
    final class Taken {
        var count = 0
    }

    @Test("a log of a million blank lines (\\n and \\r\\n) yields no line")
    func blankLinesYieldNone() {
        let blank = Array(repeating: Array("\n\r\n".utf8), count: 500_000).joined()
        var lines = EventLogLines(blank)
        #expect(lines.next() == nil)
    }

    @Test("the first line is returned having taken only its own bytes, not the blank lines after it")
    func linesAreTakenOneAtATime() throws {
        let taken = Taken()
        let log = Array("{\"a\":1}\r\n".utf8) + Array(repeating: UInt8(ascii: "\n"), count: 1_000_000) + Array("{\"b\":2}".utf8)
        var lines = EventLogLines(log.lazy.map { byte in taken.count += 1; return byte })
        let next = lines.next()
        let first = try #require(next)
        #expect(first.number == 1 && first.line == Array("{\"a\":1}".utf8))
        #expect(taken.count == 9, "\(taken.count) bytes taken for a line of 9")
        let after = lines.next()
        let second = try #require(after)
        #expect(second.number == 1_000_002 && second.line == Array("{\"b\":2}".utf8))
        #expect(lines.next() == nil)
    }

    @Test("experiment report --events: a log of blank lines holds no events")
    func blankLogIsRefused() {
        var users = ExperimentUsers(designs: [], asOf: nil)
        var days = ExperimentEvents.Days()
        #expect {
            try ExperimentEvents.read(Array(repeating: UInt8(ascii: "\n"), count: 100_000), file: "e.ndjson", into: &users, days: &days)
        } throws: { error in
            "\(error)".contains("holds no events")
        }
    }
}

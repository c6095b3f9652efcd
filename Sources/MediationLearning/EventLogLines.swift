/// The non-empty lines of an events log, one at a time, with their 1-based line numbers and
/// without their line ends (`\n` or `\r\n`). Bytes are taken from `Bytes` only up to the end of
/// the line returned and only the current line is kept, so reading a log takes memory for its
/// longest line, however many (blank) lines it has.
package struct EventLogLines<Bytes: Sequence<UInt8>>: Sequence, IteratorProtocol {
    private var bytes: Bytes.Iterator
    private var lineNumber = 0
    private var line: [UInt8] = []
    private var ended = false

    /// The lines of `bytes`.
    /// - Parameter bytes: the log, one JSON object a line.
    package init(_ bytes: Bytes) {
        self.bytes = bytes.makeIterator()
    }

    /// The next non-empty line and its number, or `nil` at the end of the log.
    package mutating func next() -> (number: Int, line: [UInt8])? {
        while !ended {
            line.removeAll(keepingCapacity: true)
            var lineEnd = false
            while let byte = bytes.next() {
                if byte == UInt8(ascii: "\n") { lineEnd = true; break }
                line.append(byte)
            }
            if !lineEnd {
                ended = true
                if line.isEmpty { return nil }
            }
            lineNumber += 1
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if !line.isEmpty { return (lineNumber, line) }
        }
        return nil
    }
}

import Foundation

/// One CSV field: its text and where it starts.
struct CSVField: Hashable, Sendable {
    var text: String
    var line: Int
    var column: Int
}

/// One CSV record (a line, or more when a quoted field holds line ends).
struct CSVRecord: Hashable, Sendable {
    var fields: [CSVField]
    var line: Int
}

/// RFC 4180 records, read one at a time from a stream of bytes: fields separated by commas,
/// records by LF or CRLF; a field in double quotes may hold commas, line ends and doubled
/// quotes. One BOM at the start is skipped (a second, or one at the start of a later field, is refused), and so are empty lines at the end of the file (any
/// number). A file in UTF-16 or UTF-32 (a byte order mark, or NUL bytes among its first four)
/// is refused as such. Refused: an empty line with records after it, a quote inside an unquoted field, text
/// after a closing quote, an unterminated quote, a lone CR, control characters other than tab,
/// invalid UTF-8, a record longer than the limit.
///
/// It holds one record's bytes (at most the limit) and one chunk of the input at a time, never
/// the whole input: memory does not grow with the length of the file.
struct CSVReader {
    /// The bytes of the input still to read, a chunk at a time (`nil` at its end).
    private let read: () throws(ReportError) -> [UInt8]?
    private let file: String
    private let maximumRecordLength: Int
    /// Read but not yet parsed input from ``position`` on.
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private var started = false
    private var line = 1
    private var column = 1

    /// A reader of `read`'s chunks, named `file` in locations.
    init(file: String, maximumRecordLength: Int, read: @escaping () throws(ReportError) -> [UInt8]?) {
        self.file = file
        self.maximumRecordLength = maximumRecordLength
        self.read = read
    }

    /// Makes at least `count` bytes from ``position`` on available, or all that is left.
    private mutating func fill(_ count: Int) throws(ReportError) {
        guard buffer.count - position < count, !atEnd else { return }
        if position > 0 {
            buffer.removeSubrange(0..<position)
            position = 0
        }
        while buffer.count < count, !atEnd {
            if let chunk = try read() {
                buffer.append(contentsOf: chunk)
            } else {
                atEnd = true
            }
        }
    }

    private func location(_ line: Int, _ column: Int) -> ReportLocation { ReportLocation(file: file, line: line, column: column) }

    /// The next record, or `nil` at the end of the input.
    /// - Throws: ``ReportError`` at the first mistake.
    mutating func next() throws(ReportError) -> CSVRecord? {
        // A record's bytes and the two after it (a CRLF, a doubled quote) are all in the buffer
        // before it is parsed: the end of the buffer is then the end of the input.
        try fill(maximumRecordLength + 16)
        if !started {
            started = true
            if let encoding = Self.wideEncoding(of: buffer[position...].prefix(4)) {
                throw ReportError(ReportLocation(file: file), "the file is \(encoding) text, not UTF-8; save it as UTF-8 (CSV UTF-8)")
            }
            if buffer[position...].starts(with: [0xEF, 0xBB, 0xBF]) { position += 3 }
            if buffer[position...].starts(with: [0xEF, 0xBB, 0xBF]) {
                throw ReportError(location(1, 1), "a second byte order mark (EF BB BF) after the first; a report starts with at most one")
            }
        }
        guard position < buffer.count else { return nil }
        if lineEndLength(at: position) > 0 {
            // An empty line: skipped when nothing but line ends follows (editors and exports
            // often leave some); before more rows it is a mistake.
            let empty = location(line, column)
            while true {
                try fill(2)
                guard position < buffer.count else { return nil }
                let length = lineEndLength(at: position)
                guard length > 0 else { break }
                position += length
            }
            throw ReportError(empty, "an empty line with rows after it (empty lines are skipped only at the end of the file)")
        }
        return try record()
    }

    private mutating func record() throws(ReportError) -> CSVRecord {
        let bytes = buffer
        var index = position
        defer { position = index }
        let recordStart = index
        let recordLine = line
        var fields: [CSVField] = []
        while true {
            if index - recordStart > maximumRecordLength {
                throw ReportError(location(recordLine, 1), "the record is longer than \(maximumRecordLength) bytes")
            }
            let fieldLine = line, fieldColumn = column
            var text: [UInt8] = []
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                column += 1
                var closed = false
                while index < bytes.count {
                    let byte = bytes[index]
                    if index - recordStart > maximumRecordLength {
                        throw ReportError(location(recordLine, 1), "the record is longer than \(maximumRecordLength) bytes")
                    }
                    if byte == UInt8(ascii: "\"") {
                        if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                            text.append(byte)
                            index += 2
                            column += 2
                            continue
                        }
                        index += 1
                        column += 1
                        closed = true
                        break
                    }
                    if byte == UInt8(ascii: "\n") {
                        text.append(byte)
                        index += 1
                        line += 1
                        column = 1
                        continue
                    }
                    if byte == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                        text.append(contentsOf: [byte, bytes[index + 1]])
                        index += 2
                        line += 1
                        column = 1
                        continue
                    }
                    try check(byte, at: location(line, column))
                    text.append(byte)
                    index += 1
                    if byte & 0xC0 != 0x80 { column += 1 }
                }
                guard closed else {
                    throw ReportError(location(fieldLine, fieldColumn), "the quoted field is never closed")
                }
            } else {
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
                    if index - recordStart > maximumRecordLength {
                        throw ReportError(location(recordLine, 1), "the record is longer than \(maximumRecordLength) bytes")
                    }
                    if byte == UInt8(ascii: "\"") {
                        throw ReportError(location(line, column), "a double quote inside an unquoted field (quote the whole field and double the quote)")
                    }
                    try check(byte, at: location(line, column))
                    text.append(byte)
                    index += 1
                    if byte & 0xC0 != 0x80 { column += 1 }
                }
            }
            // Foundation drops a leading BOM from each field without a word: refused instead,
            // as only the file may start with one (U+FEFF is invisible in an editor).
            if text.starts(with: [0xEF, 0xBB, 0xBF]) {
                throw ReportError(location(fieldLine, fieldColumn), "a byte order mark (EF BB BF, an invisible U+FEFF) at the start of the field; only the file may start with one: delete it")
            }
            guard let string = String(bytes: text, encoding: .utf8) else {
                throw ReportError(location(fieldLine, fieldColumn), "the field is not valid UTF-8")
            }
            fields.append(CSVField(text: string, line: fieldLine, column: fieldColumn))
            // After a field: a comma, a line end, or the end of the file.
            if index >= bytes.count {
                return CSVRecord(fields: fields, line: recordLine)
            } else if bytes[index] == UInt8(ascii: ",") {
                index += 1
                column += 1
            } else if bytes[index] == UInt8(ascii: "\n") {
                index += 1
                line += 1
                column = 1
                return CSVRecord(fields: fields, line: recordLine)
            } else if bytes[index] == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                index += 2
                line += 1
                column = 1
                return CSVRecord(fields: fields, line: recordLine)
            } else if bytes[index] == UInt8(ascii: "\r") {
                throw ReportError(location(line, column), "a carriage return must be followed by a line feed")
            } else {
                throw ReportError(location(line, column), "unexpected text after a closing quote (a field ends at a comma or a line end)")
            }
        }
    }

    /// The length of the line end (LF: 1, CRLF: 2) at `index`, 0 when there is none.
    private func lineEndLength(at index: Int) -> Int {
        guard index < buffer.count else { return 0 }
        if buffer[index] == UInt8(ascii: "\n") { return 1 }
        return buffer[index] == UInt8(ascii: "\r") && index + 1 < buffer.count && buffer[index + 1] == UInt8(ascii: "\n") ? 2 : 0
    }

    /// The UTF-16 or UTF-32 encoding a file starting with `start` (its first four bytes, or
    /// all of a shorter file) is in, by its byte order mark, or without one by the NUL bytes
    /// ASCII text (a header) has in it: "UTF-16 (little-endian)"; `nil` for anything else.
    static func wideEncoding(of start: ArraySlice<UInt8>) -> String? {
        let bytes = Array(start.prefix(4))
        let nul = bytes.map { $0 == 0 }
        if bytes.starts(with: [0xFF, 0xFE, 0, 0]) || nul == [false, true, true, true] { return "UTF-32 (little-endian)" }
        if bytes.starts(with: [0, 0, 0xFE, 0xFF]) || nul == [true, true, true, false] { return "UTF-32 (big-endian)" }
        if bytes.starts(with: [0xFF, 0xFE]) || (nul.count >= 2 && !nul[0] && nul[1]) { return "UTF-16 (little-endian)" }
        if bytes.starts(with: [0xFE, 0xFF]) || (nul.count >= 2 && nul[0] && !nul[1]) { return "UTF-16 (big-endian)" }
        return nil
    }

    /// Refuses control characters other than tab (and NUL: binary data).
    private func check(_ byte: UInt8, at location: ReportLocation) throws(ReportError) {
        guard byte >= 0x20 || byte == 0x09, byte != 0x7F else {
            throw ReportError(location, "a control character (byte 0x\(String(byte, radix: 16, uppercase: true))) where text was expected; is this a CSV file?")
        }
    }
}

/// A JSON number as written: its text, so a whole number (`30`) and a fraction (`30.5`,
/// `3e1`) stay apart and huge values are never silently rounded into range.
package struct JSONNumberLiteral: Hashable, Sendable, CustomStringConvertible {
    /// The number's text, e.g. `"30.5"`.
    package var text: String

    /// Creates a literal from its text (which must be a JSON number, e.g. `"1.25"`).
    /// - Parameter text: the number's text.
    package init(text: String) {
        self.text = text
    }

    /// Whether it was written without a fraction or exponent.
    package var isWhole: Bool { !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) }

    /// The value as `Int`, when it is whole and fits.
    package var intValue: Int? { isWhole ? Int(text) : nil }

    /// The value as `Double` (infinite when out of range, e.g. `1e400`).
    package var doubleValue: Double { Double(text) ?? .nan }

    package var description: String { text }
}

/// One member of a JSON object, in file order (duplicates are kept so the reader of the
/// configuration can name them).
package struct JSONMember: Sendable {
    package var key: String
    package var value: JSONNode

    /// Creates a member.
    /// - Parameters:
    ///   - key: the key.
    ///   - value: the value.
    package init(key: String, value: JSONNode) {
        self.key = key
        self.value = value
    }
}

/// A parsed JSON value that keeps what the configuration needs to be strict: number text,
/// member order and duplicate keys.
package indirect enum JSONNode: Sendable {
    case null
    case bool(Bool)
    case number(JSONNumberLiteral)
    case string(String)
    case array([JSONNode])
    case object([JSONMember])

    /// The JSON type's name with the value, for error messages: `string "60"`, `number 30.5`.
    package var summary: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return "boolean \(value)"
        case .number(let number): return "number \(number.text.count > 24 ? String(number.text.prefix(24)) + "…" : number.text)"
        case .string(let value):
            return "string \"\(ConfigurationText.excerpt(value, limit: 40))\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A small strict JSON parser (RFC 8259) for the configuration file: no comments, no trailing
/// commas, no leading zeros, no bare control characters, valid UTF-8 only, at most
/// ``maximumDepth`` levels of nesting and ``maximumSize`` bytes. Every syntax error names the
/// JSON path where it happened and the line and column. Never traps on any input.
package struct StrictJSONReader {
    /// The deepest nesting accepted.
    package static let maximumDepth = 64
    /// The largest document accepted, in bytes (4 MiB).
    package static let maximumSize = 4 * 1024 * 1024

    private let bytes: [UInt8]
    private var position = 0

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses a whole document.
    /// - Parameter bytes: the file's bytes (UTF-8; a leading byte-order mark is skipped).
    /// - Returns: the root value.
    /// - Throws: ``ConfigurationError`` with code `syntax`.
    package static func parse(_ bytes: [UInt8]) throws(ConfigurationError) -> JSONNode {
        guard bytes.count <= maximumSize else {
            throw ConfigurationError(code: .syntax, path: "$", message: "the JSON document is larger than \(maximumSize / 1024 / 1024) MiB")
        }
        var input = bytes
        if input.starts(with: [0xEF, 0xBB, 0xBF]) { input.removeFirst(3) }
        if let offset = firstInvalidUTF8Offset(input) {
            throw ConfigurationError(code: .syntax, path: "$", message: "the file is not valid UTF-8 (byte \(offset))")
        }
        var reader = StrictJSONReader(bytes: input)
        reader.skipWhitespace()
        guard reader.position < reader.bytes.count else {
            throw ConfigurationError(code: .syntax, path: "$", message: "the file is empty; expected a JSON object")
        }
        let root = try reader.parseValue(path: .root, depth: 0)
        reader.skipWhitespace()
        if reader.position < reader.bytes.count {
            throw reader.syntaxError("unexpected text after the end of the document", path: .root)
        }
        return root
    }

    // MARK: - Values

    private mutating func parseValue(path: JSONPath, depth: Int) throws(ConfigurationError) -> JSONNode {
        guard depth < StrictJSONReader.maximumDepth else {
            throw syntaxError("nested deeper than \(StrictJSONReader.maximumDepth) levels", path: path)
        }
        skipWhitespace()
        guard let byte = peek() else {
            throw syntaxError("unexpected end of file; expected a value", path: path)
        }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(path: path, depth: depth)
        case UInt8(ascii: "["): return try parseArray(path: path, depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString(path: path))
        case UInt8(ascii: "t"): try expectLiteral("true", path: path); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false", path: path); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null", path: path); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber(path: path))
        default: throw syntaxError("unexpected character \(StrictJSONReader.describe(byte)); expected a value", path: path)
        }
    }

    private mutating func parseObject(path: JSONPath, depth: Int) throws(ConfigurationError) -> JSONNode {
        position += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                throw syntaxError("expected a quoted key", path: path)
            }
            let key = try parseString(path: path)
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else {
                throw syntaxError("expected ':' after the key \(ConfigurationText.quoted(key))", path: path.appending(key))
            }
            position += 1
            let value = try parseValue(path: path.appending(key), depth: depth + 1)
            members.append(JSONMember(key: key, value: value))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return .object(members)
            default: throw syntaxError("expected ',' or '}'", path: path)
            }
        }
    }

    private mutating func parseArray(path: JSONPath, depth: Int) throws(ConfigurationError) -> JSONNode {
        position += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue(path: path.appending(index: elements.count), depth: depth + 1))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return .array(elements)
            default: throw syntaxError("expected ',' or ']'", path: path)
            }
        }
    }

    private mutating func parseNumber(path: JSONPath) throws(ConfigurationError) -> JSONNumberLiteral {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), StrictJSONReader.isDigit(first) else {
            throw syntaxError("expected a digit", path: path)
        }
        position += 1
        if first == UInt8(ascii: "0"), let next = peek(), StrictJSONReader.isDigit(next) {
            throw syntaxError("a number may not have a leading zero", path: path)
        }
        skipDigits()
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let digit = peek(), StrictJSONReader.isDigit(digit) else {
                throw syntaxError("expected a digit after '.'", path: path)
            }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let digit = peek(), StrictJSONReader.isDigit(digit) else {
                throw syntaxError("expected a digit in the exponent", path: path)
            }
            skipDigits()
        }
        return JSONNumberLiteral(text: String(decoding: bytes[start..<position], as: UTF8.self))
    }

    private mutating func parseString(path: JSONPath) throws(ConfigurationError) -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flush(_ end: Int) {
            if end > runStart { scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars) }
        }
        while true {
            guard let byte = peek() else {
                throw syntaxError("unterminated string", path: path)
            }
            switch byte {
            case UInt8(ascii: "\""):
                flush(position)
                position += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(position)
                position += 1
                scalars.append(try parseEscape(path: path))
                runStart = position
            case 0x00..<0x20:
                throw syntaxError("a control character must be escaped inside a string", path: path)
            default:
                position += 1
            }
        }
    }

    private mutating func parseEscape(path: JSONPath) throws(ConfigurationError) -> Unicode.Scalar {
        guard let byte = peek() else { throw syntaxError("unterminated escape", path: path) }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try parseHex4(path: path)
            if (0xD800...0xDBFF).contains(high) {
                guard peek() == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                    throw syntaxError("a high surrogate must be followed by a low surrogate", path: path)
                }
                position += 2
                let low = try parseHex4(path: path)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw syntaxError("invalid low surrogate", path: path)
                }
                let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw syntaxError("invalid \\u escape", path: path) }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else {
                throw syntaxError("a lone surrogate is not a character", path: path)
            }
            return scalar
        default:
            throw syntaxError("invalid escape \\\(StrictJSONReader.describe(byte))", path: path)
        }
    }

    private mutating func parseHex4(path: JSONPath) throws(ConfigurationError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek() else { throw syntaxError("unterminated \\u escape", path: path) }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw syntaxError("invalid hex digit in \\u escape", path: path)
            }
            value = value * 16 + digit
            position += 1
        }
        return value
    }

    private mutating func expectLiteral(_ literal: String, path: JSONPath) throws(ConfigurationError) {
        for expected in literal.utf8 {
            guard peek() == expected else {
                throw syntaxError("invalid literal; expected \(literal)", path: path)
            }
            position += 1
        }
    }

    // MARK: - Bytes

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            position += 1
        }
    }

    private mutating func skipDigits() {
        while let byte = peek(), StrictJSONReader.isDigit(byte) { position += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : hex(byte)
    }

    private static func hex(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        return "0x" + (hex.count == 1 ? "0" + hex : hex)
    }

    private func syntaxError(_ message: String, path: JSONPath) -> ConfigurationError {
        var line = 1
        var column = 1
        for byte in bytes[0..<min(position, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return ConfigurationError(code: .syntax, path: path.description, message: "\(message) (line \(line), column \(column))")
    }

    /// The offset of the first byte that is not part of valid UTF-8, or `nil` when all is valid.
    private static func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length: Int
            var lowerBound: UInt8 = 0x80
            var upperBound: UInt8 = 0xBF
            switch lead {
            case 0x00...0x7F: index += 1; continue
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lowerBound = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upperBound = 0x9F
            case 0xF0: length = 4; lowerBound = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upperBound = 0x8F
            default: return index
            }
            guard index + length <= bytes.count else { return index }
            let second = bytes[index + 1]
            guard second >= lowerBound, second <= upperBound else { return index }
            for offset in 2..<max(2, length) where bytes[index + offset] & 0xC0 != 0x80 {
                return index
            }
            index += length
        }
        return nil
    }
}

/// A dotted version such as `2.10.0`, compared part by part as numbers: up to 4 parts of at most
/// 9 digits each, missing parts 0, so `2.10.0 > 2.9.0` and `2.9 == 2.9.0`. Anything else (a
/// letter, an empty part, a fifth part) is no version: the signal is unknown.
package struct Version: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The four parts, missing ones 0.
    package let parts: (UInt32, UInt32, UInt32, UInt32)
    /// The text it was read from.
    package let text: String

    /// Reads `text`; `nil` when it is not 1 to 4 dot-separated runs of 1 to 9 ASCII digits.
    package init?(_ text: String) {
        var parts: [UInt32] = [0, 0, 0, 0]
        var count = 0
        var digits = 0
        var value: UInt32 = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, count < 3 else { return nil }
                parts[count] = value
                count += 1
                digits = 0
                value = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                digits += 1
                guard digits <= 9 else { return nil }
                value = value * 10 + UInt32(byte - UInt8(ascii: "0"))
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        parts[count] = value
        self.parts = (parts[0], parts[1], parts[2], parts[3])
        self.text = text
    }

    /// Equal when every part is (`2.9 == 2.9.0`), whatever the text.
    package static func == (lhs: Version, rhs: Version) -> Bool {
        lhs.parts == rhs.parts
    }

    /// Part by part, from the first.
    package static func < (lhs: Version, rhs: Version) -> Bool {
        lhs.parts < rhs.parts
    }

    /// Hashes the parts (so equal versions hash alike).
    package func hash(into hasher: inout Hasher) {
        hasher.combine(parts.0)
        hasher.combine(parts.1)
        hasher.combine(parts.2)
        hasher.combine(parts.3)
    }

    /// The text it was read from.
    package var description: String { text }
}

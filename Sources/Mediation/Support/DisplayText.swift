/// Text from a network or a configuration made safe for a terminal (engine rule R17): control
/// characters (C0, DEL, C1), line and paragraph separators and bidirectional overrides are
/// written as visible escapes such as `\u{1B}` and `\u{0A}`, so a creative id like
/// `cr<ESC>[31mRED<LF>FAKE-LINE` prints on one line and changes no colour.
package enum DisplayText {
    /// A number for a message (a configuration's, a network's) as its value is, never rounded:
    /// a whole number without a fraction (`90`), any other in the shortest form that reads back
    /// as the same value (`71.9`, `1e-9`, `2.5e20`), so that a message never shows a value the
    /// input does not have.
    /// - Parameter value: the number.
    package static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e16 { return String(Int64(value)) }
        // Swift's description is the shortest that reads back exactly: `1e-09`, `2.5e+20`.
        let text = "\(value)"
        guard let e = text.firstIndex(of: "e"), let exponent = Int(text[text.index(after: e)...]) else { return text }
        return "\(text[..<e])e\(exponent)"
    }

    /// `text` with every character that could move the cursor, change the terminal's state or
    /// reorder the line written as `\u{XX}`; other text is kept as it is.
    /// - Parameter text: text from outside (a network, a configuration, a host).
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            result += escaped(scalar)
        }
        return result
    }

    /// One scalar, escaped when it must be (see ``escaped(_:)-(String)``).
    /// - Parameter scalar: a Unicode scalar.
    package static func escaped(_ scalar: Unicode.Scalar) -> String {
        guard needsEscape(scalar) else { return String(Character(scalar)) }
        return "\\u{" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2) + "}"
    }

    /// Whether `scalar` is written escaped.
    package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true // C0, DEL, C1 (ESC, CR, LF, CSI …)
        case 0x2028, 0x2029: true // line and paragraph separators
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true // bidirectional controls
        default: false
        }
    }
}

extension String {
    /// The string with `0` in front up to `length` characters.
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}

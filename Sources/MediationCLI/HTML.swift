import Mediation

/// The one HTML escaper of `mediate`'s pages (the one-shot `--report` and the simulation's).
enum HTML {
    /// `text` safe inside XHTML text and attribute values: `&`, `<`, `>`, `"` and `'` as
    /// entities; control characters other than tab and line feed, line separators and
    /// bidirectional controls (a placement id with U+202E would reorder the page's text) as
    /// visible escapes (``DisplayText``), as are U+FFFE and U+FFFF, which XML 1.0 does not allow.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case "\u{FFFE}", "\u{FFFF}": result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result += DisplayText.escaped(scalar)
            }
        }
        return result
    }
}

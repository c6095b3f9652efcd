/// Writes a parsed ``JSONNode`` back as JSON text, members in their order and numbers exactly as
/// they were written (`1.40` stays `1.40`): how `mediate config sign` re-emits a configuration
/// with its release fields set, without changing any value.
package enum JSONNodeWriter {
    /// `node` as JSON: objects and arrays over indented lines (two spaces), a trailing newline.
    /// - Parameter node: the value.
    package static func text(_ node: JSONNode) -> String {
        var output = ""
        write(node, indent: "", into: &output)
        return output + "\n"
    }

    private static func write(_ node: JSONNode, indent: String, into output: inout String) {
        switch node {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let number): output += number.text
        case .string(let value): output += quoted(value)
        case .array(let elements):
            guard !elements.isEmpty else { output += "[]"; return }
            let inner = indent + "  "
            output += "[\n"
            for (index, element) in elements.enumerated() {
                output += inner
                write(element, indent: inner, into: &output)
                output += index == elements.count - 1 ? "\n" : ",\n"
            }
            output += indent + "]"
        case .object(let members):
            guard !members.isEmpty else { output += "{}"; return }
            let inner = indent + "  "
            output += "{\n"
            for (index, member) in members.enumerated() {
                output += inner + quoted(member.key) + ": "
                write(member.value, indent: inner, into: &output)
                output += index == members.count - 1 ? "\n" : ",\n"
            }
            output += indent + "}"
        }
    }

    /// `text` as a JSON string literal (RFC 8259: `"` and `\` escaped, control characters as
    /// `\n`, `\t` … or `\u00XX`).
    package static func quoted(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = SHA256Digest.hex([UInt8(scalar.value)])
                output += "\\u00" + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}

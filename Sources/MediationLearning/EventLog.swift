import Mediation

/// The rules every reader of an engine events log (`mediate --watch --events`,
/// ``MediationEvent/NDJSONWriter`` in a host) shares: `mediate optimize --events` and
/// `mediate simulate --replay` read the same files and refuse the same ones.
package enum EventLog {
    /// The largest events log read: 256 MiB.
    package static let maximumSize = 256 << 20

    /// What is wrong with one line of a log as JSON, before its fields are read: `nil` for a
    /// JSON object with each key once at every level; otherwise "not JSON: …" naming the
    /// reader's path, "a JSON array, not an object", "the key \"event\" appears twice at
    /// $.event" (a decoder would keep one of the two silently), or "revenue_usd: the number
    /// 1e999 is out of range" for a number no `Double` holds.
    /// - Parameter line: the line's bytes, without its line end.
    package static func problem(ofLine line: some Collection<UInt8>) -> String? {
        let node: JSONNode
        do {
            node = try StrictJSONReader.parse(Array(line))
        } catch {
            return "not JSON: \(error.message) at \(error.path)"
        }
        guard case .object = node else {
            let kind = switch node {
            case .array: "array"
            case .string: "string"
            case .number: "number"
            case .bool: "boolean"
            default: "null"
            }
            return "a JSON \(kind), not an object; each line of an events log is one JSON object"
        }
        do {
            _ = try ConfigurationReading.jsonValue(node, at: .root)
        } catch {
            return "\(error.message) at \(error.path); each key appears once in an event record"
        }
        if let (path, number) = outOfRangeNumber(in: node, path: "") {
            let shown = number.text.count > 24 ? String(number.text.prefix(24)) + "…" : number.text
            return "\(path): the number \(shown) is out of range (a finite number, at most about 1.8e308)"
        }
        return nil
    }

    /// The dotted path (`revenue_usd`, `a.b[2]`) and text of the first number in `node` that no
    /// `Double` holds (`1e999`), or `nil`.
    private static func outOfRangeNumber(in node: JSONNode, path: String) -> (String, JSONNumberLiteral)? {
        switch node {
        case .number(let number):
            return number.doubleValue.isFinite ? nil : (path, number)
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = outOfRangeNumber(in: element, path: "\(path)[\(index)]") { return found }
            }
            return nil
        case .object(let members):
            for member in members {
                if let found = outOfRangeNumber(in: member.value, path: path.isEmpty ? member.key : "\(path).\(member.key)") { return found }
            }
            return nil
        default:
            return nil
        }
    }

    /// The auctions a log has recorded so far, by `auction_id`: a log holds each auction once,
    /// so one given twice (`cat run.ndjson run.ndjson`) is refused rather than counted twice.
    package struct Auctions: Sendable {
        private var lineOf: [String: Int] = [:]

        /// An empty record.
        package init() {}

        /// Records that `id` finishes at `line`.
        /// - Returns: `nil`, or when an earlier line already has `id` what is wrong, naming it.
        package mutating func record(_ id: String, line: Int) -> String? {
            guard let first = lineOf.updateValue(line, forKey: id) else { return nil }
            return "the auction \"\(DisplayText.escaped(String(id.prefix(64))))\" is already recorded at line \(first); an events log holds each auction once (is one log given twice?)"
        }
    }
}

import Foundation
import MediationLearning
@testable import Mediation

/// A JSON document as written: object members in order (duplicates allowed) and numbers as
/// their text, so mutants can use any number form (`60.0`, `6e1`, `1e400`) and repeat keys.
indirect enum ConfigTree: Sendable {
    case object([(key: String, value: ConfigTree)])
    case array([ConfigTree])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    /// One step into the tree.
    enum Step: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    /// Parses strict JSON (the loader's own reader).
    static func parse(_ text: String) throws -> ConfigTree {
        ConfigTree(try StrictJSONReader.parse(Array(text.utf8)))
    }

    private init(_ node: JSONNode) {
        switch node {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let number): self = .number(number.text)
        case .string(let value): self = .string(value)
        case .array(let elements): self = .array(elements.map(ConfigTree.init))
        case .object(let members): self = .object(members.map { ($0.key, ConfigTree($0.value)) })
        }
    }

    /// The document as JSON text (strings escaped as JSON requires).
    var json: String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let text): out += text
        case .string(let value): LearnedConfiguration.writeString(value, into: &out)
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                element.write(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                LearnedConfiguration.writeString(member.key, into: &out)
                out += ":"
                member.value.write(into: &out)
            }
            out += "}"
        }
    }

    /// Every node's path, the root included.
    var paths: [[Step]] {
        var result: [[Step]] = []
        collect(prefix: [], into: &result)
        return result
    }

    private func collect(prefix: [Step], into result: inout [[Step]]) {
        result.append(prefix)
        switch self {
        case .object(let members):
            for member in members { member.value.collect(prefix: prefix + [.key(member.key)], into: &result) }
        case .array(let elements):
            for (index, element) in elements.enumerated() { element.collect(prefix: prefix + [.index(index)], into: &result) }
        default:
            break
        }
    }

    /// The node at `path` (the first member of a repeated key).
    func node(at path: [Step]) -> ConfigTree? {
        guard let step = path.first else { return self }
        switch (self, step) {
        case (.object(let members), .key(let key)):
            return members.first { $0.key == key }?.value.node(at: Array(path.dropFirst()))
        case (.array(let elements), .index(let index)) where elements.indices.contains(index):
            return elements[index].node(at: Array(path.dropFirst()))
        default:
            return nil
        }
    }

    /// The tree with the node at `path` replaced by `transform(node)`; `nil` from the
    /// transform removes it from its object or array.
    func replacing(at path: [Step], _ transform: (ConfigTree) -> ConfigTree?) -> ConfigTree? {
        guard let step = path.first else { return transform(self) }
        let rest = Array(path.dropFirst())
        switch (self, step) {
        case (.object(var members), .key(let key)):
            guard let index = members.firstIndex(where: { $0.key == key }) else { return self }
            if let replaced = members[index].value.replacing(at: rest, transform) {
                members[index].value = replaced
            } else {
                members.remove(at: index)
            }
            return .object(members)
        case (.array(var elements), .index(let index)) where elements.indices.contains(index):
            if let replaced = elements[index].replacing(at: rest, transform) {
                elements[index] = replaced
            } else {
                elements.remove(at: index)
            }
            return .array(elements)
        default:
            return self
        }
    }
}

/// A seeded SplitMix64 generator, so a corpus is the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One mutant of the shipped configuration: its text, what was done, and tags for the kinds of
/// mutation whose verdict a JSON Schema cannot match (see `SchemaAgreementTests`).
struct ConfigMutant: Sendable {
    /// What a mutation did that a schema cannot see the same way as the loader.
    enum Tag: String, Hashable, Sendable {
        /// A whole number written with a fraction or an exponent (`60.0`, `6e1`): the loader
        /// refuses it where a whole number is required; a schema sees the value 60.
        case lexicalInteger = "lexical_integer"
        /// A number literal beyond the range of a double (`1e400`): the loader refuses it; a
        /// schema validator's JSON parser reads it as infinity.
        case nonFinite = "non_finite"
    }

    var name: String
    var json: String
    var steps: [String]
    var tags: Set<Tag>
}

/// Makes seeded mutants of a configuration: type swaps, number forms, out-of-range values,
/// unknown keys, removed fields and elements, odd strings, enum swaps, renamed and repeated
/// keys, and known optional fields added where they may or may not belong.
struct ConfigMutator {
    let base: ConfigTree
    private let paths: [[ConfigTree.Step]]

    init(base: ConfigTree) {
        self.base = base
        paths = base.paths
    }

    static let oddStrings = [
        "", " ", "\t", "\n", "x y", "sandbox ", " sandbox", "SANDBOX", "HTTP://ads.example.com", "https://ads.example.com/ v1",
        "https://", "ftp://ads.example.com", "https://ads.example.com:8080/v1", "http://127.0.0.1:9", "https://a_b.example",
        "http://127.0.0.1:0", "https://ads.example.com:65536/v1", "https://ads.example.com:65535/v1", "http://127.0.0.1:00080",
        "\u{1B}[31mRED", "🙂", String(repeating: "x", count: 300), String(repeating: "y", count: 5000), "SDK-AM-", "SDK-AM-A B", "SDK-AM-OK_1", "EUR", "USD", "eur",
        "null", "60", "-", ".", "a\u{0}b",
    ]

    static let vocabulary = [
        "banner", "interstitial", "app_open", "native", "rewarded", "video", "anchored", "inline", "adaptive", "parallel",
        "waterfall", "serial", "sandbox", "elo", "nitx", "qartvelo", "fallback", "admob", "https://ads.example.com/v1",
        "http://127.0.0.1:8080", "auto", "get", "post", "warn", "verbose", "loud", "admob_premium", "elo", "nitx",
        "home_banner_elo", "home_banner_premium",
    ]

    static let numbers = [
        "0", "-1", "1", "2", "29", "30", "31", "32", "49", "50", "71", "72", "90", "100", "101", "3000", "3001", "86400",
        "86401", "10000", "10001", "60000", "60001", "1e7", "0.0000001", "0.5", "1.5", "-0", "99999999999999999999",
        "9223372036854775807", "9223372036854775808", "1e400",
    ]

    static let unknownKeys = ["ecmp", "extra", "Adapter", "timeout", "x y", "", "$schema", "format", "max_width", "seed", "creative_sizes"]

    static let optionalFields: [(key: String, values: [String])] = [
        ("floor", ["0.1", "7", "100", "0", "\"1\""]),
        ("timeout_ms", ["1", "100", "3000", "3001", "1500.0"]),
        ("deadline_ms", ["1", "2500", "3001"]),
        ("refresh_seconds", ["30", "60", "29"]),
        ("currency", ["\"EUR\"", "\"USD\"", "\"GBP\""]),
        ("slot", ["{\"max_height\": 10}", "{\"max_width\": 320, \"max_height\": 50}", "{\"max_height\": 250}", "{}"]),
        ("sizing", ["\"inline\"", "\"anchored\""]),
        ("mode", ["\"waterfall\""]),
        ("currency_rates", ["{\"EUR\": 1.08}", "{\"EUR\": 1e400}", "{\"USD\": 1}"]),
        ("options", ["{}", "{\"sandbox_no_bid_rate\": 0.5}", "{\"geo_precision\": 99}", "{\"fill_rate\": 2}"]),
        ("credentials", ["{}", "{\"app_id\": \"x\"}"]),
        ("endpoint", ["\"https://ads.example.com/v1\"", "\"sandbox\""]),
        ("health", ["{\"enabled\": false}", "{\"failures_to_open\": 3, \"window\": 5}", "{\"failures_to_open\": 20}", "{\"backoff_ms\": 999}", "{\"probes\": 11}", "{\"window\": 65}", "{\"max_backoff_ms\": 5000, \"backoff_ms\": 60000}", "{\"enabled\": 1}", "{\"extra\": 1}"]),
    ]

    /// `count` mutants from `seed`.
    func mutants(count: Int, seed: UInt64) -> [ConfigMutant] {
        var random = SeededGenerator(seed: seed)
        var result: [ConfigMutant] = []
        result.reserveCapacity(count)
        for number in 0..<count {
            var tree = base
            var steps: [String] = []
            var tags = Set<ConfigMutant.Tag>()
            let mutations = Int.random(in: 1...2, using: &random)
            for _ in 0..<mutations {
                mutate(&tree, steps: &steps, tags: &tags, random: &random)
            }
            result.append(ConfigMutant(name: String(format: "m%05d", number), json: tree.json, steps: steps, tags: tags))
        }
        return result
    }

    private func describe(_ path: [ConfigTree.Step]) -> String {
        path.isEmpty ? "$" : path.map { step -> String in
            switch step {
            case .key(let key): "." + key
            case .index(let index): "[\(index)]"
            }
        }.joined()
    }

    private func mutate(_ tree: inout ConfigTree, steps: inout [String], tags: inout Set<ConfigMutant.Tag>, random: inout SeededGenerator) {
        let all = tree.paths
        guard let path = all.randomElement(using: &random), let node = tree.node(at: path) else { return }
        let place = describe(path)
        func set(_ value: ConfigTree, _ what: String) {
            if let replaced = tree.replacing(at: path, { _ in value }) { tree = replaced }
            steps.append("\(place): \(what)")
        }
        func literal(_ text: String) -> ConfigTree {
            (try? ConfigTree.parse(text)) ?? .string(text)
        }
        switch Int.random(in: 0..<10, using: &random) {
        case 0: // type swap
            let swaps: [ConfigTree] = [.string("60"), .number("1"), .bool(true), .null, .array([]), .object([])]
            set(swaps.randomElement(using: &random) ?? .null, "type swap")
        case 1: // number forms
            guard case .number(let text) = node else { return mutate(&tree, steps: &steps, tags: &tags, random: &random) }
            var forms = ["-0", "1e400", "0.5", "-\(text)"]
            if Int(text) != nil {
                forms += ["\(text).0", "\(text)e0", "\(text)E+0", "\(text)0e-1"]
            } else {
                forms += ["\(text)e0", "\(text)0"]
            }
            let form = forms.randomElement(using: &random) ?? text
            if Int(text) != nil, form != "-0", form != "0.5", !form.hasPrefix("-") { tags.insert(.lexicalInteger) }
            if form == "1e400" { tags.insert(.nonFinite) }
            set(.number(form), "number form \(form)")
        case 2: // out-of-range and boundary values
            let value = Self.numbers.randomElement(using: &random) ?? "0"
            if value == "1e400" { tags.insert(.nonFinite) }
            if value.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let double = Double(value), double.isFinite, double == double.rounded() {
                tags.insert(.lexicalInteger)
            }
            set(.number(value), "number \(value)")
        case 3: // unknown key
            guard case .object(var members) = node else { return mutate(&tree, steps: &steps, tags: &tags, random: &random) }
            let key = Self.unknownKeys.randomElement(using: &random) ?? "extra"
            members.append((key, .number("1")))
            set(.object(members), "add key \(key)")
        case 4: // removed field or element
            guard !path.isEmpty else { return }
            if let replaced = tree.replacing(at: path, { _ in nil }) { tree = replaced }
            steps.append("\(place): removed")
        case 5: // odd strings
            let value = Self.oddStrings.randomElement(using: &random) ?? ""
            set(.string(value), "odd string")
        case 6: // enum swap
            guard case .string = node else { return mutate(&tree, steps: &steps, tags: &tags, random: &random) }
            let value = Self.vocabulary.randomElement(using: &random) ?? "banner"
            set(.string(value), "string \(value)")
        case 7: // renamed key
            guard case .object(var members) = node, !members.isEmpty else { return mutate(&tree, steps: &steps, tags: &tags, random: &random) }
            let index = Int.random(in: 0..<members.count, using: &random)
            let name = (Self.oddStrings + members.map(\.key) + ["admob", "home_banner_x"]).randomElement(using: &random) ?? "x"
            members[index].key = name
            set(.object(members), "rename key \(index)")
        case 8: // repeated key
            guard case .object(var members) = node, let member = members.randomElement(using: &random) else { return mutate(&tree, steps: &steps, tags: &tags, random: &random) }
            members.append(member)
            set(.object(members), "repeat key \(member.key)")
        default: // a known optional field, where it may or may not belong
            guard case .object(var members) = node else { return mutate(&tree, steps: &steps, tags: &tags, random: &random) }
            let field = Self.optionalFields.randomElement(using: &random) ?? Self.optionalFields[0]
            let valueText = field.values.randomElement(using: &random) ?? "1"
            if valueText.contains("1e400") { tags.insert(.nonFinite) }
            if valueText == "1500.0" { tags.insert(.lexicalInteger) }
            members.removeAll { $0.key == field.key }
            members.append((field.key, literal(valueText)))
            set(.object(members), "set \(field.key) = \(valueText)")
        }
    }
}

import Mediation

/// Writes a configuration with learned eCPMs: each line item whose estimate is `changed` or
/// `change_capped` gets its new `ecpm`, its `ecpm_sd` and its `ecpm_impressions` (in the line
/// item's `currency`); each country whose 90 % interval excludes its line item's estimate gets
/// its estimate in the line item's `ecpm_by_country` (other countries there are kept); every
/// other member, and the order of all members, is kept.
package enum LearnedConfiguration {
    /// The configuration text with the learned eCPMs.
    /// - Parameters:
    ///   - bytes: the configuration file, already loaded by
    ///     `MediationConfiguration(data:registry:)`.
    ///   - configuration: what it loaded to.
    ///   - estimates: the estimates.
    /// - Returns: the new JSON, two-space indented, with a final newline.
    /// - Throws: ``ConfigurationError`` when the text does not parse (it loaded before).
    package static func rewrite(_ bytes: [UInt8], configuration: MediationConfiguration, estimates: [BayesianECPM.Estimate]) throws(ConfigurationError) -> String {
        struct Key: Hashable { var placement: String, lineItem: String }
        var learned: [Key: BayesianECPM.Estimate] = [:]
        for estimate in estimates {
            learned[Key(placement: estimate.placementID, lineItem: estimate.lineItemID)] = estimate
        }
        var rates: [Key: Double] = [:]
        for placement in configuration.placements {
            for lineItem in placement.sources { rates[Key(placement: placement.id, lineItem: lineItem.id)] = lineItem.usdRate }
        }
        let root = try StrictJSONReader.parse(bytes)
        guard case .object(var members) = root else { return render(root) }
        for index in members.indices where members[index].key == "placements" {
            guard case .object(var placements) = members[index].value else { continue }
            for placementIndex in placements.indices {
                let placementID = placements[placementIndex].key
                guard case .object(var placement) = placements[placementIndex].value else { continue }
                for sourcesIndex in placement.indices where placement[sourcesIndex].key == "sources" {
                    guard case .array(var sources) = placement[sourcesIndex].value else { continue }
                    for sourceIndex in sources.indices {
                        guard case .object(var source) = sources[sourceIndex],
                              let idMember = source.first(where: { $0.key == "id" }), case .string(let id) = idMember.value,
                              let estimate = learned[Key(placement: placementID, lineItem: id)] else { continue }
                        let rate = rates[Key(placement: placementID, lineItem: id)] ?? 1
                        setCountries(&source, estimate, rate: rate)
                        guard estimate.decision != .keptTooLittleData else {
                            sources[sourceIndex] = .object(source)
                            continue
                        }
                        // The loader's bounds (R23): an uncertainty of at most the price written
                        // (a capped change of a wild estimate has an sd far above it) and at most
                        // 10^12 impressions (each report row may count that many, a window's sum more).
                        let eCPM = rounded(estimate.newECPM / rate, keepingAbove: 0.000001 / rate)
                        set(&source, "ecpm", number(eCPM))
                        set(&source, "ecpm_sd", number(min(rounded(estimate.standardDeviation / rate, keepingAbove: 0), eCPM)))
                        let impressions = min(max(estimate.impressions, 0), RevenueReportParser.maximumImpressions)
                        set(&source, "ecpm_impressions", .number(JSONNumberLiteral(text: String(impressions))))
                        sources[sourceIndex] = .object(source)
                    }
                    placement[sourcesIndex].value = .array(sources)
                }
                placements[placementIndex].value = .object(placement)
            }
            members[index].value = .object(placements)
        }
        return render(.object(members))
    }

    /// Sets the countries of `estimate` whose interval excludes the line item's estimate in the
    /// source's `ecpm_by_country` (in its currency, `rate` USD per unit), keeping the others
    /// there; codes in order.
    private static func setCountries(_ source: inout [JSONMember], _ estimate: BayesianECPM.Estimate, rate: Double) {
        let learned = BayesianLearner.countryPrices([estimate])[0].filter { $0.value.isFinite && $0.value > 0 }
        guard !learned.isEmpty else { return }
        var prices: [String: JSONNode] = [:]
        if let existing = source.first(where: { $0.key == "ecpm_by_country" }), case .object(let members) = existing.value {
            for member in members { prices[member.key] = member.value }
        }
        for (country, price) in learned { prices[country] = number(rounded(price / rate, keepingAbove: 0.000001 / rate)) }
        set(&source, "ecpm_by_country", .object(prices.keys.sorted().compactMap { key in prices[key].map { JSONMember(key: key, value: $0) } }))
    }

    /// Replaces `key`'s value, or adds it after `ecpm` (or last).
    private static func set(_ members: inout [JSONMember], _ key: String, _ value: JSONNode) {
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
            return
        }
        var after = members.lastIndex(where: { $0.key == "ecpm" || $0.key == "ecpm_sd" }) ?? (members.count - 1)
        after = min(after, members.count - 1)
        members.insert(JSONMember(key: key, value: value), at: after + 1)
    }

    /// `value` rounded to six decimals, unless that would not stay above `minimum`.
    private static func rounded(_ value: Double, keepingAbove minimum: Double) -> Double {
        let rounded = (value * 1_000_000).rounded() / 1_000_000
        return rounded > minimum ? rounded : value
    }

    /// The JSON number of `value`.
    private static func number(_ value: Double) -> JSONNode {
        .number(JSONNumberLiteral(text: "\(value)"))
    }

    /// The JSON text of `node`, two-space indented.
    static func render(_ node: JSONNode) -> String {
        var out = ""
        write(node, indent: 0, into: &out)
        return out + "\n"
    }

    private static func write(_ node: JSONNode, indent: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: indent + 1), closing = String(repeating: "  ", count: indent)
        switch node {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let number): out += number.text
        case .string(let value): writeString(value, into: &out)
        case .array(let elements):
            guard !elements.isEmpty else { out += "[]"; return }
            out += "[\n"
            for (index, element) in elements.enumerated() {
                out += pad
                write(element, indent: indent + 1, into: &out)
                out += index == elements.count - 1 ? "\n" : ",\n"
            }
            out += closing + "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{\n"
            for (index, member) in members.enumerated() {
                out += pad
                writeString(member.key, into: &out)
                out += ": "
                write(member.value, indent: indent + 1, into: &out)
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += closing + "}"
        }
    }

    /// Appends `value` as a JSON string: quotes, backslashes and control characters escaped
    /// (`\n`, `\r`, `\t`, else `\u00XX`), everything else as it is.
    package static func writeString(_ value: String, into out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

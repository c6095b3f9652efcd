import Foundation
import Mediation

extension Market {
    /// The bounds the reader enforces on a price's median, USD CPM (the engine's own maximum).
    public static let priceMedianRange: ClosedRange<Double> = 0.000001...1_000_000
    /// The bounds on a latency's median, in milliseconds (0 answers at once; at most 10 minutes).
    public static let latencyMedianRange: ClosedRange<Double> = 0...600_000
    /// The bounds on a spread (σ of the logarithm).
    public static let spreadRange: ClosedRange<Double> = 0...4
    /// The bounds on an outage's `start` and `end`, in seconds from the run's start (a year).
    public static let outageTimeRange: ClosedRange<Double> = 0...31_622_400
    /// The bounds on a slow outage's `latency_factor`.
    public static let latencyFactorRange: ClosedRange<Double> = 1...1000

    /// Reads a market file (`Config/market.json`, described by `Config/market.schema.json`)
    /// strictly, like the configuration (engine rule R15): the first mistake fails the whole
    /// load with an error that names its JSON path.
    /// - Parameter url: a file URL.
    /// - Returns: the market.
    /// - Throws: ``ConfigurationError``: `file_not_found` or `unreadable_file`, else as
    ///   ``init(data:)``.
    public static func load(contentsOf url: URL) throws(ConfigurationError) -> Market {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ConfigurationError(code: .fileNotFound, path: "$", message: "no such file: \(url.path)")
        }
        guard !isDirectory.boolValue else {
            throw ConfigurationError(code: .unreadableFile, path: "$", message: "\(url.path) is a directory")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ConfigurationError(code: .unreadableFile, path: "$", message: "cannot read \(url.path)")
        }
        return try Market(data: data)
    }

    /// Reads a market from JSON bytes.
    ///
    /// The format (any other key is an error):
    /// ```json
    /// {
    ///   "$schema": "./market.schema.json",
    ///   "description": "what the numbers are based on",
    ///   "networks": {
    ///     "elo": {
    ///       "fill_rate": 0.55, "price": { "median": 1.6, "spread": 0.6 },
    ///       "latency": { "median_ms": 180, "spread": 0.5 }, "never_answers": 0.005, "error": 0.02,
    ///       "line_items": { "chat_strip_elo": { "price": { "median": 2.2, "spread": 0.6 } } }
    ///     }
    ///   }
    /// }
    /// ```
    /// A network (not a line item) may also have `outages`, in time order and not overlapping:
    /// `[{"start": "10m", "end": "40m", "kind": "hang"}]`, where `start` and `end` are seconds
    /// from the run's start (a number, 0 to 31,622,400) or a string of a number and a unit
    /// (`"90s"`, `"10m"`, `"1.5h"`, `"1d"`, `"500ms"`), `end` after `start`, and `kind` is `hang`, `error`
    /// or `slow`; a `slow` outage needs `latency_factor` (1 to 1000: the drawn latency is
    /// multiplied by it), which the other kinds must not have.
    ///
    /// `fill_rate`, `never_answers` and `error` are probabilities (0 to 1); `price.median` is USD
    /// CPM (positive); `latency.median_ms` is 0 to 600,000; `spread` is 0 to 4 (default 0). A
    /// network or line item may leave out any field; each line item the simulation uses must
    /// end up with `fill_rate`, `price` and `latency` (checked by ``check(against:placements:)``).
    /// - Parameter data: UTF-8 JSON.
    /// - Throws: ``ConfigurationError`` naming the JSON path of the first mistake.
    public init(data: Data) throws(ConfigurationError) {
        self = try MarketReader.decode(try StrictJSONReader.parse([UInt8](data)))
    }

    /// Reads a market from JSON text (see ``init(data:)``).
    /// - Parameter json: the JSON document.
    /// - Throws: ``ConfigurationError`` naming the JSON path of the first mistake.
    public init(json: String) throws(ConfigurationError) {
        try self.init(data: Data(json.utf8))
    }
}

/// Decodes the market file's parsed JSON.
enum MarketReader {
    private static let behaviourKeys: Set<String> = ["description", "fill_rate", "price", "latency", "never_answers", "error"]

    static func decode(_ root: JSONNode) throws(ConfigurationError) -> Market {
        let object = try ConfigurationObject(root, at: .root, allowed: ["$schema", "description", "networks", "countries", "user_value", "shocks"])
        if let schema = object["$schema"] {
            _ = try ConfigurationReading.string(schema, at: JSONPath.root.appending("$schema"))
        }
        if let description = object["description"] {
            _ = try ConfigurationReading.string(description, at: JSONPath.root.appending("description"), nonEmpty: false)
        }
        let path = JSONPath.root.appending("networks")
        let networksNode = try object.required("networks")
        guard case .object(let members) = networksNode else {
            throw ConfigurationReading.wrongType(networksNode, expected: "an object keyed by network id", at: path)
        }
        let countries = try decodeCountries(object)
        var networks: [NetworkMarket] = []
        for member in members {
            let networkPath = path.appending(member.key)
            try checkID(member.key, kind: "network id", at: networkPath, seen: networks.contains { $0.id == member.key })
            networks.append(try decodeNetwork(id: member.key, member.value, at: networkPath, countries: countries))
        }
        return Market(networks: networks, countries: countries)
    }

    static func checkID(_ id: String, kind: String, at path: JSONPath, seen: Bool) throws(ConfigurationError) {
        guard !id.isEmpty else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "a \(kind) must not be empty")
        }
        guard !seen else {
            throw ConfigurationError(code: .duplicateID, path: path.description, message: "the \(kind) \"\(id)\" appears twice")
        }
    }

    private static func decodeNetwork(id: String, _ node: JSONNode, at path: JSONPath, countries: CountryMarket?) throws(ConfigurationError) -> NetworkMarket {
        let object = try ConfigurationObject(node, at: path, allowed: behaviourKeys.union(["line_items", "outages"]).union(tieredKeys))
        let behaviour = try decodeBehaviour(object)
        let tiered = try decodeTiered(object, countries: countries)
        let outages = try object["outages"].map { (node) throws(ConfigurationError) -> [Outage] in
            try decodeOutages(node, at: path.appending("outages"))
        } ?? []
        var lineItems: [String: MarketBehaviour] = [:]
        if let node = object["line_items"] {
            let lineItemsPath = path.appending("line_items")
            guard case .object(let members) = node else {
                throw ConfigurationReading.wrongType(node, expected: "an object keyed by line item id", at: lineItemsPath)
            }
            for member in members {
                let lineItemPath = lineItemsPath.appending(member.key)
                try checkID(member.key, kind: "line item id", at: lineItemPath, seen: lineItems[member.key] != nil)
                let lineItemObject = try ConfigurationObject(member.value, at: lineItemPath, allowed: behaviourKeys)
                if tiered != nil {
                    try refuseTierOwnPrice(lineItemObject)
                }
                lineItems[member.key] = try decodeBehaviour(lineItemObject)
            }
        }
        return NetworkMarket(id: id, behaviour: behaviour, lineItems: lineItems, outages: outages, tiered: tiered)
    }

    private static let outageKeys: Set<String> = ["description", "start", "end", "kind", "latency_factor"]

    /// Reads `outages`: an array of outages in time order, none overlapping the one before.
    private static func decodeOutages(_ node: JSONNode, at path: JSONPath) throws(ConfigurationError) -> [Outage] {
        guard case .array(let elements) = node else {
            throw ConfigurationReading.wrongType(node, expected: "an array of outages", at: path)
        }
        var outages: [Outage] = []
        for (index, element) in elements.enumerated() {
            let outagePath = path.appending(index: index)
            let object = try ConfigurationObject(element, at: outagePath, allowed: outageKeys)
            if let description = object["description"] {
                _ = try ConfigurationReading.string(description, at: outagePath.appending("description"), nonEmpty: false)
            }
            let start = try instant(try object.required("start"), at: outagePath.appending("start"))
            let end = try instant(try object.required("end"), at: outagePath.appending("end"))
            guard end > start else {
                throw ConfigurationError(code: .invalidValue, path: outagePath.appending("end").description, message: "must be after start (\(seconds(start)) s), found \(seconds(end)) s")
            }
            if let previous = outages.last, start < previous.end {
                throw ConfigurationError(code: .invalidValue, path: outagePath.appending("start").description, message: "must not be before the end of outages[\(index - 1)] (\(seconds(previous.end)) s): outages are in time order and do not overlap, found \(seconds(start)) s")
            }
            let kindPath = outagePath.appending("kind")
            let kindNode = try object.required("kind")
            let kindName = try ConfigurationReading.string(kindNode, at: kindPath)
            let factorNode = object["latency_factor"]
            let kind: Outage.Kind
            switch kindName {
            case "hang", "error":
                if factorNode != nil {
                    throw ConfigurationError(code: .invalidValue, path: outagePath.appending("latency_factor").description, message: "applies only to kind \"slow\", found with kind \"\(kindName)\"")
                }
                kind = kindName == "hang" ? .hang : .error
            case "slow":
                guard let factorNode else {
                    throw ConfigurationError(code: .missingField, path: outagePath.appending("latency_factor").description, message: "a \"slow\" outage needs latency_factor (1 to 1000: the drawn latency is multiplied by it)")
                }
                kind = .slow(latencyFactor: try number(factorNode, at: outagePath.appending("latency_factor"), in: Market.latencyFactorRange, unit: "(the drawn latency is multiplied by it)"))
            default:
                throw ConfigurationError(code: .invalidValue, path: kindPath.description, message: "must be \"hang\", \"error\" or \"slow\", found \"\(ConfigurationText.excerpt(kindName))\"")
            }
            outages.append(Outage(start: start, end: end, kind: kind))
        }
        return outages
    }

    /// Reads an outage's instant: seconds (a number), or a string of a number and a unit
    /// (`ms`, `s`, `m`, `h`, `d`: ``VirtualTimeText``), from 0 to ``Market/outageTimeRange``'s upper bound; whole
    /// milliseconds.
    private static func instant(_ node: JSONNode, at path: JSONPath) throws(ConfigurationError) -> Duration {
        let seconds: Double
        switch node {
        case .number:
            seconds = try number(node, at: path, in: Market.outageTimeRange, unit: "seconds")
        case .string(let text):
            guard let value = VirtualTimeText.seconds(text, unitRequired: true) else {
                throw ConfigurationError(code: .invalidValue, path: path.description, message: "must be seconds (a number) or a number with a unit, like \"90s\", \"10m\", \"1.5h\", \"1d\" or \"500ms\", found \"\(ConfigurationText.excerpt(text))\"")
            }
            seconds = value
            guard Market.outageTimeRange.contains(seconds) else {
                throw ConfigurationError(code: .invalidValue, path: path.description, message: "must be from 0 to \(DisplayText.number(Market.outageTimeRange.upperBound)) seconds (a year), found \"\(ConfigurationText.excerpt(text))\"")
            }
        default:
            throw ConfigurationReading.wrongType(node, expected: "seconds (a number) or a string like \"10m\"", at: path)
        }
        return .milliseconds(Int64((seconds * 1000).rounded(.toNearestOrAwayFromZero)))
    }

    private static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? String(milliseconds / 1000) : String(Double(milliseconds) / 1000)
    }

    private static func decodeBehaviour(_ object: ConfigurationObject) throws(ConfigurationError) -> MarketBehaviour {
        let path = object.path
        if let description = object["description"] {
            _ = try ConfigurationReading.string(description, at: path.appending("description"), nonEmpty: false)
        }
        var behaviour = MarketBehaviour()
        if let node = object["fill_rate"] { behaviour.fillRate = try probability(node, at: path.appending("fill_rate")) }
        if let node = object["never_answers"] { behaviour.neverAnswers = try probability(node, at: path.appending("never_answers")) }
        if let node = object["error"] { behaviour.error = try probability(node, at: path.appending("error")) }
        if let node = object["price"] {
            behaviour.price = try logNormal(node, at: path.appending("price"), medianKey: "median", medianRange: Market.priceMedianRange, unit: "USD CPM")
        }
        if let node = object["latency"] {
            behaviour.latency = try logNormal(node, at: path.appending("latency"), medianKey: "median_ms", medianRange: Market.latencyMedianRange, unit: "milliseconds")
        }
        return behaviour
    }

    private static func logNormal(_ node: JSONNode, at path: JSONPath, medianKey: String, medianRange: ClosedRange<Double>, unit: String) throws(ConfigurationError) -> LogNormal {
        let object = try ConfigurationObject(node, at: path, allowed: [medianKey, "spread", "description"])
        if let description = object["description"] {
            _ = try ConfigurationReading.string(description, at: path.appending("description"), nonEmpty: false)
        }
        let median = try number(try object.required(medianKey), at: path.appending(medianKey), in: medianRange, unit: unit)
        let spread = try object["spread"].map { (node) throws(ConfigurationError) -> Double in
            try number(node, at: path.appending("spread"), in: Market.spreadRange, unit: "(σ of the natural logarithm)")
        } ?? 0
        return LogNormal(median: median, spread: spread)
    }

    private static func probability(_ node: JSONNode, at path: JSONPath) throws(ConfigurationError) -> Double {
        try number(node, at: path, in: 0...1, unit: "(a probability)")
    }

    /// Reads a finite number in `range`.
    /// - Throws: `wrong_type` for a non-number (a number in a string included), `invalid_value`
    ///   outside `range` or not finite.
    static func number(_ node: JSONNode, at path: JSONPath, in range: ClosedRange<Double>, unit: String) throws(ConfigurationError) -> Double {
        guard case .number(let literal) = node else {
            throw ConfigurationReading.wrongType(node, expected: "a number", at: path)
        }
        let value = literal.doubleValue
        guard value.isFinite, range.contains(value) else {
            let shown = literal.text.count > 24 ? String(literal.text.prefix(24)) + "…" : literal.text
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "must be from \(DisplayText.number(range.lowerBound)) to \(DisplayText.number(range.upperBound)) \(unit), found \(shown)")
        }
        return value
    }
}

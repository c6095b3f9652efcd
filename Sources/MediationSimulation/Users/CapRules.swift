import Foundation
import Mediation

/// The caps, pacing and full-screen gap a configuration file states, read from its JSON by the
/// simulator itself (not by the engine's parser), for the independent counter
/// (``CapCounter``). Keys: top-level `app` (`caps`, `pacing_seconds`,
/// `full_screen_gap_seconds`), and `caps` / `pacing_seconds` on a placement, a network and a
/// line item. A cap is `{"impressions": N, "per_seconds": W}` or `{"impressions": N, "per":
/// "session"}`. What the counter cannot read (a malformed cap) it skips: the engine's
/// validation, not the counter's, refuses such a file.
struct CapRules: Hashable, Sendable {
    /// One rule of one scope.
    enum Rule: Hashable, Sendable {
        /// At most `impressions` in any sliding window of `milliseconds`: an impression at `t`
        /// counts with those at `t − window < s ≤ t`.
        case window(impressions: Int, milliseconds: Int64)
        /// At most `impressions` per session.
        case session(impressions: Int)
        /// At least `milliseconds` from one impression's start to the next one's.
        case pacing(milliseconds: Int64)
    }

    /// The gap between two full-screen ads when the file states none, ms: the engine's
    /// documented default, restated here (a test checks that the two agree).
    static let defaultFullScreenGapMilliseconds: Int64 = 30_000

    /// A new session starts at each launch, and when the app comes back to the foreground
    /// after at least this long in the background, ms (30 min): the engine's documented rule,
    /// restated here.
    static let sessionGapMilliseconds: Int64 = 1_800_000

    /// What a segment or an experiment variant sets in place of a placement's own: its caps
    /// (all of them), its pacing, or both; `nil` keeps the placement's.
    struct Override: Hashable, Sendable {
        var caps: [Rule]?
        var pacing: Rule?
    }

    /// The rules by scope: `app`, `placement:<id>`, `network:<id>`,
    /// `line_item:<placement id>/<line item id>`.
    var rules: [String: [Rule]] = [:]
    /// Per placement id, its segments' overrides by segment id (`placements.<id>.segments`).
    var segments: [String: [String: Override]] = [:]
    /// Per placement id, the experiment variants' overrides by ``variantKey(experiment:variant:)``
    /// (`experiments[].variants[].placements.<id>`).
    var variants: [String: [String: Override]] = [:]
    /// Per placement id and ``variantKey(experiment:variant:)``, the segments' overrides by
    /// segment id of a variant with `segments` of its own (its installs choose from them in
    /// place of the placement's).
    var variantSegments: [String: [String: [String: Override]]] = [:]
    /// The least time from the end of one full-screen ad to the start of the next, ms.
    var fullScreenGapMilliseconds: Int64 = CapRules.defaultFullScreenGapMilliseconds
    /// The full-screen placements (interstitial, rewarded, app open).
    var fullScreenPlacements: Set<String> = []

    /// Reads the rules of the configuration file `data` (with the strict JSON reader, which
    /// keeps numbers and booleans apart).
    /// - Returns: the rules, or `nil` when the data is not a JSON object.
    static func read(_ data: Data) -> CapRules? {
        guard let root = try? StrictJSONReader.parse(Array(data)), case .object = root else { return nil }
        var result = CapRules()
        if let app = root["app"] {
            result.add(app, scope: "app")
            if let gap = app["full_screen_gap_seconds"]?.number { result.fullScreenGapMilliseconds = Int64((gap * 1000).rounded()) }
        }
        for (id, network) in root["networks"]?.members ?? [] {
            result.add(network, scope: "network:\(id)")
        }
        for (id, placement) in root["placements"]?.members ?? [] {
            result.add(placement, scope: "placement:\(id)")
            if case .string(let format) = placement["format"], ["interstitial", "rewarded", "app_open"].contains(format) {
                result.fullScreenPlacements.insert(id)
            }
            if case .array(let list) = placement["segments"] {
                for segment in list {
                    guard case .string(let segmentID) = segment["id"], let change = Self.override(segment) else { continue }
                    result.segments[id, default: [:]][segmentID] = change
                }
            }
            guard case .array(let sources) = placement["sources"] else { continue }
            for source in sources {
                guard case .string(let lineItem) = source["id"] else { continue }
                result.add(source, scope: "line_item:\(id)/\(lineItem)")
            }
        }
        if case .array(let experiments) = root["experiments"] {
            for experiment in experiments {
                guard case .string(let experimentID) = experiment["id"], case .array(let list) = experiment["variants"] else { continue }
                for variant in list {
                    guard case .string(let variantID) = variant["id"] else { continue }
                    let key = variantKey(experiment: experimentID, variant: variantID)
                    for (placementID, change) in variant["placements"]?.members ?? [] {
                        if case .array(let list) = change["segments"] {
                            var own: [String: Override] = [:]
                            for segment in list {
                                guard case .string(let segmentID) = segment["id"], let rules = Self.override(segment) else { continue }
                                own[segmentID] = rules
                            }
                            result.variantSegments[placementID, default: [:]][key] = own
                        }
                        guard let rules = Self.override(change) else { continue }
                        result.variants[placementID, default: [:]][key] = rules
                    }
                }
            }
        }
        return result
    }

    /// The key of a variant in ``variants``.
    static func variantKey(experiment: String, variant: String) -> String {
        experiment + "\u{0}" + variant
    }

    /// The rules of `placement`'s own scope for an impression in segment `segment` under
    /// variant `variant` (``variantKey(experiment:variant:)``): the placement's, then the
    /// segment's override, then the variant's (each replaces the caps, the pacing, or both).
    func placementRules(_ placement: String, segment: String?, variant: String?) -> [Rule] {
        var list = rules["placement:\(placement)"] ?? []
        // A variant with segments of its own names its segment from its own list.
        let segmentChanges = variant.flatMap { variantSegments[placement]?[$0] } ?? segments[placement]
        let changes = [segment.flatMap { segmentChanges?[$0] }, variant.flatMap { variants[placement]?[$0] }]
        for change in changes.compactMap({ $0 }) {
            if let caps = change.caps { list = list.filter(\.isPacing) + caps }
            if let pacing = change.pacing { list = list.filter { !$0.isPacing } + [pacing] }
        }
        return list
    }

    /// Every rule some form of `placement` reads (its own, its segments', its variants').
    func allPlacementRules(_ placement: String) -> [Rule] {
        var list = rules["placement:\(placement)"] ?? []
        let variantSegmentChanges = (variantSegments[placement] ?? [:]).values.flatMap(\.values)
        for change in Array((segments[placement] ?? [:]).values) + Array((variants[placement] ?? [:]).values) + variantSegmentChanges {
            list += (change.caps ?? []) + (change.pacing.map { [$0] } ?? [])
        }
        return list
    }

    /// The scopes an impression of `lineItem` (of `network`) in `placement` counts in.
    static func scopes(placement: String, network: String, lineItem: String) -> [String] {
        ["app", "placement:\(placement)", "network:\(network)", "line_item:\(placement)/\(lineItem)"]
    }

    /// The caps and pacing an override object sets, or `nil` when it sets neither.
    private static func override(_ object: JSONNode) -> Override? {
        var change = Override()
        let found = levelRules(object)
        if object["caps"] != nil { change.caps = found.filter { !$0.isPacing } }
        if object["pacing_seconds"] != nil { change.pacing = found.first(where: \.isPacing) }
        return change.caps == nil && change.pacing == nil ? nil : change
    }

    /// Adds the `caps` and `pacing_seconds` of `object` to `scope`.
    private mutating func add(_ object: JSONNode, scope: String) {
        let found = Self.levelRules(object)
        if !found.isEmpty { rules[scope, default: []].append(contentsOf: found) }
    }

    /// The `caps` and `pacing_seconds` of one level's object.
    private static func levelRules(_ object: JSONNode) -> [Rule] {
        var found: [Rule] = []
        if let pacing = object["pacing_seconds"]?.number, pacing > 0 {
            found.append(.pacing(milliseconds: Int64((pacing * 1000).rounded())))
        }
        if case .array(let caps) = object["caps"] {
            for cap in caps {
                guard let count = cap["impressions"]?.number, count >= 0, count <= 1_000_000 else { continue }
                if let seconds = cap["per_seconds"]?.number, seconds > 0, seconds <= 1e9 {
                    found.append(.window(impressions: Int(count), milliseconds: Int64((seconds * 1000).rounded())))
                } else if case .string("session") = cap["per"] {
                    found.append(.session(impressions: Int(count)))
                }
            }
        }
        return found
    }
}

extension CapRules.Rule {
    /// Whether it is a pacing rule.
    var isPacing: Bool {
        if case .pacing = self { return true }
        return false
    }
}

extension JSONNode {
    /// The value of the first member named `key` of an object.
    fileprivate subscript(key: String) -> JSONNode? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// An object's members as (key, value), in file order.
    fileprivate var members: [(String, JSONNode)] {
        guard case .object(let members) = self else { return [] }
        return members.map { ($0.key, $0.value) }
    }

    /// A finite number's value.
    fileprivate var number: Double? {
        guard case .number(let literal) = self, literal.doubleValue.isFinite else { return nil }
        return literal.doubleValue
    }
}

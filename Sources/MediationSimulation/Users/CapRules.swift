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

    /// The rules by scope: `app`, `placement:<id>`, `network:<id>`,
    /// `line_item:<placement id>/<line item id>`.
    var rules: [String: [Rule]] = [:]
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
            guard case .array(let sources) = placement["sources"] else { continue }
            for source in sources {
                guard case .string(let lineItem) = source["id"] else { continue }
                result.add(source, scope: "line_item:\(id)/\(lineItem)")
            }
        }
        return result
    }

    /// The scopes an impression of `lineItem` (of `network`) in `placement` counts in.
    static func scopes(placement: String, network: String, lineItem: String) -> [String] {
        ["app", "placement:\(placement)", "network:\(network)", "line_item:\(placement)/\(lineItem)"]
    }

    /// Adds the `caps` and `pacing_seconds` of `object` to `scope`.
    private mutating func add(_ object: JSONNode, scope: String) {
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
        if !found.isEmpty { rules[scope, default: []].append(contentsOf: found) }
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

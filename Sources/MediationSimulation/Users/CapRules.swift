import Foundation

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

    /// The rules by scope: `app`, `placement:<id>`, `network:<id>`,
    /// `line_item:<placement id>/<line item id>`.
    var rules: [String: [Rule]] = [:]
    /// The least time from the end of one full-screen ad to the start of the next, ms.
    var fullScreenGapMilliseconds: Int64 = CapRules.defaultFullScreenGapMilliseconds
    /// The full-screen placements (interstitial, rewarded, app open).
    var fullScreenPlacements: Set<String> = []

    /// Reads the rules of the configuration file `data`.
    /// - Returns: the rules, or `nil` when the data is not a JSON object.
    static func read(_ data: Data) -> CapRules? {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
        var result = CapRules()
        if let app = root["app"] as? [String: Any] {
            result.add(app, scope: "app")
            if let gap = number(app["full_screen_gap_seconds"]) { result.fullScreenGapMilliseconds = Int64((gap * 1000).rounded()) }
        }
        if let networks = root["networks"] as? [String: Any] {
            for (id, network) in networks {
                if let network = network as? [String: Any] { result.add(network, scope: "network:\(id)") }
            }
        }
        if let placements = root["placements"] as? [String: Any] {
            for (id, placement) in placements {
                guard let placement = placement as? [String: Any] else { continue }
                result.add(placement, scope: "placement:\(id)")
                if let format = placement["format"] as? String, ["interstitial", "rewarded", "app_open"].contains(format) {
                    result.fullScreenPlacements.insert(id)
                }
                for source in placement["sources"] as? [Any] ?? [] {
                    guard let source = source as? [String: Any], let lineItem = source["id"] as? String else { continue }
                    result.add(source, scope: "line_item:\(id)/\(lineItem)")
                }
            }
        }
        return result
    }

    /// The scopes an impression of `lineItem` (of `network`) in `placement` counts in.
    static func scopes(placement: String, network: String, lineItem: String) -> [String] {
        ["app", "placement:\(placement)", "network:\(network)", "line_item:\(placement)/\(lineItem)"]
    }

    /// Adds the `caps` and `pacing_seconds` of `object` to `scope`.
    private mutating func add(_ object: [String: Any], scope: String) {
        var found: [Rule] = []
        if let pacing = Self.number(object["pacing_seconds"]), pacing > 0 {
            found.append(.pacing(milliseconds: Int64((pacing * 1000).rounded())))
        }
        for cap in object["caps"] as? [Any] ?? [] {
            guard let cap = cap as? [String: Any], let count = Self.number(cap["impressions"]), count >= 0 else { continue }
            if let seconds = Self.number(cap["per_seconds"]), seconds > 0 {
                found.append(.window(impressions: Int(count), milliseconds: Int64((seconds * 1000).rounded())))
            } else if cap["per"] as? String == "session" {
                found.append(.session(impressions: Int(count)))
            }
        }
        if !found.isEmpty { rules[scope, default: []].append(contentsOf: found) }
    }

    private static func number(_ value: Any?) -> Double? {
        guard !(value is Bool) else { return nil } // a JSON true is no number
        if let number = value as? Int { return Double(number) }
        return value as? Double
    }
}

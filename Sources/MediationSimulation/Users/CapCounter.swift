/// The simulator's own check of every impression of a users run against the configuration's
/// caps, pacing and full-screen gap (``CapRules``), kept apart from the engine's state: it
/// sees only what the host saw (each impression's placement, network, line item, and when its
/// ad started and, for full-screen ads, ended) and applies the rules itself.
///
/// Its times are milliseconds on the user's **credible clock**: the true time since the run's
/// start plus every forward change of the device's wall clock so far (a change back adds
/// nothing). The engine may free a cap early by at most what the wall clock jumped forward,
/// never by a jump back; this clock grants exactly that.
///
/// What it keeps is bounded: per scope the last N impression instants for its largest cap N,
/// the last instant (pacing), a session count, and the end of the last full-screen ad.
struct CapCounter: Sendable {
    /// A broken rule.
    struct Violation: Hashable, Sendable {
        /// `window`, `session`, `pacing`, `gap` (a full-screen ad started less than the gap
        /// after the previous one ended, or while it was on screen).
        var kind: String
        /// What it breaks, e.g. `placement:level_end pacing 600 s: 12.345 s after the previous`.
        var description: String
    }

    private struct ScopeState: Sendable {
        /// The most recent instants, oldest first, at most ``capacity``.
        var recent: [Int64] = []
        var capacity = 0
        var last: Int64?
        var session = 0
    }

    let rules: CapRules
    private var scopes: [String: ScopeState] = [:]
    /// The end of the last full-screen ad, or `nil` before the first.
    private var lastFullScreenEnd: Int64?

    /// A counter of `rules`, with no impression yet.
    init(rules: CapRules) {
        self.rules = rules
        var lists = rules.rules
        for placement in Set(rules.segments.keys).union(rules.variants.keys).union(rules.variantSegments.keys) {
            lists["placement:\(placement)"] = rules.allPlacementRules(placement)
        }
        for (scope, list) in lists {
            var state = ScopeState()
            for rule in list {
                if case .window(let impressions, _) = rule { state.capacity = max(state.capacity, impressions) }
            }
            scopes[scope] = state
        }
    }

    /// A new session begins: every per-session count starts again.
    mutating func newSession() {
        for key in scopes.keys { scopes[key]?.session = 0 }
    }

    /// Checks an impression starting at `start` against every rule of its scopes and the
    /// full-screen gap, then records it.
    /// - Parameters:
    ///   - end: when a full-screen ad left the screen (`nil` for other formats).
    /// - Returns: every rule it breaks (empty when none).
    ///   - segment: the segment the impression's ad was auctioned in, as its `shown` event says.
    ///   - variant: its experiment variant (``CapRules/variantKey(experiment:variant:)``), as its
    ///     `shown` event says.
    mutating func impression(placement: String, network: String, lineItem: String, segment: String? = nil, variant: String? = nil, at start: Int64, end: Int64?) -> [Violation] {
        var found: [Violation] = []
        for scope in CapRules.scopes(placement: placement, network: network, lineItem: lineItem) {
            guard var state = scopes[scope] else { continue }
            for rule in rules(of: scope, placement: placement, segment: segment, variant: variant) {
                switch rule {
                case .window(let impressions, let window):
                    // The impressions in (start − window, start], this one included.
                    let inside = state.recent.reversed().prefix { $0 > start - window }.count + 1
                    if inside > impressions {
                        found.append(Violation(kind: "window", description: "\(scope) cap \(impressions)/\(Self.seconds(window)) s: \(inside) in the window"))
                    }
                case .session(let impressions):
                    if state.session + 1 > impressions {
                        found.append(Violation(kind: "session", description: "\(scope) cap \(impressions)/session: \(state.session + 1) in the session"))
                    }
                case .pacing(let pacing):
                    if let last = state.last, start - last < pacing {
                        found.append(Violation(kind: "pacing", description: "\(scope) pacing \(Self.seconds(pacing)) s: \(Self.seconds(start - last)) s after the previous"))
                    }
                }
            }
            if state.capacity > 0 {
                state.recent.append(start)
                if state.recent.count > state.capacity { state.recent.removeFirst(state.recent.count - state.capacity) }
            }
            state.last = start
            state.session += 1
            scopes[scope] = state
        }
        if rules.fullScreenPlacements.contains(placement) {
            if let previous = lastFullScreenEnd, start - previous < rules.fullScreenGapMilliseconds {
                let detail = start < previous ? "while the previous one was on screen" : "\(Self.seconds(start - previous)) s after the previous one ended"
                found.append(Violation(kind: "gap", description: "full-screen gap \(Self.seconds(rules.fullScreenGapMilliseconds)) s: \(placement) \(detail)"))
            }
            lastFullScreenEnd = max(lastFullScreenEnd ?? .min, end ?? start)
        }
        return found
    }

    /// The full-screen ad on screen left it at `instant`, earlier than planned (the app went
    /// to the background or died).
    mutating func endFullScreen(at instant: Int64) {
        if let end = lastFullScreenEnd, end > instant { lastFullScreenEnd = instant }
    }

    /// The earliest instant, from `now` on, at which an impression of `lineItem` in
    /// `placement` breaks no window, pacing or gap rule given the impressions so far
    /// (per-session caps are left out: when the session ends is not known in advance).
    func earliestShow(placement: String, network: String, lineItem: String, segment: String? = nil, variant: String? = nil, from now: Int64) -> Int64 {
        var earliest = now
        for scope in CapRules.scopes(placement: placement, network: network, lineItem: lineItem) {
            guard let state = scopes[scope] else { continue }
            for rule in rules(of: scope, placement: placement, segment: segment, variant: variant) {
                switch rule {
                case .window(let impressions, let window):
                    if impressions == 0 { return .max }
                    if state.recent.count >= impressions {
                        earliest = max(earliest, state.recent[state.recent.count - impressions] + window)
                    }
                case .pacing(let pacing):
                    if let last = state.last { earliest = max(earliest, last + pacing) }
                case .session:
                    break
                }
            }
        }
        if rules.fullScreenPlacements.contains(placement), let previous = lastFullScreenEnd {
            earliest = max(earliest, previous + rules.fullScreenGapMilliseconds)
        }
        return earliest
    }

    /// The rules of `scope` for an impression of `placement` in `segment` under `variant`: the
    /// placement's own scope takes the segment's and the variant's overrides.
    private func rules(of scope: String, placement: String, segment: String?, variant: String?) -> [CapRules.Rule] {
        guard scope == "placement:\(placement)", segment != nil || variant != nil else { return rules.rules[scope] ?? [] }
        return rules.placementRules(placement, segment: segment, variant: variant)
    }

    /// Milliseconds as seconds with up to three decimals.
    static func seconds(_ milliseconds: Int64) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    }
}

/// What a cap counts: every impression of the app, of a placement, of a network (in every
/// placement) or of one line item.
package enum CapScope: Hashable, Sendable, CustomStringConvertible {
    /// Every impression of the app.
    case app
    /// Every impression of the placement with this id.
    case placement(String)
    /// Every impression served by the network with this id, in every placement.
    case network(String)
    /// Every impression of one line item of one placement.
    case lineItem(placement: String, id: String)

    /// `app`, `placement:level_end`, `network:nitx`, `line_item:level_end/nitx_le` (ids with
    /// control characters escaped).
    package var description: String {
        switch self {
        case .app: "app"
        case .placement(let id): "placement:\(DisplayText.escaped(id))"
        case .network(let id): "network:\(DisplayText.escaped(id))"
        case .lineItem(let placement, let id): "line_item:\(DisplayText.escaped(placement))/\(DisplayText.escaped(id))"
        }
    }
}

/// One rule a show must pass: a cap or the pacing of one scope.
package struct CapRule: Hashable, Sendable, CustomStringConvertible {
    /// What the rule limits.
    package enum Limit: Hashable, Sendable {
        /// At most `impressions` in any sliding window of `seconds`.
        case window(impressions: Int, seconds: Int)
        /// At most `impressions` in the session.
        case session(impressions: Int)
        /// At least `seconds` between two impressions.
        case pacing(seconds: Int)
    }

    /// The scope whose impressions it counts.
    package var scope: CapScope
    /// The limit.
    package var limit: Limit

    /// Creates a rule.
    package init(scope: CapScope, limit: Limit) {
        self.scope = scope
        self.limit = limit
    }

    /// How many past instants of its scope the rule reads: its impressions (1 for pacing, 0
    /// for a session cap, which counts).
    package var depth: Int {
        switch limit {
        case .window(let impressions, _): impressions
        case .session: 0
        case .pacing: 1
        }
    }

    /// The rules of one level's settings.
    /// - Parameters:
    ///   - settings: the level's caps and pacing.
    ///   - scope: the level.
    package static func rules(of settings: MediationConfiguration.CapSettings, scope: CapScope) -> [CapRule] {
        limits(of: settings).map { CapRule(scope: scope, limit: $0) }
    }

    /// The limits of one level's settings: its caps in order, then its pacing.
    package static func limits(of settings: MediationConfiguration.CapSettings) -> [Limit] {
        var limits: [Limit] = []
        for cap in settings.caps {
            switch cap.window {
            case .seconds(let seconds): limits.append(.window(impressions: cap.impressions, seconds: seconds))
            case .session: limits.append(.session(impressions: cap.impressions))
            }
        }
        if let pacing = settings.pacingSeconds { limits.append(.pacing(seconds: pacing)) }
        return limits
    }

    /// `placement:level_end 20/86400s`, `app 3/session`, `network:nitx pacing 600s`.
    package var description: String {
        switch limit {
        case .window(let impressions, let seconds): "\(scope) \(impressions)/\(seconds)s"
        case .session(let impressions): "\(scope) \(impressions)/session"
        case .pacing(let seconds): "\(scope) pacing \(seconds)s"
        }
    }
}

/// What the check before an auction of one placement reads (`docs/caps.md`), found once when a
/// configuration comes into force so that the check hashes no scope and copies no rule: for the
/// placement, its rules in each form it takes (as configured, per segment, per variant), and
/// for each of its configured line items in order, its network's rules and its own, each level
/// with its slot in the ``CapBook``.
///
/// A placement's forms keep its id and take a subset of its line items in its order, with their
/// networks and caps. ``level(for:)`` finds the form's placement rules by comparing settings,
/// and ``item(id:network:caps:from:)`` a form's line item by walking the configured ones from
/// where the last match ended; each returns a match only when the settings are the form's (a
/// form's values are copies of the configuration's, so they compare by identity, in a few word
/// comparisons). Anything the plan does not know as the form has it is checked by scope, the
/// slow way. Plans are rebuilt whenever the book's slots are given anew (``CapKeeper``'s
/// configuration change), so they never name a stale slot.
struct CapCheckPlan: Sendable {
    /// One level's rules (the app's, a placement form's, a network's or a line item's) and
    /// where their scope's state is.
    struct Level: Sendable {
        /// Its caps and pacing.
        var settings: MediationConfiguration.CapSettings
        /// Their limits, in ``CapRule/rules(of:scope:)`` order.
        var limits: [CapRule.Limit]
        /// Its scope (named only when a rule binds).
        var scope: CapScope
        /// Its scope's slot in the book (`nil`: no rule reads it).
        var slot: Int?
        /// How far ahead its rules reach, in ms: its longest window or pacing (`Int64.max`
        /// with a session cap, −1 with no rule). None binds past an ad life at least this long
        /// (the scope's instants are not after now), so such a check skips the level unread.
        var reach: Int64

        /// The level of `settings` counting `scope`, its slot in `book`.
        init(_ settings: MediationConfiguration.CapSettings, scope: CapScope, book: CapBook) {
            self.settings = settings
            limits = CapRule.limits(of: settings)
            self.scope = scope
            slot = book.slots[scope]
            reach = limits.reduce(-1) { reach, limit in
                switch limit {
                case .window(_, let seconds), .pacing(let seconds): max(reach, Int64(seconds) * 1000)
                case .session: .max
                }
            }
        }

        /// The strictest of its rules that refuses an impression at `now` and frees after
        /// `limit` (``CapBook/binding(_:slot:at:after:)``), named, or `nil`; a level whose rules
        /// reach no further than `limit − now` reads nothing.
        @inline(__always)
        func refusal(in book: CapBook, at now: Int64, after limit: Int64) -> CapBook.Refusal? {
            guard reach > limit - now, let binding = book.binding(limits, slot: slot, at: now, after: limit) else { return nil }
            return binding.refusal(of: scope)
        }
    }

    /// One configured line item.
    struct Item: Sendable {
        /// Its id.
        var id: String
        /// Its network's id.
        var network: String
        /// Its network's level (no rule when the network has none).
        var networkLevel: Level
        /// Its own level.
        var level: Level
    }

    /// The placement's id.
    var id: String
    /// The placement's level in each distinct form it takes (as configured first).
    var forms: [Level]
    /// The configured line items, in the placement's order.
    var items: [Item]

    /// The plans of every placement of `configuration` (the first of a repeated id).
    /// - Parameters:
    ///   - configuration: the configuration coming into force.
    ///   - networks: each network's caps and pacing, by id (those with some).
    ///   - book: the book whose slots the plans name.
    static func plans(of configuration: MediationConfiguration, networks: [String: MediationConfiguration.CapSettings], book: CapBook) -> [CapCheckPlan] {
        var plans: [CapCheckPlan] = []
        var seen = Set<String>()
        for placement in configuration.placements where seen.insert(placement.id).inserted {
            let scope = CapScope.placement(placement.id)
            var forms: [Level] = []
            for settings in formSettings(of: placement, in: configuration) where !forms.contains(where: { $0.settings == settings }) {
                forms.append(Level(settings, scope: scope, book: book))
            }
            let items = placement.sources.map { lineItem in
                Item(
                    id: lineItem.id, network: lineItem.network,
                    networkLevel: Level(networks[lineItem.network] ?? MediationConfiguration.CapSettings(), scope: .network(lineItem.network), book: book),
                    level: Level(lineItem.caps, scope: .lineItem(placement: placement.id, id: lineItem.id), book: book)
                )
            }
            plans.append(CapCheckPlan(id: placement.id, forms: forms, items: items))
        }
        return plans
    }

    /// The placement caps of every form `placement` takes, as the auction's routes build them:
    /// as configured, then per segment, then per variant (its override applied after each
    /// segment's, from the variant's own segments when it has some).
    private static func formSettings(of placement: MediationConfiguration.Placement, in configuration: MediationConfiguration) -> [MediationConfiguration.CapSettings] {
        var variants: [MediationConfiguration.PlacementOverride?] = [nil]
        for experiment in configuration.experiments {
            for variant in experiment.variants { if let change = variant.placements[placement.id] { variants.append(change) } }
        }
        var settings: [MediationConfiguration.CapSettings] = []
        for variant in variants {
            let configured = variant?.applied(to: placement) ?? placement
            settings.append(configured.caps)
            for segment in configured.segments {
                let segmentForm = segment.override.applied(to: placement)
                settings.append((variant?.applied(to: segmentForm) ?? segmentForm).caps)
            }
        }
        return settings
    }

    /// The index in ``forms`` of the level whose settings are `settings` (a form's placement
    /// caps), or `nil`.
    func level(for settings: MediationConfiguration.CapSettings) -> Int? {
        forms.firstIndex { $0.settings == settings }
    }

    /// The index of the configured line item with `id`, `network` and `caps` (a form's line
    /// item's), searching from `cursor` (moved past the first with `id`), or `nil` when none
    /// there has that id, or the first that has it has another network or caps.
    func item(id: String, network: String, caps: MediationConfiguration.CapSettings, from cursor: inout Int) -> Int? {
        var index = cursor
        while index < items.count {
            if items[index].id == id {
                cursor = index + 1
                guard items[index].network == network, items[index].level.settings == caps else { return nil }
                return index
            }
            index += 1
        }
        return nil
    }
}

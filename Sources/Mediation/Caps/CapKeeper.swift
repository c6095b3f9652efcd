import Foundation

/// The engine's one keeper of caps, pacing and the one-full-screen-ad rule (`docs/caps.md`):
/// the thin driver of a ``CapBook`` shared by every placement. It maps the engine's instants to
/// the cap timeline (``CapTimeline``), asks the book, records impressions and keeps the state in
/// the state store (``StoredCaps``) so that it holds across a relaunch.
///
/// A show is checked and counted in one step under its lock (``admitShow(placement:lineItem:at:count:)``),
/// so two placements racing to present a full-screen ad cannot both pass.
package final class CapKeeper: Sendable {
    private struct State {
        var book = CapBook()
        var timeline: CapTimeline
        var app: MediationConfiguration.AppSettings
        var networks: [String: MediationConfiguration.CapSettings]
        /// The depth of each scope some rule reads (the largest cap of N keeps N instants).
        var depths: [CapScope: Int] = [:]
        /// Scopes whose stored ring was read (or found absent).
        var restored: Set<CapScope> = []
        /// The app's level (its rules and slot) for the check before an auction.
        var appLevel = CapCheckPlan.Level(MediationConfiguration.CapSettings(), scope: .app, book: CapBook())
        /// What the check before an auction reads, per placement: the slots and settings found
        /// when the configuration came into force (``CapCheckPlan``).
        var plans: [CapCheckPlan] = []
        /// The index in ``plans`` of each placement id.
        var planIndex: [String: Int] = [:]
        /// The index of the plan the last check read (where to look first: a placement checks
        /// before each of its auctions, so the id is hashed only when the placement changes).
        var lastPlan = 0
        var foreground: Bool
    }

    private let state: Locked<State>
    private let store: any StateStore
    private let wallClock: @Sendable () -> Date
    private let logger: any MediationLogger

    /// Creates the keeper of an engine, reading the stored state back.
    /// - Parameters:
    ///   - configuration: the configuration in force.
    ///   - now: the engine's instant now.
    ///   - foreground: whether the app is in the foreground.
    ///   - store: the engine's state store.
    ///   - wallClock: the wall clock.
    ///   - logger: where a discarded stored state is reported.
    package init(configuration: MediationConfiguration, at now: MediationInstant, foreground: Bool = true, store: any StateStore, wallClock: @escaping @Sendable () -> Date, logger: any MediationLogger) {
        self.store = store
        self.wallClock = wallClock
        self.logger = logger
        let wallNow = Self.milliseconds(wallClock())
        var clock: StoredCaps.Clock?
        do {
            clock = try store.value(StoredCaps.Clock.self, forKey: StoredCaps.clockKey)
        } catch {
            logger.warning("the stored cap state was discarded: \(error)", source: "caps")
        }
        if let problem = clock?.problem {
            logger.warning("the stored cap state was discarded: \(StoredCaps.clockKey): \(problem)", source: "caps")
            clock = nil
        }
        let timeline = CapTimeline.resumed(from: clock.map { ($0.timeMilliseconds, $0.wallMilliseconds) }, wallNow: wallNow, at: now)
        var initial = State(timeline: timeline, app: configuration.app, networks: [:], foreground: foreground)
        initial.book.lastFullScreenEnd = clock?.fullScreenEndMilliseconds
        if clock?.presenting == true {
            // The last process ended with a full-screen ad on screen: it ended no earlier than
            // now, so the gap before the next one counts from this launch.
            initial.book.lastFullScreenEnd = timeline.time(at: now)
        }
        state = Locked(initial)
        if clock == nil { removeStoredRings(keeping: []) } // rings without a clock cannot be placed in time
        configurationChanged(configuration, storedTime: clock?.timeMilliseconds)
    }

    // MARK: - Configuration and life cycle

    /// A configuration came into force: rules are read from it; rings and session counts of
    /// scopes no rule reads any more are dropped (rings in memory and in the store), so state
    /// stays bounded; each scope gets its slot in the book and each placement its plan for the
    /// check before an auction (``CapCheckPlan``).
    /// - Parameter configuration: the configuration.
    package func configurationChanged(_ configuration: MediationConfiguration) {
        configurationChanged(configuration, storedTime: nil)
    }

    private func configurationChanged(_ configuration: MediationConfiguration, storedTime: Int64?) {
        let depths = Self.depths(of: configuration)
        state.withLock { state in
            state.app = configuration.app
            state.networks = Dictionary(configuration.networks.filter { !$0.caps.isEmpty }.map { ($0.id, $0.caps) }, uniquingKeysWith: { first, _ in first })
            state.depths = depths
            let capacities = Dictionary(depths.keys.compactMap { scope in state.book.ring(of: scope).map { (scope, $0.capacity) } }, uniquingKeysWith: { first, _ in first })
            state.book.configure(depths)
            // A ring whose depth changed was laid out again; it is stored in its new layout
            // before the chunks past its depth are removed below: otherwise the newest
            // instants, in a chunk past the new depth, would be lost at the next launch.
            for (scope, depth) in depths {
                guard let capacity = capacities[scope], capacity != max(1, depth), let ring = state.book.ring(of: scope) else { continue }
                storeRing(ring, of: scope, changedFrom: nil)
            }
            let limit = storedTime ?? state.timeline.time(at: state.timeline.anchorInstant)
            for (scope, depth) in depths where !state.restored.contains(scope) {
                state.restored.insert(scope)
                if let ring = restoreRing(of: scope, depth: depth, notAfter: limit) { state.book.restore(scope, ring: ring) }
            }
            // The slots were given anew: so are the plans that name them.
            state.appLevel = CapCheckPlan.Level(configuration.app.caps, scope: .app, book: state.book)
            state.plans = CapCheckPlan.plans(of: configuration, networks: state.networks, book: state.book)
            state.planIndex = Dictionary(state.plans.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
            state.lastPlan = 0
        }
        removeStoredRings(keeping: Set(depths.keys))
    }

    /// The app moved to the foreground or the background (a new session starts back in the
    /// foreground after 30 minutes away).
    package func setForeground(_ foreground: Bool, at instant: MediationInstant) {
        state.withLock { state in
            state.foreground = foreground
            state.book.setForeground(foreground, at: state.timeline.time(at: instant))
        }
    }

    /// Whether some cap or pacing rule exists in the configuration in force (at any level, in
    /// any segment or variant): without one, the check before an auction is skipped.
    package var hasRules: Bool { state.withLock { !$0.depths.isEmpty } }

    /// Whether the app is in the foreground.
    package var isForeground: Bool { state.withLock { $0.foreground } }

    /// The session number (1 at launch).
    package var session: Int { state.withLock { $0.book.session } }

    // MARK: - Shows

    /// Checks a show of `lineItem`'s ad in `placement` at `instant` and, when every rule allows
    /// it, runs `count` and records the impression if `count` says it counted, all in one step.
    /// - Returns: the refusal, or `nil` when the show was allowed (counted or not by `count`).
    package func admitShow(placement: MediationConfiguration.Placement, lineItem: LineItem, at instant: MediationInstant, count: () -> Bool) -> CapRefusal? {
        state.withLock { state -> CapRefusal? in
            let now = state.timeline.time(at: instant)
            if let refusal = Self.refusal(state, placement: placement, lineItem: lineItem, at: now) {
                return CapRefusal(refusal, on: state.timeline)
            }
            guard count() else { return nil }
            let scopes = Self.scopes(placement: placement.id, lineItem: lineItem).compactMap { scope in state.depths[scope].map { (scope: scope, depth: $0) } }
            state.book.record(scopes, at: now)
            if placement.format.isFullScreen { state.book.beginFullScreen(placement: placement.id, at: now) }
            persist(scopes, of: &state, at: now)
            return nil
        }
    }

    /// The full-screen ad of `placementID` was dismissed at `instant`: the gap counts from now.
    package func dismissed(placementID: String, at instant: MediationInstant) {
        state.withLock { state in
            let now = state.timeline.time(at: instant)
            guard state.book.endFullScreen(placement: placementID, at: now) else { return }
            persist([], of: &state, at: now)
        }
    }

    /// What refuses a show of `placement` (of `lineItem`'s ad when given) at `instant`, or `nil`
    /// when it may show now.
    package func refusal(placement: MediationConfiguration.Placement, lineItem: LineItem?, at instant: MediationInstant) -> CapRefusal? {
        state.withLock { state in
            Self.refusal(state, placement: placement, lineItem: lineItem, at: state.timeline.time(at: instant)).map { CapRefusal($0, on: state.timeline) }
        }
    }

    /// Before an auction of `placement` at `instant`: the line items whose ad, loaded now, could
    /// not be shown before it expires (`horizon` from now), with the rule and when it frees.
    /// A placement-level rule (the app's or the placement's) binding past the horizon caps
    /// every line item; the full-screen rules never do (they free within minutes).
    package func cappedSources(of placement: MediationConfiguration.Placement, at instant: MediationInstant, horizon: Duration) -> [String: CapRefusal] {
        state.withLock { state -> [String: CapRefusal] in
            // No cap or pacing anywhere in the configuration: nothing can bind before an
            // auction (the full-screen rules are checked at show only).
            guard !state.depths.isEmpty else { return [:] }
            let now = state.timeline.time(at: instant)
            let limit = now + Int64(max(0, horizon.milliseconds))
            // Every scope's slot comes from the placement's plan (found when the configuration
            // came into force): no scope is hashed, no line item copied, a level whose rules
            // cannot outlast the ad is skipped unread, and a scope is named only for a rule that
            // binds. A line item the plan does not know as the form has it is checked by scope.
            let plan = Self.planIndex(of: placement.id, in: &state)
            var placementRefusal = state.appLevel.refusal(in: state.book, at: now, after: limit)
            if let plan, let form = state.plans[plan].level(for: placement.caps) {
                placementRefusal = CapBook.stricter(placementRefusal, state.plans[plan].forms[form].refusal(in: state.book, at: now, after: limit))
            } else {
                placementRefusal = CapBook.stricter(placementRefusal, state.book.bindingRefusal(placement.caps, scope: .placement(placement.id), at: now, after: limit))
            }
            var capped: [String: CapRefusal] = [:]
            var cursor = 0
            let sources = placement.sources
            for source in sources.indices {
                var own: CapBook.Refusal?
                if let plan, let index = state.plans[plan].item(id: sources[source].id, network: sources[source].network, caps: sources[source].caps, from: &cursor) {
                    own = CapBook.stricter(
                        state.plans[plan].items[index].networkLevel.refusal(in: state.book, at: now, after: limit),
                        state.plans[plan].items[index].level.refusal(in: state.book, at: now, after: limit)
                    )
                } else {
                    let lineItem = sources[source]
                    if !state.networks.isEmpty, let network = state.networks[lineItem.network] {
                        own = state.book.bindingRefusal(network, scope: .network(lineItem.network), at: now, after: limit)
                    }
                    if !lineItem.caps.isEmpty {
                        own = CapBook.stricter(own, state.book.bindingRefusal(lineItem.caps, scope: .lineItem(placement: placement.id, id: lineItem.id), at: now, after: limit))
                    }
                }
                if let strictest = CapBook.stricter(placementRefusal, own) { capped[sources[source].id] = CapRefusal(strictest, on: state.timeline) }
            }
            return capped
        }
    }

    /// The index of the plan of placement `id`, or `nil` when the configuration has none: the
    /// last one read when it is that placement's, else found by id (and remembered).
    private static func planIndex(of id: String, in state: inout State) -> Int? {
        if state.lastPlan < state.plans.count, state.plans[state.lastPlan].id == id { return state.lastPlan }
        guard let index = state.planIndex[id] else { return nil }
        state.lastPlan = index
        return index
    }

    /// Every rule of `lineItem` in `placement` (the app's, the placement's, its network's,
    /// its own) with the instant it frees: `now` when it allows an impression now, `nil` when
    /// only a new session frees it. For `mediate networks`.
    package func status(placement: MediationConfiguration.Placement, lineItem: LineItem, at instant: MediationInstant) -> [(rule: String, freeAt: MediationInstant?)] {
        state.withLock { state in
            let now = state.timeline.time(at: instant)
            var rules = CapRule.rules(of: state.app.caps, scope: .app) + CapRule.rules(of: placement.caps, scope: .placement(placement.id))
            if let network = state.networks[lineItem.network] { rules += CapRule.rules(of: network, scope: .network(lineItem.network)) }
            rules += CapRule.rules(of: lineItem.caps, scope: .lineItem(placement: placement.id, id: lineItem.id))
            return rules.map { rule in
                guard let free = state.book.freeInstant(of: rule, at: now) else { return (rule.description, instant) }
                return (rule.description, free == .max ? nil : state.timeline.instant(at: free))
            }
        }
    }

    // MARK: - Rules

    private static func refusal(_ state: State, placement: MediationConfiguration.Placement, lineItem: LineItem?, at now: Int64) -> CapBook.Refusal? {
        var rules = CapRule.rules(of: state.app.caps, scope: .app) + CapRule.rules(of: placement.caps, scope: .placement(placement.id))
        if let lineItem {
            if let network = state.networks[lineItem.network] { rules += CapRule.rules(of: network, scope: .network(lineItem.network)) }
            rules += CapRule.rules(of: lineItem.caps, scope: .lineItem(placement: placement.id, id: lineItem.id))
        }
        let capRefusal = state.book.refusal(rules, at: now)
        let fullScreen = placement.format.isFullScreen ? state.book.fullScreenRefusal(placement: placement.id, gap: Int64(state.app.fullScreenGapSeconds) * 1000, at: now) : nil
        switch (fullScreen, capRefusal) {
        case (let a?, let b?):
            guard let x = a.retryAt else { return a }
            guard let y = b.retryAt else { return b }
            return x >= y ? a : b
        case (let a?, nil): return a
        case (nil, let b): return b
        }
    }

    /// The scopes an impression of `lineItem` in placement `placement` counts in.
    private static func scopes(placement: String, lineItem: LineItem) -> [CapScope] {
        [.app, .placement(placement), .network(lineItem.network), .lineItem(placement: placement, id: lineItem.id)]
    }

    /// The depth of every scope some rule of `configuration` reads.
    package static func depths(of configuration: MediationConfiguration) -> [CapScope: Int] {
        var depths: [CapScope: Int] = [:]
        func add(_ settings: MediationConfiguration.CapSettings, _ scope: CapScope) {
            guard !settings.isEmpty else { return }
            let depth = CapRule.rules(of: settings, scope: scope).map(\.depth).max() ?? 1
            depths[scope] = max(depths[scope] ?? 1, depth, 1)
        }
        add(configuration.app.caps, .app)
        for network in configuration.networks { add(network.caps, .network(network.id)) }
        for placement in configuration.placements {
            add(placement.caps, .placement(placement.id))
            // A segment's caps count the placement's impressions too: its ring is as deep as
            // the largest cap of any form the placement takes.
            for segment in placement.segments { add(segment.override.capSettings, .placement(placement.id)) }
            for lineItem in placement.sources { add(lineItem.caps, .lineItem(placement: placement.id, id: lineItem.id)) }
        }
        for experiment in configuration.experiments {
            for variant in experiment.variants {
                for (placementID, change) in variant.placements {
                    add(change.capSettings, .placement(placementID))
                    for segment in change.segments ?? [] { add(segment.override.capSettings, .placement(placementID)) }
                }
            }
        }
        return depths
    }

    // MARK: - Store

    /// Writes the clock, then the chunk of each of `scopes` holding its newest instant: O(1)
    /// per impression. A store that cannot be written costs a warning, never the show.
    ///
    /// The clock goes first: a chunk holding an instant after the stored clock is refused as
    /// tampered at the next launch (its scope's whole history with it), so a process that dies
    /// between the writes must leave the clock ahead, which loses this impression at most.
    private func persist(_ scopes: [(scope: CapScope, depth: Int)], of state: inout State, at now: Int64) {
        do {
            let clock = StoredCaps.Clock(time: now, wall: state.timeline.storedWall(at: now, reading: Self.milliseconds(wallClock())), fullScreenEnd: state.book.lastFullScreenEnd, presenting: state.book.presenting != nil)
            try store.setValue(clock, forKey: StoredCaps.clockKey)
            for (scope, _) in scopes {
                guard let ring = state.book.ring(of: scope), let slot = ring.newestSlot else { continue }
                let chunk = slot / StoredCaps.chunkSize
                let start = chunk * StoredCaps.chunkSize
                let value = StoredCaps.Chunk(scope: StoredCaps.identity(of: scope), instants: ring.instants(inSlots: start..<(start + StoredCaps.chunkSize)))
                try store.setValue(value, forKey: StoredCaps.key(of: scope, chunk: chunk))
            }
        } catch {
            logger.warning("the cap state could not be stored: \(error)", source: "caps")
        }
    }

    /// The stored ring of `scope`, `depth` deep, or `nil` when none is stored or a chunk is
    /// refused (the scope's chunks are then removed, with a warning: fail open). Every stored
    /// chunk is read, also those past `depth` (a configuration whose largest cap shrank keeps
    /// the newest instants, wherever they were stored); a ring laid out otherwise than stored is
    /// stored again in its layout.
    private func restoreRing(of scope: CapScope, depth: Int, notAfter time: Int64) -> CapRing? {
        let stored = Self.chunkCount(depth: MediationConfiguration.Cap.maximumImpressions)
        let needed = Self.chunkCount(depth: depth)
        let identity = StoredCaps.identity(of: scope)
        var chunks: [[Int64]?] = []
        for chunk in 0..<stored {
            let key = StoredCaps.key(of: scope, chunk: chunk)
            do {
                let value = try store.value(StoredCaps.Chunk.self, forKey: key)
                // Chunks fill in slot order: past the depth's own, the first absent one ends them.
                if value == nil, chunk >= needed { break }
                if let problem = value?.problem(scope: identity, time: time) {
                    throw StateStoreError(kind: .discarded, key: key, message: problem)
                }
                chunks.append(value?.instants)
            } catch {
                logger.warning("the stored cap state of \(scope) was discarded (its caps count from zero): \(error)", source: "caps")
                for chunk in 0..<stored { try? store.setData(nil, forKey: StoredCaps.key(of: scope, chunk: chunk)) }
                return nil
            }
        }
        let instants = chunks.flatMap { $0 ?? [] }
        guard !instants.isEmpty else { return nil }
        let ring = CapRing(capacity: depth, instants: instants.sorted())
        storeRing(ring, of: scope, changedFrom: chunks)
        return ring
    }

    /// Stores every chunk of `ring` whose instants differ from `stored` (each chunk's stored
    /// instants; `nil`: store them all). A store that cannot be written costs a warning.
    private func storeRing(_ ring: CapRing, of scope: CapScope, changedFrom stored: [[Int64]?]?) {
        let identity = StoredCaps.identity(of: scope)
        do {
            for chunk in 0..<Self.chunkCount(depth: ring.capacity) {
                let start = chunk * StoredCaps.chunkSize
                let instants = ring.instants(inSlots: start..<(start + StoredCaps.chunkSize))
                if let stored, chunk < stored.count, (stored[chunk] ?? []) == instants { continue }
                try store.setValue(StoredCaps.Chunk(scope: identity, instants: instants), forKey: StoredCaps.key(of: scope, chunk: chunk))
            }
        } catch {
            logger.warning("the cap state could not be stored: \(error)", source: "caps")
        }
    }

    /// The chunks a ring `depth` deep is stored in.
    private static func chunkCount(depth: Int) -> Int {
        (max(1, depth) + StoredCaps.chunkSize - 1) / StoredCaps.chunkSize
    }

    /// Removes stored chunks of scopes not in `kept` and chunks past a kept scope's depth.
    private func removeStoredRings(keeping kept: Set<CapScope>) {
        guard let keys = try? store.keys() else { return }
        let depths = state.withLock { $0.depths }
        var allowed = Set<String>()
        for scope in kept {
            let chunks = ((depths[scope] ?? 1) + StoredCaps.chunkSize - 1) / StoredCaps.chunkSize
            for chunk in 0..<chunks { allowed.insert(StoredCaps.key(of: scope, chunk: chunk)) }
        }
        for key in keys where key.hasPrefix(StoredCaps.prefix) && key != StoredCaps.clockKey && !allowed.contains(key) {
            try? store.setData(nil, forKey: key)
        }
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return 0 }
        return Int64(max(-9e15, min(9e15, value)))
    }
}

extension CapRefusal {
    /// The refusal of the book's `refusal`, its instant on the engine's clock.
    init(_ refusal: CapBook.Refusal, on timeline: CapTimeline) {
        self.init(cap: refusal.rule, retryAt: refusal.retryAt.map { timeline.instant(at: $0) })
    }
}

extension AdFormat {
    /// Whether the host presents it over the app (interstitial, rewarded, app open): one at a
    /// time, with a gap between two (`docs/caps.md`).
    package var isFullScreen: Bool {
        switch self {
        case .interstitial, .rewarded, .appOpen: true
        case .banner, .native: false
        }
    }
}

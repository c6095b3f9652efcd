/// The decisions of caps, pacing and the one-full-screen-ad rule as a pure state machine
/// (`docs/caps.md`): it takes instants on the cap timeline (milliseconds that never go back,
/// ``CapTimeline``) and says whether an impression may happen now and, if not, which rule
/// binds and the instant it frees. It reads no clock and writes nothing; ``CapKeeper`` drives it.
///
/// - A sliding-window cap of N per W allows an impression at `t` when the scope has fewer than N
///   impressions, or its N-th newest is at least W old: `t >= t_N + W` (so the instant
///   `t_N + W` itself is free, one millisecond before is not).
/// - Pacing P allows it when the newest is at least P old: `t >= t_1 + P`.
/// - A session cap of N allows it when the scope has had fewer than N in this session.
/// - Where several rules bind, the strictest names the refusal: the one that frees last (a
///   session cap frees only at the next session, after every instant).
///
/// Each scope keeps the instants of its last impressions in one ``CapRing`` as deep as its
/// largest cap (O(N) space per cap of N); recording costs O(1) per scope, a check O(1) per rule.
/// Rings and session counts sit in arrays indexed by each scope's slot, given when a
/// configuration comes into force (``configure(_:)``), so the check before an auction reads
/// them by slot (``binding(_:slot:at:after:)``) and hashes no scope.
package struct CapBook: Sendable {
    /// A new session starts when the app comes back to the foreground after at least this
    /// long in the background: 30 minutes, in seconds (a relaunch starts one too).
    package static let sessionGapSeconds = 1_800
    /// A full-screen ad whose end the host never reports counts as presented this long after
    /// its impression (so one forgotten report cannot block every full-screen ad): 10 minutes,
    /// in seconds.
    package static let maximumPresentationSeconds = 600

    /// Why an impression may not happen now.
    package struct Refusal: Hashable, Sendable {
        /// The rule that binds, e.g. `placement:level_end 20/86400s`, `app full_screen_gap 30s`,
        /// `app one_full_screen (level_start presenting)`, `app background`.
        package var rule: String
        /// The first instant it may happen (cap time, ms); `nil` when no instant frees it (a
        /// session cap: the next session does; the background: the foreground does).
        package var retryAt: Int64?
    }

    /// The slot of each scope the book keeps: an index into the rings and the session
    /// counts, given when a configuration comes into force (``configure(_:)``) or at a scope's
    /// first impression, so the check before an auction reads arrays, not hashed scopes.
    package private(set) var slots: [CapScope: Int] = [:]
    /// The scope of each slot.
    private var slotScopes: [CapScope] = []
    /// The newest instants of each slot's impressions (empty until its first).
    private var slotRings: [CapRing] = []
    /// Each slot's impressions in this session.
    private var slotSessions: [Int] = []
    /// The full-screen ad presented, if any: its placement and the instant its impression counted.
    package private(set) var presenting: (placement: String, since: Int64)?
    /// When the last full-screen ad ended (cap time, ms).
    package var lastFullScreenEnd: Int64?
    /// When the app went to the background, if it is there.
    private var backgroundSince: Int64?
    /// Sessions started (1 at launch).
    package private(set) var session = 1

    /// Creates an empty book (a new session).
    package init() {}

    /// The newest instants of each scope's impressions (scopes with none left out).
    package var rings: [CapScope: CapRing] {
        var rings: [CapScope: CapRing] = [:]
        for (slot, scope) in slotScopes.enumerated() where slotRings[slot].count > 0 { rings[scope] = slotRings[slot] }
        return rings
    }

    /// The ring of `scope`, or `nil` when it has no impression.
    package func ring(of scope: CapScope) -> CapRing? {
        guard let slot = slots[scope], slotRings[slot].count > 0 else { return nil }
        return slotRings[slot]
    }

    // MARK: - Checks

    /// The strictest of `rules` that refuses an impression at `now`, or `nil` when every rule
    /// allows it.
    package func refusal(_ rules: [CapRule], at now: Int64) -> Refusal? {
        var worst: Refusal?
        for rule in rules {
            guard let retryAt = freeInstant(of: rule, at: now) else { continue }
            let candidate = Refusal(rule: rule.description, retryAt: retryAt == .max ? nil : retryAt)
            if worst.map({ Self.isStricter(candidate, than: $0) }) ?? true { worst = candidate }
        }
        return worst
    }

    /// Why a full-screen impression may not start at `now`: another full-screen ad is
    /// presented, or the gap after the last one has not passed.
    /// - Parameters:
    ///   - placement: the placement about to present.
    ///   - gap: the gap in ms (`full_screen_gap_seconds`).
    ///   - now: the instant.
    package func fullScreenRefusal(placement: String, gap: Int64, at now: Int64) -> Refusal? {
        if let presenting, now < presenting.since + Int64(Self.maximumPresentationSeconds) * 1000 {
            return Refusal(rule: "app one_full_screen (\(DisplayText.escaped(presenting.placement)) presented)", retryAt: nil)
        }
        let end = lastEnd(at: now)
        if let end, now < end + gap {
            return Refusal(rule: "app full_screen_gap \(gap / 1000)s", retryAt: end + gap)
        }
        return nil
    }

    /// The first instant at or after which `rule` allows an impression, if it refuses one at
    /// `now`; `Int64.max` for a session cap (the next session); `nil` when it allows one now.
    package func freeInstant(of rule: CapRule, at now: Int64) -> Int64? {
        switch rule.limit {
        case .window(let impressions, let seconds):
            guard let nth = newest(impressions, inSlot: slots[rule.scope]) else { return nil }
            let free = nth + Int64(seconds) * 1000
            return now >= free ? nil : free
        case .pacing(let seconds):
            guard let newest = newest(1, inSlot: slots[rule.scope]) else { return nil }
            let free = newest + Int64(seconds) * 1000
            return now >= free ? nil : free
        case .session(let impressions):
            return sessionCount(inSlot: slots[rule.scope]) >= impressions ? .max : nil
        }
    }

    /// Before an auction: the strictest rule of one level's `settings` (counting `scope`) that
    /// refuses an impression at `now` and frees after `limit` (a session cap that refuses
    /// always does), or `nil`. Rules whose window or pacing is no longer than `limit − now`
    /// cannot free after it (the scope's instants are not after `now`) and are not read. The
    /// check before an auction uses ``binding(_:slot:at:after:)`` with limits and slots found
    /// beforehand; this form, which finds both, serves a placement or line item no plan knows.
    /// - Parameters:
    ///   - settings: the level's caps and pacing.
    ///   - scope: the level.
    ///   - now: the instant (cap time, ms).
    ///   - limit: the last instant at which the ad loaded now could still be shown.
    package func bindingRefusal(_ settings: MediationConfiguration.CapSettings, scope: CapScope, at now: Int64, after limit: Int64) -> Refusal? {
        guard !settings.isEmpty else { return nil }
        return binding(CapRule.limits(of: settings), slot: slots[scope], at: now, after: limit)?.refusal(of: scope)
    }

    /// A rule that binds before an auction: its limit and the instant it frees.
    package struct Binding: Hashable, Sendable {
        /// The rule's limit.
        package var limit: CapRule.Limit
        /// When it frees (cap time, ms); `Int64.max` when no instant does (a session cap).
        package var free: Int64

        /// The refusal naming the rule as one of `scope`'s.
        package func refusal(of scope: CapScope) -> Refusal {
            Refusal(rule: CapRule(scope: scope, limit: limit).description, retryAt: free == .max ? nil : free)
        }
    }

    /// ``bindingRefusal(_:scope:at:after:)`` for the limits of one level's rules (in the order
    /// ``CapRule/rules(of:scope:)`` gives them) counting the scope in `slot` (`nil`: a scope
    /// with no impression), without hashing the scope and without naming it: the check before
    /// an auction, whose slots and limits were found when the configuration came into force,
    /// names the scope only of a rule that binds. Reads the state of no rule whose window or
    /// pacing is no longer than `limit − now`; allocates nothing.
    package func binding(_ limits: [CapRule.Limit], slot: Int?, at now: Int64, after limit: Int64) -> Binding? {
        let span = limit - now
        // The strictest so far (`free == Int64.max`: no instant frees it); the first on a tie.
        var worst: Binding?
        for rule in limits {
            let free: Int64
            switch rule {
            case .window(let impressions, let seconds):
                let window = Int64(seconds) * 1000
                guard window > span, let nth = newest(impressions, inSlot: slot) else { continue }
                free = nth + window
            case .pacing(let seconds):
                let pacing = Int64(seconds) * 1000
                guard pacing > span, let newest = newest(1, inSlot: slot) else { continue }
                free = newest + pacing
            case .session(let impressions):
                guard sessionCount(inSlot: slot) >= impressions else { continue }
                free = .max
            }
            if free > limit, free > (worst?.free ?? .min) { worst = Binding(limit: rule, free: free) }
        }
        return worst
    }

    /// The `k`-th newest instant of the scope in `slot` (`nil`: none), if it has that many.
    @inline(__always)
    private func newest(_ k: Int, inSlot slot: Int?) -> Int64? {
        guard let slot else { return nil }
        return slotRings[slot].newest(k)
    }

    /// The impressions this session of the scope in `slot` (`nil`: none).
    @inline(__always)
    private func sessionCount(inSlot slot: Int?) -> Int {
        guard let slot else { return 0 }
        return slotSessions[slot]
    }

    /// The stricter of two refusals (the one that frees later; no instant is latest); `a` on a tie.
    package static func stricter(_ a: Refusal?, _ b: Refusal?) -> Refusal? {
        guard let a else { return b }
        guard let b else { return a }
        return isStricter(b, than: a) ? b : a
    }

    /// Whether `a` frees later than `b` (no instant is latest).
    private static func isStricter(_ a: Refusal, than b: Refusal) -> Bool {
        switch (a.retryAt, b.retryAt) {
        case (nil, nil): false
        case (nil, _?): true
        case (_?, nil): false
        case (let x?, let y?): x > y
        }
    }

    /// When the last full-screen ad ended at `now`: its reported end, or, for one still
    /// presented past ``maximumPresentationSeconds``, that limit.
    private func lastEnd(at now: Int64) -> Int64? {
        if let presenting {
            let limit = presenting.since + Int64(Self.maximumPresentationSeconds) * 1000
            if now >= limit { return max(limit, lastFullScreenEnd ?? limit) }
        }
        return lastFullScreenEnd
    }

    // MARK: - Changes

    /// Records one impression at `now` in each of `scopes`, each ring `depth` deep (its scope's
    /// largest cap; 1 at least).
    /// - Parameters:
    ///   - scopes: the scopes it counts in, with the depth their rules read.
    ///   - now: the instant (not before any recorded one).
    package mutating func record(_ scopes: [(scope: CapScope, depth: Int)], at now: Int64) {
        for (scope, depth) in scopes {
            let slot = slot(of: scope, depth: depth)
            if slotRings[slot].capacity != max(1, depth) { slotRings[slot] = slotRings[slot].resized(to: max(1, depth)) }
            slotRings[slot].record(now)
            slotSessions[slot] += 1
        }
    }

    /// The slot of `scope`, given (with an empty ring `depth` deep) if it has none.
    private mutating func slot(of scope: CapScope, depth: Int) -> Int {
        if let slot = slots[scope] { return slot }
        let slot = slotScopes.count
        slots[scope] = slot
        slotScopes.append(scope)
        slotRings.append(CapRing(capacity: max(1, depth)))
        slotSessions.append(0)
        return slot
    }

    /// A full-screen ad of `placement` started being presented at `now` (its impression counted).
    package mutating func beginFullScreen(placement: String, at now: Int64) {
        if let end = lastEnd(at: now), presenting != nil { lastFullScreenEnd = end }
        presenting = (placement, now)
    }

    /// The full-screen ad of `placement` ended at `now` (the host reported it dismissed).
    /// - Returns: whether it was the one presented.
    @discardableResult
    package mutating func endFullScreen(placement: String, at now: Int64) -> Bool {
        guard let presenting, presenting.placement == placement else { return false }
        let limit = presenting.since + Int64(Self.maximumPresentationSeconds) * 1000
        lastFullScreenEnd = min(now, limit)
        self.presenting = nil
        return true
    }

    /// The app moved to the foreground or the background at `now`; back in the foreground
    /// after at least ``sessionGapSeconds`` away, a new session starts (session caps reset).
    package mutating func setForeground(_ foreground: Bool, at now: Int64) {
        if foreground {
            if let since = backgroundSince, now - since >= Int64(Self.sessionGapSeconds) * 1000 { startSession() }
            backgroundSince = nil
        } else if backgroundSince == nil {
            backgroundSince = now
        }
    }

    /// Starts a new session: session caps count from zero.
    package mutating func startSession() {
        for slot in slotSessions.indices { slotSessions[slot] = 0 }
        session += 1
    }

    /// Replaces the ring of `scope` (state read back from the store).
    package mutating func restore(_ scope: CapScope, ring: CapRing) {
        slotRings[slot(of: scope, depth: ring.capacity)] = ring
    }

    /// A configuration came into force whose rules read the scopes of `depths`, each that
    /// deep: each gets a slot (0 ..< `depths.count`; the slots given before are void). A kept
    /// scope keeps its ring (resized to its depth) and its session count; a new one starts
    /// empty; a scope no rule reads any more is dropped, ring and session count (bounded state).
    package mutating func configure(_ depths: [CapScope: Int]) {
        let old = (slots: slots, rings: slotRings, sessions: slotSessions)
        // Kept scopes in their old order, then new ones by name: a layout that does not
        // depend on the dictionary's order.
        let kept = slotScopes.filter { depths[$0] != nil }
        let added = depths.keys.filter { old.slots[$0] == nil }.sorted { $0.description < $1.description }
        slots = [:]
        slotScopes = []
        slotRings = []
        slotSessions = []
        for scope in kept + added {
            let depth = max(1, depths[scope] ?? 1)
            let slot = self.slot(of: scope, depth: depth)
            if let previous = old.slots[scope] {
                let ring = old.rings[previous]
                slotRings[slot] = ring.capacity == depth ? ring : ring.resized(to: depth)
                slotSessions[slot] = old.sessions[previous]
            }
        }
    }
}

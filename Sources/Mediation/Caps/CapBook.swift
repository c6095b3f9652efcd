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

    /// The newest instants of each scope's impressions.
    package private(set) var rings: [CapScope: CapRing] = [:]
    /// Each scope's impressions in this session.
    private var sessionCounts: [CapScope: Int] = [:]
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
            guard let nth = rings[rule.scope]?.newest(impressions) else { return nil }
            let free = nth + Int64(seconds) * 1000
            return now >= free ? nil : free
        case .pacing(let seconds):
            guard let newest = rings[rule.scope]?.newest(1) else { return nil }
            let free = newest + Int64(seconds) * 1000
            return now >= free ? nil : free
        case .session(let impressions):
            return (sessionCounts[rule.scope] ?? 0) >= impressions ? .max : nil
        }
    }

    /// Before an auction: the strictest rule of one level's `settings` (counting `scope`) that
    /// refuses an impression at `now` and frees after `limit` (a session cap that refuses
    /// always does), or `nil`. Rules whose window or pacing is no longer than `limit − now`
    /// cannot free after it (the scope's instants are not after `now`) and are not read; a
    /// level with none left reads no state. Allocates nothing unless a rule binds.
    /// - Parameters:
    ///   - settings: the level's caps and pacing.
    ///   - scope: the level.
    ///   - now: the instant (cap time, ms).
    ///   - limit: the last instant at which the ad loaded now could still be shown.
    package func bindingRefusal(_ settings: MediationConfiguration.CapSettings, scope: CapScope, at now: Int64, after limit: Int64) -> Refusal? {
        let span = limit - now
        var needsRing = settings.pacingSeconds.map { Int64($0) * 1000 > span } ?? false
        var needsSession = false
        for cap in settings.caps {
            switch cap.window {
            case .seconds(let seconds): if Int64(seconds) * 1000 > span { needsRing = true }
            case .session: needsSession = true
            }
        }
        guard needsRing || needsSession else { return nil }
        let ring = needsRing ? rings[scope] : nil
        let sessionCount = needsSession ? sessionCounts[scope] ?? 0 : 0
        // The strictest so far: its limit and when it frees (`Int64.max`: no instant does).
        var worst: (limit: CapRule.Limit, free: Int64)?
        for cap in settings.caps {
            switch cap.window {
            case .seconds(let seconds):
                guard let nth = ring?.newest(cap.impressions) else { continue }
                let free = nth + Int64(seconds) * 1000
                if free > limit, free > (worst?.free ?? .min) { worst = (.window(impressions: cap.impressions, seconds: seconds), free) }
            case .session:
                if sessionCount >= cap.impressions, worst?.free != .max { worst = (.session(impressions: cap.impressions), .max) }
            }
        }
        if let pacing = settings.pacingSeconds, let newest = ring?.newest(1) {
            let free = newest + Int64(pacing) * 1000
            if free > limit, free > (worst?.free ?? .min) { worst = (.pacing(seconds: pacing), free) }
        }
        guard let worst else { return nil }
        return Refusal(rule: CapRule(scope: scope, limit: worst.limit).description, retryAt: worst.free == .max ? nil : worst.free)
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
            var ring = rings[scope] ?? CapRing(capacity: max(1, depth))
            if ring.capacity != max(1, depth) { ring = ring.resized(to: max(1, depth)) }
            ring.record(now)
            rings[scope] = ring
            sessionCounts[scope, default: 0] += 1
        }
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
        sessionCounts = [:]
        session += 1
    }

    /// Replaces the ring of `scope` (state read back from the store).
    package mutating func restore(_ scope: CapScope, ring: CapRing) {
        rings[scope] = ring
    }

    /// Drops the rings of scopes no rule reads any more (bounded state after a configuration
    /// change).
    package mutating func keepOnly(_ scopes: Set<CapScope>) {
        rings = rings.filter { scopes.contains($0.key) }
    }
}

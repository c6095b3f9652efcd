/// When to check the configuration server next, and with what, as a pure state machine (the
/// HTTP rules of ``MediationEngine/RemoteConfiguration``): events in (the launch's cache, a check's result, the
/// instant), decisions out (the next check's instant, the `If-None-Match` header, whether a
/// check is due). It never reads a clock; ``RemoteConfigurationUpdater`` drives it.
package struct RemoteFetchPolicy: Sendable {
    /// What a check came to, for the schedule.
    package enum Result: Sendable {
        /// The server answered with a configuration we keep (applied, the same version, or
        /// deferred by its rollout) or 304: a success, with the response's headers.
        case answered(HTTPCacheHeaders)
        /// 429 or 503: wait for `Retry-After` if given, else back off.
        case busy(retryAfter: Int?)
        /// Anything else: no response, a timeout, an error status, a refused configuration.
        case failed
    }

    /// How old the configuration held is.
    package enum Freshness: String, Sendable {
        /// Younger than its `max-age`.
        case fresh
        /// Past `max-age`, within `stale-while-revalidate`.
        case stale
        /// Past both (or of unknown age): still served, since every signed configuration is
        /// newer than the bundled one, and revalidated.
        case expired
    }

    /// The bounds (``MediationEngine/RemoteConfiguration``).
    package let minimumInterval: Duration
    package let maximumInterval: Duration
    package let defaultInterval: Duration
    package let maximumBackoff: Duration
    /// The entity tag of the configuration held, sent as `If-None-Match`.
    package private(set) var entityTag: String?
    /// When the next check is due.
    package private(set) var nextCheck: MediationInstant
    /// Failures in a row since the last success.
    package private(set) var failures = 0
    /// Until when the configuration held is fresh, and until when merely stale.
    package private(set) var freshUntil: MediationInstant?
    package private(set) var staleUntil: MediationInstant?
    /// The last `max-age` and `stale-while-revalidate` applied, in seconds (what the cache keeps).
    package private(set) var maxAgeSeconds: Int
    package private(set) var staleSeconds = 0
    /// The jitter's random state (SplitMix64), seeded per install.
    private var random: UInt64

    /// A schedule that checks at `now` (nothing held yet).
    /// - Parameters:
    ///   - settings: the bounds.
    ///   - seed: the jitter's seed.
    ///   - now: the current instant.
    package init(settings: MediationEngine.RemoteConfiguration, seed: UInt64, now: MediationInstant) {
        minimumInterval = settings.minimumInterval
        maximumInterval = settings.maximumInterval
        defaultInterval = settings.defaultInterval
        maximumBackoff = settings.maximumBackoff
        random = seed
        nextCheck = now
        maxAgeSeconds = Int(settings.defaultInterval.components.seconds)
    }

    /// Resumes from the cache at launch: its entity tag, and its freshness from when it was
    /// fetched. A cache younger than its `max-age` is checked when it expires; an older one,
    /// or one fetched "in the future" (the device clock was set back), at once.
    /// - Parameters:
    ///   - entityTag: the cached entity tag (dropped unless it could have come from a server:
    ///     ``HTTPCacheHeaders``' rule).
    ///   - fetchedAt: when the cache was fetched, on the device's clock then.
    ///   - maxAgeSeconds: the cached `max-age` (bounded again: the cache is untrusted).
    ///   - staleSeconds: the cached `stale-while-revalidate`.
    ///   - wallClock: the device's clock now.
    ///   - now: the current instant.
    /// - Returns: `false` when the device clock is behind the fetch time (the age is unknown).
    package mutating func resume(entityTag: String?, fetchedAt: WallClockTime, maxAgeSeconds: Int, staleSeconds: Int, wallClock: WallClockTime, now: MediationInstant) -> Bool {
        self.entityTag = HTTPCacheHeaders.checkedEntityTag(entityTag) // untrusted, like the server's
        let maxAge = bounded(.seconds(max(0, maxAgeSeconds)))
        let stale = min(Duration.seconds(max(0, staleSeconds)), maximumInterval)
        self.maxAgeSeconds = Int(maxAge.components.seconds)
        self.staleSeconds = Int(stale.components.seconds)
        let age = Duration.milliseconds(wallClock.millisecondsSince1970 &- fetchedAt.millisecondsSince1970)
        guard age >= .zero else {
            nextCheck = now
            freshUntil = nil
            staleUntil = nil
            return false
        }
        freshUntil = now + (maxAge - age)
        staleUntil = now + (maxAge + stale - age)
        nextCheck = max(now, now + (maxAge - age))
        return true
    }

    /// Drops the entity tag held: the next check is unconditional. For a new install id, whose
    /// bucket may take a version the old one deferred (the tag may be that version's, and the
    /// server would answer it 304).
    package mutating func forgetEntityTag() {
        entityTag = nil
    }

    /// The `If-None-Match` header of the next request, if an entity tag is held.
    package var conditionalHeaders: [String: String] {
        entityTag.map { ["If-None-Match": $0] } ?? [:]
    }

    /// Whether a check is due at `now`.
    package func isDue(at now: MediationInstant) -> Bool { now >= nextCheck }

    /// The freshness of the configuration held at `now` (``Freshness/expired`` when nothing
    /// says how old it is).
    package func freshness(at now: MediationInstant) -> Freshness {
        guard let freshUntil, let staleUntil else { return .expired }
        if now < freshUntil { return .fresh }
        return now < staleUntil ? .stale : .expired
    }

    /// Records a check's result at `now` and schedules the next check.
    /// - Parameters:
    ///   - result: what the check came to (only an answer's entity tag is kept: never that of
    ///     a refused configuration).
    ///   - now: the current instant.
    package mutating func record(_ result: Result, at now: MediationInstant) {
        switch result {
        case .answered(let headers):
            failures = 0
            if let tag = headers.entityTag { entityTag = tag }
            let maxAge = headers.noCache ? minimumInterval : bounded(headers.maxAge.map { .seconds($0) } ?? defaultInterval)
            let stale = min(Duration.seconds(headers.staleWhileRevalidate ?? 0), maximumInterval)
            maxAgeSeconds = Int(maxAge.components.seconds)
            staleSeconds = Int(stale.components.seconds)
            freshUntil = now + maxAge
            staleUntil = now + maxAge + stale
            nextCheck = now + maxAge
        case .busy(let retryAfter?):
            failures += 1
            nextCheck = now + bounded(.seconds(retryAfter))
        case .busy(nil), .failed:
            failures += 1
            nextCheck = now + backoff()
        }
    }

    /// The back-off after ``failures`` failures: the minimum interval doubled per failure
    /// after the first, at most ``maximumBackoff``, times a jitter from 1 to 1.5 (then at most
    /// ``maximumBackoff`` again).
    private mutating func backoff() -> Duration {
        let doublings = min(max(0, failures - 1), 30)
        let base = min(minimumInterval * (1 << doublings), maximumBackoff)
        let jitter = 1 + Double(nextRandom() >> 11) / Double(1 << 53) / 2
        let jittered = Duration.milliseconds(Int64((base.milliseconds * jitter).rounded(.down)))
        return min(jittered, maximumBackoff)
    }

    /// A duration kept within the bounds.
    private func bounded(_ duration: Duration) -> Duration {
        min(max(duration, minimumInterval), maximumInterval)
    }

    /// SplitMix64's next value.
    private mutating func nextRandom() -> UInt64 {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

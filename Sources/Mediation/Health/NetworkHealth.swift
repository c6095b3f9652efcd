import Foundation

/// One network's health as a pure state machine (engine rule R24): signals in at instants,
/// admissions and transitions out. It never reads a clock or a store;
/// ``NetworkHealthMonitor`` drives it.
///
/// ```
/// closed ──failures_to_open of the last window fail──▶ open(retry at now + back-off)
///   ▲                                                     │ an auction at or after retry at
///   │ a probe answers                                     ▼
///   └──────────────────────────────────────────── half-open (at most `probes` probes)
///                         a probe fails: open again, the back-off × 1.25 (up to the cap)
/// ```
/// Closed, every auction asks it and its verdicts fill the window. Open, no auction asks it
/// until the back-off ends. Half-open, up to `probes` auctions at a time ask it; the others
/// pass it by. A probe whose auction said nothing about it (cancelled, not reached) frees its
/// place. Verdicts of auctions admitted before it opened are ignored once it is open.
struct NetworkHealth: Hashable, Sendable {
    /// Where it is.
    enum Phase: String, Hashable, Sendable, Codable {
        /// Asked.
        case closed
        /// Not asked until its back-off ends.
        case open
        /// Asked by at most `probes` auctions at a time.
        case halfOpen = "half_open"
    }

    /// What an auction does with the network.
    enum Admission: Hashable, Sendable {
        /// Ask it; `probe` when its answer decides whether it closes.
        case ask(probe: Bool)
        /// Pass it by (`network_paused`); it is tried again at `retryAt`.
        case paused(retryAt: MediationInstant)
    }

    /// Why it opened.
    typealias Cause = MediationEvent.NetworkPause.Cause

    /// A change the host hears of (a `network_paused` or `network_resumed` event).
    enum Transition: Hashable, Sendable {
        /// It opened at `at` for `backoff`, until `retryAt`; `failures` of the last `outcomes`
        /// verdicts failed (for a probe: 1 of 1).
        case opened(cause: Cause, failures: Int, outcomes: Int, backoff: Duration, retryAt: MediationInstant)
        /// A probe answered: it is asked again, after `failedProbes` failed probes.
        case closed(failedProbes: Int)
    }

    private(set) var phase: Phase = .closed
    /// When open or half-open: the end of its back-off.
    private(set) var retryAt: MediationInstant?
    /// The last verdicts while closed, newest in bit 0: 1 a failure.
    private var recent: UInt64 = 0
    /// How many verdicts ``recent`` holds (at most the window).
    private(set) var recentCount = 0
    /// Failed probes since it last opened from closed (each lengthens the back-off by a quarter).
    private(set) var failedProbes = 0
    /// Probes asked and not yet heard of.
    private(set) var probesOutstanding = 0
    /// How many times it opened (numbers the jitter).
    private(set) var openings = 0
    /// The back-off of its current opening.
    private(set) var backoff: Duration = .zero

    /// Failures among the recent verdicts.
    var recentFailures: Int { recent.nonzeroBitCount }

    /// Whether recording `signal` would change nothing because it is closed and the signal
    /// says nothing, or is a success into a full window (`window`) that holds no failure: the
    /// monitor's fast path, exact (``record(_:probe:at:settings:jitter:)`` would return `nil`
    /// and leave every field as it is).
    func isUnchanged(byClosedSignal signal: HealthSignal?, window: Int) -> Bool {
        guard phase == .closed else { return false }
        guard let signal else { return true }
        return signal == .success && recent == 0 && recentCount == min(max(window, 1), 64)
    }

    /// Whether an auction at `now` asks it.
    mutating func admit(at now: MediationInstant, settings: NetworkHealthSettings) -> Admission {
        switch phase {
        case .closed:
            return .ask(probe: false)
        case .open:
            let retry = retryAt ?? now
            guard now >= retry else { return .paused(retryAt: retry) }
            phase = .halfOpen
            return admitProbe(at: now, settings: settings)
        case .halfOpen:
            return admitProbe(at: now, settings: settings)
        }
    }

    private mutating func admitProbe(at now: MediationInstant, settings: NetworkHealthSettings) -> Admission {
        guard probesOutstanding < settings.probes else { return .paused(retryAt: retryAt ?? now) }
        probesOutstanding += 1
        return .ask(probe: true)
    }

    /// What one auction said about it at `now`: `signal` (`nil`: nothing), from an auction
    /// that asked it as a probe or not. `jitter` is the seeded number in `0..<1` of the next
    /// opening (``HealthJitter``).
    /// - Returns: the transition, if it opened or closed.
    mutating func record(_ signal: HealthSignal?, probe: Bool, at now: MediationInstant, settings: NetworkHealthSettings, jitter: Double) -> Transition? {
        switch phase {
        case .closed:
            guard !probe, let signal else { return nil }
            push(signal, window: settings.window)
            guard recentFailures >= settings.failuresToOpen else { return nil }
            let failures = recentFailures
            let outcomes = recentCount
            failedProbes = 0
            return open(cause: .failures, failures: failures, outcomes: outcomes, at: now, settings: settings, jitter: jitter)
        case .open, .halfOpen:
            guard probe else { return nil } // an auction admitted before it opened
            probesOutstanding = max(0, probesOutstanding - 1)
            switch signal {
            case nil:
                return nil
            case .success:
                let failed = failedProbes
                self = NetworkHealth(openings: openings)
                return .closed(failedProbes: failed)
            case .failure:
                guard phase == .halfOpen else { return nil }
                failedProbes += 1
                return open(cause: .probeFailed, failures: 1, outcomes: 1, at: now, settings: settings, jitter: jitter)
            }
        }
    }

    /// Opens it at `now` for the back-off of its failed probes so far.
    private mutating func open(cause: Cause, failures: Int, outcomes: Int, at now: MediationInstant, settings: NetworkHealthSettings, jitter: Double) -> Transition {
        let backoff = NetworkHealth.backoff(failedProbes: failedProbes, settings: settings, jitter: jitter)
        phase = .open
        retryAt = now + backoff
        self.backoff = backoff
        recent = 0
        recentCount = 0
        probesOutstanding = 0
        openings += 1
        return .opened(cause: cause, failures: failures, outcomes: outcomes, backoff: backoff, retryAt: now + backoff)
    }

    /// How much each failed probe lengthens the next back-off: 1.25 (a quarter). The back-off
    /// after `n` failed probes is `backoff_ms × 1.25^n`: the time to notice a network that came
    /// back is about a quarter of how long it has been paused so far, while the number of
    /// probes of a network that stays down grows only with the logarithm of the outage's
    /// length (`docs/health.md`, "A flapping network").
    static let growth = 1.25

    /// The back-off after `failedProbes` failed probes: `backoff_ms × 1.25^failedProbes`, at
    /// most `max_backoff_ms`, less up to ``HealthJitter/spread`` of it (`jitter` in `0..<1`), in
    /// whole milliseconds.
    static func backoff(failedProbes: Int, settings: NetworkHealthSettings, jitter: Double) -> Duration {
        let base = settings.backoff.milliseconds
        let cap = settings.maxBackoff.milliseconds
        // 1.25^200 is beyond any cap (the longest back-off is 86,400 × the shortest).
        let grown = base * pow(growth, Double(min(max(failedProbes, 0), 200)))
        let full = min(grown, cap)
        let unit = jitter.isFinite ? min(max(jitter, 0), 1) : 0
        return .milliseconds(Int((full * (1 - HealthJitter.spread * unit)).rounded(.down)))
    }

    private mutating func push(_ signal: HealthSignal, window: Int) {
        let width = min(max(window, 1), 64)
        recent = (recent << 1) | (signal == .failure ? 1 : 0)
        if width < 64 { recent &= (UInt64(1) << UInt64(width)) - 1 }
        recentCount = min(recentCount + 1, width)
    }

    /// A closed state that keeps the count of openings.
    private init(openings: Int) {
        self.openings = openings
    }

    /// A closed network.
    init() {}

    /// A network open until `retryAt` (a stored state, already validated and clamped), after
    /// `failedProbes` failed probes, with the back-off it was given.
    init(openUntil retryAt: MediationInstant, failedProbes: Int, openings: Int, backoff: Duration) {
        phase = .open
        self.retryAt = retryAt
        self.failedProbes = failedProbes
        self.openings = openings
        self.backoff = backoff
    }
}

import Mediation

/// The wall clock, except that it jumps over idle time: when every task sleeping on it is due
/// at least `horizon` ahead (a banner's next refresh, an ad's expiry) and that has stayed so for
/// `quietPeriod` of real time, ``now`` jumps to the earliest of them.
///
/// Why: placement (refresh) mode against real HTTP. Refresh intervals are at least 30 s (R13),
/// too long to wait on the wall clock in a test, and `ManualClock` cannot wait on a real server
/// (it would move time while a request is in flight). On this clock an auction runs in real time
/// (its deadline timer, under `horizon`, is always among the sleepers while it runs, so nothing
/// is skipped), and only the idle gap between auctions is skipped. Nothing waits on the wall
/// clock beyond the sleepers' own slices.
final class IdleSkippingClock: MediationClock {
    private struct State {
        var skipped: Duration = .zero
        var sleepers: [UInt64: MediationInstant] = [:]
        var nextID: UInt64 = 0
        var idleSince: ContinuousClock.Instant?
    }

    private let origin = ContinuousClock.now
    private let state = Locked(State())
    private let horizon: Duration
    private let quietPeriod: Duration
    private let slice: Duration = .milliseconds(5)

    /// - Parameters:
    ///   - horizon: sleepers due sooner than this keep real time (default 5 s, well above any
    ///     deadline a test uses).
    ///   - quietPeriod: how long the clock must have been idle before it jumps (default 30 ms).
    init(horizon: Duration = .seconds(5), quietPeriod: Duration = .milliseconds(30)) {
        self.horizon = horizon
        self.quietPeriod = quietPeriod
    }

    /// Real time since the clock was made, plus every jump.
    var now: MediationInstant {
        state.withLock { MediationInstant(offset: ContinuousClock.now - origin + $0.skipped) }
    }

    /// The total time jumped over so far.
    var skipped: Duration { state.withLock { $0.skipped } }

    /// Sleeps in short real slices, checking after each whether the clock may jump.
    func sleep(until deadline: MediationInstant) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.sleepers[state.nextID] = deadline
            return state.nextID
        }
        defer { state.withLock { _ = $0.sleepers.removeValue(forKey: id) } }
        while true {
            let remaining = deadline - now
            if remaining <= .zero { return }
            try await Task.sleep(for: min(remaining, slice))
            skipIfIdle()
        }
    }

    private func skipIfIdle() {
        state.withLock { state in
            let real = ContinuousClock.now
            let now = MediationInstant(offset: real - origin + state.skipped)
            guard let earliest = state.sleepers.values.min(), earliest - now >= horizon else {
                state.idleSince = nil
                return
            }
            guard let since = state.idleSince else {
                state.idleSince = real
                return
            }
            guard real - since >= quietPeriod else { return }
            state.skipped += earliest - now
            state.idleSince = nil
        }
    }
}

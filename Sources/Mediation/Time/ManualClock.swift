/// A clock that moves only when told to: tests of deadlines, refresh and expiry run exactly and
/// instantly on it, and `mediate --fast` runs a placement on it in virtual time.
///
/// ``advance(by:)`` and ``advance(to:)`` wake sleepers one at a time in deadline order (ties in
/// the order they started sleeping), setting ``now`` to each sleeper's deadline before waking
/// it and letting the woken work run before the next one, so every event is stamped with the
/// instant it was due.
public final class ManualClock: MediationClock {
    private struct Sleeper {
        var deadline: MediationInstant
        var sequence: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: MediationInstant
        var sleepers: [UInt64: Sleeper] = [:]
        var cancelledBeforeRegistration: Set<UInt64> = []
        var nextID: UInt64 = 0
        /// Bumped by every read of `now` and every sleep, wake-up and cancellation: a sign
        /// that some task is still doing timed work.
        var activity: UInt64 = 0
        /// Sleepers woken by ``advance(to:)`` whose tasks have not yet run again.
        var wokenNotRunning: Set<UInt64> = []
    }

    private let state: Locked<State>
    private let settleYields: Int
    private let quietPeriod: Duration

    /// Creates a clock standing at `start`.
    /// - Parameters:
    ///   - start: the initial instant (default the origin).
    ///   - settleYields: the least number of yields with no clock activity that ``settle()``
    ///     waits for after each step, so woken tasks run before time moves on.
    ///   - quietPeriod: the least real time with no clock activity that ``settle()`` waits for
    ///     (a thread preempted by the OS shows no activity while it is off the CPU).
    public init(start: MediationInstant = .origin, settleYields: Int = 64, quietPeriod: Duration = .milliseconds(5)) {
        state = Locked(State(now: start))
        self.settleYields = settleYields
        self.quietPeriod = quietPeriod
    }

    /// The current virtual instant.
    public var now: MediationInstant {
        state.withLock { state in
            state.activity &+= 1
            return state.now
        }
    }

    /// The number of tasks sleeping on this clock.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// The earliest instant a sleeper waits for, if any.
    public var nextDeadline: MediationInstant? {
        state.withLock { $0.sleepers.values.map(\.deadline).min() }
    }

    /// Suspends until the clock is advanced to `deadline`.
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: MediationInstant) async throws {
        let id: UInt64 = state.withLock { state in
            state.activity &+= 1
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledBeforeRegistration.remove(id) != nil {
                        return .failure(CancellationError())
                    }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, sequence: id, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                state.cancelledBeforeRegistration.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        // The woken task runs again: tell advance(to:), and drop a stale cancellation marker
        // left by a cancellation that raced with the wake-up.
        state.withLock { state in
            state.activity &+= 1
            state.wokenNotRunning.remove(id)
            state.cancelledBeforeRegistration.remove(id)
        }
    }

    /// Suspends until the clock is advanced to `deadline`, whatever happens to the calling
    /// task: a test double for a network that ignores cancellation. The sleep is registered
    /// before this suspends, so a test that has seen the call start can advance past it safely.
    public func sleepIgnoringCancellation(until deadline: MediationInstant) async {
        let id: UInt64 = state.withLock { state in
            state.activity &+= 1
            state.nextID += 1
            return state.nextID
        }
        try? await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let due: Bool = state.withLock { state in
                if deadline <= state.now { return true }
                state.sleepers[id] = Sleeper(deadline: deadline, sequence: id, continuation: continuation)
                return false
            }
            if due { continuation.resume() }
        }
        state.withLock { state in
            state.activity &+= 1
            state.wokenNotRunning.remove(id)
        }
    }

    /// Moves time forward by `duration`, waking every sleeper due on the way, in order.
    /// - Parameter duration: how far to move; a negative duration does nothing.
    public func advance(by duration: Duration) async {
        await advance(to: now + duration)
    }

    /// Moves time forward to `target`, waking every sleeper due on the way, in order; each
    /// sleeper sees ``now`` equal to its own deadline. Does nothing when `target` has passed.
    /// - Parameter target: the instant to stop at.
    public func advance(to target: MediationInstant) async {
        await settle()
        while true {
            let due: Sleeper? = state.withLock { state in
                guard let next = state.sleepers.values
                    .filter({ $0.deadline <= target })
                    .min(by: { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) })
                else {
                    if target > state.now { state.now = target }
                    return nil
                }
                state.sleepers.removeValue(forKey: next.sequence)
                state.wokenNotRunning.insert(next.sequence)
                if next.deadline > state.now { state.now = next.deadline }
                return next
            }
            guard let due else { break }
            due.continuation.resume()
            // Wait until the woken task runs again, then until the work it starts goes quiet.
            await settle { !self.state.withLock { $0.wokenNotRunning.contains(due.sequence) } }
        }
        await settle()
    }

    /// Advances to each sleeper's deadline in turn until none is left at or before `limit`.
    /// - Parameter limit: the latest instant to run to; the clock ends there.
    public func run(until limit: MediationInstant) async {
        await advance(to: limit)
    }

    /// Lets tasks made runnable by the last step run before time moves on: yields until the
    /// clock has seen no activity (no read of ``now``, no sleep) for at least `settleYields`
    /// yields and `quietPeriod` of real time, or for at most one second in all.
    ///
    /// This never waits for an event on the wall clock; it waits for the engine to go quiet.
    public func settle() async {
        let wall = ContinuousClock()
        let giveUp = wall.now + .seconds(1)
        var lastActivity = state.withLock { $0.activity }
        var quietSince = wall.now
        var quietYields = 0
        while wall.now < giveUp {
            await Task.yield()
            let activity = state.withLock { $0.activity }
            if activity != lastActivity {
                lastActivity = activity
                quietSince = wall.now
                quietYields = 0
            } else {
                quietYields += 1
                if quietYields >= settleYields, wall.now - quietSince >= quietPeriod { return }
            }
        }
    }

    /// Yields until `condition` holds (for at most one second of real time), letting started
    /// tasks reach the point a test waits for, such as an auction having asked its sources.
    /// - Parameter condition: what to wait for.
    /// - Returns: whether the condition held.
    @discardableResult
    public func settle(until condition: () -> Bool) async -> Bool {
        let wall = ContinuousClock()
        let giveUp = wall.now + .seconds(1)
        while !condition() {
            guard wall.now < giveUp else { return false }
            await Task.yield()
        }
        await settle()
        return true
    }
}

/// The timer of one ``Auction``: a single task sleeping on the injected clock until the
/// earliest wake-up any of its running auctions needs (a source timeout or a deadline).
///
/// - One task serves every running auction of the ``Auction``; it is replaced only when a
///   wake-up earlier than the one it sleeps for arrives, and it is cancelled as soon as no
///   auction is waiting, so nothing sleeps on the clock between auctions (as with a timer per
///   auction).
/// - The task is started by the auction after its sources' tasks (``spawn(_:)``, outside any
///   lock) and checks before sleeping that it is still needed: an auction whose sources answer
///   at once ends before its timer ever sleeps, so it costs no clock sleep at all (a cancelled
///   `ContinuousClock` sleep keeps its system timer until the original deadline).
/// - A wake-up that became stale (the auction ended or moved its wake-up) is ignored by
///   ``AuctionRun``.
final class AuctionTimer: Sendable {
    /// A timer task to start: ``spawn(_:)`` it once the caller has released its own lock.
    struct Ticket {
        fileprivate let generation: UInt64
        fileprivate let target: MediationInstant
    }

    /// What a change of wake-up asks the caller to do, outside its lock.
    struct Change {
        /// The task to cancel (replaced, or no longer needed).
        var cancel: Task<Void, Never>?
        /// A new task to start.
        var spawn: Ticket?
    }

    private struct Pending {
        var run: AuctionRun
        var wakeup: MediationInstant
        /// When it was scheduled, among this timer's wake-ups: ties at one instant are woken
        /// in this order, not in the dictionary's (which differs between processes).
        var sequence: UInt64
    }

    private struct State {
        var pending: [ObjectIdentifier: Pending] = [:]
        /// The instant the current task sleeps (or will sleep) until; `nil` when none is needed.
        var target: MediationInstant?
        var task: Task<Void, Never>?
        /// Bumped for every new target, so a replaced task does nothing.
        var generation: UInt64 = 0
        /// The next ``Pending/sequence``.
        var nextSequence: UInt64 = 0
    }

    private let clock: any MediationClock
    private let state = Locked(State())

    /// Creates the timer of auctions on `clock`.
    init(clock: any MediationClock) {
        self.clock = clock
    }

    /// Wakes `run` at `wakeup` (replacing its previous wake-up), or never again when `nil`.
    /// Called with the run's own lock held (so a run's changes arrive in order); never calls
    /// back into a run. The returned change must be applied after that lock is released.
    func schedule(_ run: AuctionRun, at wakeup: MediationInstant?) -> Change {
        state.withLock { state in
            let key = ObjectIdentifier(run)
            guard let wakeup else {
                state.pending.removeValue(forKey: key)
                guard state.pending.isEmpty, state.target != nil else { return Change() }
                // No auction waits: stop the task.
                state.generation &+= 1
                state.target = nil
                defer { state.task = nil }
                return Change(cancel: state.task)
            }
            state.pending[key] = Pending(run: run, wakeup: wakeup, sequence: state.nextSequence)
            state.nextSequence &+= 1
            if let target = state.target, target <= wakeup { return Change() } // it wakes in time
            state.generation &+= 1
            state.target = wakeup
            defer { state.task = nil }
            return Change(cancel: state.task, spawn: Ticket(generation: state.generation, target: wakeup))
        }
    }

    /// Starts the task a ``Change`` asked for.
    func spawn(_ ticket: Ticket) {
        let task = clock.startTask { [self] in
            await sleepLoop(from: ticket.target, generation: ticket.generation)
        }
        let stale = state.withLock { state -> Bool in
            guard state.generation == ticket.generation else { return true }
            state.task = task
            return false
        }
        if stale { task.cancel() }
    }

    private func isCurrent(_ generation: UInt64) -> Bool {
        state.withLock { $0.generation == generation }
    }

    private func sleepLoop(from first: MediationInstant, generation: UInt64) async {
        var target = first
        while true {
            // Not needed any more (the auctions ended before this task ran): no sleep at all.
            guard !Task.isCancelled, isCurrent(generation) else { return }
            do {
                try await clock.sleep(until: target)
            } catch {
                return // cancelled: replaced, or no auction waits
            }
            let now = clock.now
            let due: [Pending]? = state.withLock { state in
                guard state.generation == generation else { return nil }
                var due: [(key: ObjectIdentifier, pending: Pending)] = []
                var next: MediationInstant?
                for (key, pending) in state.pending {
                    if pending.wakeup <= now {
                        due.append((key, pending))
                    } else if next.map({ pending.wakeup < $0 }) ?? true {
                        next = pending.wakeup
                    }
                }
                for (key, _) in due { state.pending.removeValue(forKey: key) }
                state.target = next
                if next == nil {
                    state.generation &+= 1
                    state.task = nil
                }
                return due.map(\.pending)
            }
            guard let due else { return }
            // In wake-up order, so auctions due at once are ticked in the order they were due,
            // and those due at the same instant in the order they were scheduled (the same on
            // every run: network health, R24, counts their verdicts in that order).
            for pending in due.sorted(by: { $0.wakeup != $1.wakeup ? $0.wakeup < $1.wakeup : $0.sequence < $1.sequence }) {
                pending.run.wake(for: pending.wakeup)
            }
            // The ticks may have asked for an earlier wake-up (a new task then replaced this
            // one); otherwise sleep until the next one.
            let next: MediationInstant? = state.withLock { state in
                guard state.generation == generation else { return nil }
                return state.target
            }
            guard let next else { return }
            target = next
        }
    }
}

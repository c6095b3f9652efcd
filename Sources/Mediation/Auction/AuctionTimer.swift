/// The timer of one ``Auction``: a single task sleeping on the injected clock until the
/// earliest wake-up any of its running auctions needs (a source timeout or a deadline).
///
/// Sharing one timer across auctions keeps a timer task and a clock sleep out of every
/// auction's cost: auctions of one placement start in time order with the same deadline, so a
/// new auction's wake-up is rarely earlier than the one the task already sleeps for, and an
/// auction that ends early only leaves its entry. The task is replaced only when a wake-up
/// earlier than its own arrives; it ends when no auction is waiting. A wake-up that became
/// stale (the auction ended or moved its wake-up) is ignored by ``AuctionRun``.
final class AuctionTimer: Sendable {
    private struct Pending {
        var run: AuctionRun
        var wakeup: MediationInstant
    }

    private struct State {
        var pending: [ObjectIdentifier: Pending] = [:]
        /// The instant the current task sleeps until; `nil` when there is no task.
        var target: MediationInstant?
        var task: Task<Void, Never>?
        /// Bumped for every new task, so a replaced task that was already waking does nothing.
        var generation: UInt64 = 0
    }

    private let clock: any MediationClock
    private let state = Locked(State())

    /// Creates the timer of auctions on `clock`.
    init(clock: any MediationClock) {
        self.clock = clock
    }

    /// Wakes `run` at `wakeup` (replacing its previous wake-up), or never again when `nil`.
    /// Called with the run's own lock held; never calls back into a run.
    func schedule(_ run: AuctionRun, at wakeup: MediationInstant?) {
        state.withLock { state in
            let key = ObjectIdentifier(run)
            guard let wakeup else {
                state.pending.removeValue(forKey: key)
                return
            }
            state.pending[key] = Pending(run: run, wakeup: wakeup)
            if let target = state.target, target <= wakeup { return } // the task wakes in time
            state.task?.cancel()
            state.generation &+= 1
            state.target = wakeup
            let generation = state.generation
            state.task = Task { [self] in
                await sleepLoop(from: wakeup, generation: generation)
            }
        }
    }

    private func sleepLoop(from first: MediationInstant, generation: UInt64) async {
        var target = first
        while true {
            do {
                try await clock.sleep(until: target)
            } catch {
                return // replaced by a task with an earlier wake-up
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
                if next == nil { state.task = nil }
                return due.map(\.pending)
            }
            guard let due else { return }
            // In wake-up order, so auctions due at once are ticked in the order they were due.
            for pending in due.sorted(by: { $0.wakeup < $1.wakeup }) {
                pending.run.wake(for: pending.wakeup)
            }
            // The ticks may have scheduled wake-ups earlier than `target` (each such call
            // replaced this task, bumping the generation); otherwise sleep until the next one.
            let next: MediationInstant? = state.withLock { state in
                guard state.generation == generation else { return nil }
                return state.target
            }
            guard let next else { return }
            target = next
        }
    }
}

import Mediation

/// A virtual clock for the placements benchmark: time moves only when the driver calls
/// ``move(to:)``, which wakes the sleepers due by then, earliest first. Unlike `ManualClock` it
/// has no settle handshake and keeps its sleepers in a heap, so moving time among 10,000
/// sleeping placements costs microseconds; the driver decides when the work is done.
final class VirtualClock: MediationClock {
    private struct State {
        var now = MediationInstant.origin
        var sleepers: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        /// Deadlines by sleeper id (entries of cancelled sleepers are skipped when popped).
        var queue = EventQueue<UInt64>()
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
        var sleeps = 0
        /// Bumped by every read of `now` and every sleep, wake-up and cancellation.
        var activity: UInt64 = 0

        /// Drops heap entries of sleepers that are gone.
        mutating func pruneQueue() {
            while let id = queue.firstPayload, sleepers[id] == nil { _ = queue.pop() }
        }
    }

    private let state = Locked(State())

    var now: MediationInstant {
        state.withLock { state in
            state.activity &+= 1
            return state.now
        }
    }

    /// A counter that changes whenever some task uses the clock.
    var activity: UInt64 { state.withLock { $0.activity } }

    /// Tasks sleeping on this clock.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Sleeps registered so far.
    var sleepCount: Int { state.withLock { $0.sleeps } }

    /// The earliest instant a sleeper waits for.
    var nextDeadline: MediationInstant? {
        state.withLock { state in
            state.pruneQueue()
            return state.queue.firstKey.map { MediationInstant(offset: $0) }
        }
    }

    func sleep(until deadline: MediationInstant) async throws {
        let id: UInt64 = state.withLock { state in
            state.activity &+= 1
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleeps += 1
                    state.sleepers[id] = continuation
                    state.queue.push(deadline.offset, id)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
                state.activity &+= 1
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                state.cancelledEarly.insert(id)
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
        state.withLock { state in
            state.activity &+= 1
            state.cancelledEarly.remove(id)
        }
    }

    /// Moves time forward to `instant` and wakes every sleeper due by then; returns how many.
    @discardableResult
    func move(to instant: MediationInstant) -> Int {
        let due: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.activity &+= 1
            if instant > state.now { state.now = instant }
            var due: [CheckedContinuation<Void, any Error>] = []
            while let key = state.queue.firstKey, key <= state.now.offset, let (_, id) = state.queue.pop() {
                if let continuation = state.sleepers.removeValue(forKey: id) { due.append(continuation) }
            }
            return due
        }
        for continuation in due { continuation.resume() }
        return due.count
    }
}

import Mediation

/// A virtual clock for the placements benchmark: time moves only when the driver calls
/// ``move(to:)``, which wakes the sleepers due by then. Unlike `ManualClock` it keeps no
/// settle handshake (the driver knows when its work is done: it awaits it), so moving time
/// costs microseconds, not a quiet period of real time.
final class VirtualClock: MediationClock {
    private struct State {
        var now = MediationInstant.origin
        var sleepers: [UInt64: (deadline: MediationInstant, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
        var sleeps = 0
    }

    private let state = Locked(State())

    var now: MediationInstant { state.withLock { $0.now } }

    /// Tasks sleeping on this clock.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Sleeps registered so far.
    var sleepCount: Int { state.withLock { $0.sleeps } }

    func sleep(until deadline: MediationInstant) async throws {
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleeps += 1
                    state.sleepers[id] = (deadline, continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper.continuation }
                state.cancelledEarly.insert(id)
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
        _ = state.withLock { $0.cancelledEarly.remove(id) }
    }

    /// Moves time forward to `instant` and wakes every sleeper due by then; returns how many.
    @discardableResult
    func move(to instant: MediationInstant) -> Int {
        let due: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            if instant > state.now { state.now = instant }
            let now = state.now
            let keys = state.sleepers.filter { $0.value.deadline <= now }.map(\.key)
            return keys.compactMap { state.sleepers.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
        return due.count
    }
}

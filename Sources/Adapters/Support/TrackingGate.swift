import Mediation

/// Whether a network may still send, shared by every ad it handed out (engine rule R18: after
/// shutdown no network sends anything, not even for ads handed out earlier).
///
/// While open, ``run(_:)`` starts a sending task and keeps it until it ends; ``close()`` (the
/// network's shutdown) refuses every later task and cancels those queued or under way, so a
/// task must also check ``isOpen`` (or cancellation) right before each request it sends.
package final class TrackingGate: Sendable {
    private struct State {
        var open = true
        var nextKey = 0
        var running: [Int: Task<Void, Never>] = [:]
    }

    private let state = Locked(State())

    /// Creates an open gate.
    package init() {}

    /// Whether sending is still allowed.
    package var isOpen: Bool { state.withLock { $0.open } }

    /// Closes the gate for good and cancels the tasks it keeps.
    package func close() {
        let running = state.withLock { state -> [Task<Void, Never>] in
            state.open = false
            defer { state.running.removeAll() }
            return Array(state.running.values)
        }
        for task in running { task.cancel() }
    }

    /// Starts the task `make` builds while the gate is open, and keeps it until it calls the
    /// `done` it is given (its last step), so ``close()`` can cancel it.
    /// - Parameter make: builds the task; it runs under the gate's lock, so it must only start
    ///   the task (e.g. with ``MediationClock/startTask(_:)``), never wait.
    /// - Returns: the task, or `nil` when the gate is closed.
    @discardableResult
    package func run(_ make: (_ done: @escaping @Sendable () -> Void) -> Task<Void, Never>) -> Task<Void, Never>? {
        state.withLock { state in
            guard state.open else { return nil }
            state.nextKey += 1
            let key = state.nextKey
            let task = make { [weak self] in self?.finished(key) }
            state.running[key] = task
            return task
        }
    }

    private func finished(_ key: Int) {
        state.withLock { _ = $0.running.removeValue(forKey: key) }
    }
}

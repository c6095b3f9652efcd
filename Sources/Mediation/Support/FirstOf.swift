/// The one "first of" gate: several parties race to resume one waiter (an answer, a timer, a
/// cancellation); the first value resumes it, exactly once, and every later one is ignored. A
/// value that comes before the wait begins is kept and returned at once, so no order of the
/// racers can lose the outcome or resume twice. The racing remote fetch, Elo's request and the
/// remote check's settling all wait through it; an auction's run keeps its own hand-over, for
/// speed (measured in ``AuctionRun``).
package final class FirstOf<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiter: CheckedContinuation<Value, Never>?
    }

    private let state = Locked(State())

    /// Creates a gate with no value.
    package init() {}

    /// Offers `value`: it resumes the waiter (now, or when it waits) unless a value came first.
    /// - Returns: whether `value` was the first (and so the one the waiter gets).
    @discardableResult
    package func resume(_ value: Value) -> Bool {
        let (first, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Value, Never>?) in
            guard state.value == nil else { return (false, nil) }
            state.value = value
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(returning: value)
        return first
    }

    /// Whether a value has come.
    package var isResolved: Bool {
        state.withLock { $0.value != nil }
    }

    /// Waits for the first value. Cancelling the waiting task offers `cancelled` (which wins
    /// only if nothing came first). One waiter per gate.
    /// - Parameter cancelled: the value the waiter's cancellation offers.
    /// - Returns: the first value offered.
    package func value(ifCancelled cancelled: Value) async -> Value {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                let ready = state.withLock { state -> Value? in
                    if let value = state.value { return value }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            resume(cancelled)
        }
    }
}

import Dispatch

/// One sleep of ``SystemClock``: a strict dispatch timer that is cancelled, and its resources
/// freed, the moment the sleeping task is cancelled.
///
/// A cancelled `Task.sleep` answers at once but keeps its system timer until the original
/// deadline; an auction that ends early cancels its timer's sleep, so at thousands of
/// auctions a second those dead timers added up to megabytes (issue 7).
final class CancellableSleep: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var source: (any DispatchSourceTimer)?
        var cancelled = false
    }

    private let state = Locked(State())

    /// Suspends for `duration` (on the system's monotonic clock).
    /// - Throws: `CancellationError` when the calling task is cancelled first.
    static func sleep(for duration: Duration) async throws {
        let sleep = CancellableSleep()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                sleep.start(after: duration, continuation: continuation)
            }
        } onCancel: {
            sleep.cancel()
        }
    }

    private func start(after duration: Duration, continuation: CheckedContinuation<Void, any Error>) {
        let parts = duration.components
        let nanoseconds = max(0, parts.seconds) * 1_000_000_000 + max(0, parts.attoseconds / 1_000_000_000)
        let source = DispatchSource.makeTimerSource(flags: .strict, queue: .global())
        source.schedule(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds)), leeway: .nanoseconds(0))
        source.setEventHandler { [self] in finish(throwing: nil) }
        let cancelledEarly = state.withLock { state -> Bool in
            if state.cancelled { return true }
            state.continuation = continuation
            state.source = source
            return false
        }
        // A dispatch source must be resumed before it is released, even one never used.
        source.resume()
        if cancelledEarly {
            source.cancel()
            continuation.resume(throwing: CancellationError())
        }
    }

    private func cancel() {
        let pending = state.withLock { state -> Bool in
            state.cancelled = true
            return state.continuation != nil
        }
        if pending { finish(throwing: CancellationError()) }
    }

    private func finish(throwing error: (any Error)?) {
        let (continuation, source) = state.withLock { state in
            defer {
                state.continuation = nil
                state.source = nil
            }
            return (state.continuation, state.source)
        }
        source?.cancel()
        guard let continuation else { return }
        if let error {
            continuation.resume(throwing: error)
        } else {
            continuation.resume()
        }
    }
}

import Mediation

/// One HTTP exchange in flight, which can be cancelled from outside (``EloClient/shutdown()``)
/// as well as by the caller's task. An engine request has no timer of its own: the engine
/// enforces each source's one limit (engine rule R3a) and cancels the request's task at it. A
/// preload, which no engine waits for, stops at its own deadline. The answer never waits on a
/// transport that ignores cancellation: the first of response, deadline and cancellation
/// resumes the caller, and the other work is cancelled.
final class EloRequestInFlight: Sendable {
    /// How the exchange ended.
    enum Outcome: Sendable {
        /// The transport answered (a response or a transport error).
        case response(Result<HTTP.Response, HTTP.TransportError>)
        /// A preload's deadline passed first.
        case timedOut
        /// The caller's task was cancelled, or ``cancel()`` was called.
        case cancelled
    }

    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        var outcome: Outcome?
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Sends `request` on `clock`'s executor and waits for its answer, a cancellation, or
    /// `deadline` when one is given (preloads only).
    func run(_ request: HTTP.Request, over transport: any HTTP.Transport, clock: any MediationClock, deadline: MediationInstant? = nil) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let early = state.withLock { state -> Outcome? in
                    if let outcome = state.outcome { return outcome }
                    state.continuation = continuation
                    return nil
                }
                if let early {
                    continuation.resume(returning: early)
                    return
                }
                let send = clock.startTask { [self] in
                    do throws(HTTP.TransportError) {
                        let response = try await transport.send(request)
                        finish(.response(.success(response)))
                    } catch {
                        finish(.response(.failure(error)))
                    }
                }
                let timer = deadline.map { deadline in
                    clock.startTask { [self] in
                        do {
                            try await clock.sleep(until: deadline)
                            finish(.timedOut)
                        } catch {
                            // Cancelled: the exchange already ended.
                        }
                    }
                }
                let tasks = [send] + (timer.map { [$0] } ?? [])
                let ended = state.withLock { state -> Bool in
                    if state.outcome != nil { return true }
                    state.tasks = tasks
                    return false
                }
                if ended {
                    for task in tasks { task.cancel() }
                }
            }
        } onCancel: {
            finish(.cancelled)
        }
    }

    /// Ends the exchange as cancelled (shutdown).
    func cancel() {
        finish(.cancelled)
    }

    private func finish(_ outcome: Outcome) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, [Task<Void, Never>]) in
            guard state.outcome == nil else { return (nil, []) }
            state.outcome = outcome
            defer {
                state.continuation = nil
                state.tasks = []
            }
            return (state.continuation, state.tasks)
        }
        for task in tasks { task.cancel() }
        continuation?.resume(returning: outcome)
    }
}

import Mediation

/// Races one HTTP exchange against a deadline on the injected clock, and can be cancelled from
/// outside (``EloClient/shutdown()``). The answer never waits on a transport that ignores
/// cancellation: the first of response, deadline and cancellation resumes the caller, and the
/// other work is cancelled.
final class EloDeadlineRace: Sendable {
    /// How the race ended.
    enum Outcome: Sendable {
        /// The transport answered (a response or a transport error) before the deadline.
        case response(Result<HTTPResponse, TransportError>)
        /// The deadline passed first.
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

    /// Sends `request` and waits for the first of its answer and `deadline`.
    func run(_ request: HTTPRequest, over transport: any HTTPTransport, clock: any MediationClock, deadline: MediationInstant) async -> Outcome {
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
                    do throws(TransportError) {
                        let response = try await transport.send(request)
                        finish(.response(.success(response)))
                    } catch {
                        finish(.response(.failure(error)))
                    }
                }
                let timer = clock.startTask { [self] in
                    do {
                        try await clock.sleep(until: deadline)
                        finish(.timedOut)
                    } catch {
                        // Cancelled: the race already ended.
                    }
                }
                let ended = state.withLock { state -> Bool in
                    if state.outcome != nil { return true }
                    state.tasks = [send, timer]
                    return false
                }
                if ended {
                    send.cancel()
                    timer.cancel()
                }
            }
        } onCancel: {
            finish(.cancelled)
        }
    }

    /// Ends the race as cancelled (shutdown).
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

/// One request to the configuration server under a timeout on the engine's clock: whichever of
/// the answer and the timeout comes first decides, and the other is cancelled. Both run as tasks
/// on the clock, so a manual clock knows about them and a test's timeout fires at its instant.
enum RemoteFetch {
    /// What the request came to.
    enum Outcome: Sendable {
        /// An HTTP response (any status).
        case response(HTTP.Response)
        /// No response: the transport's error.
        case transport(HTTP.TransportError)
        /// No complete response within the timeout (none, or one still arriving).
        case timedOut
        /// The check was cancelled (the engine shut down).
        case cancelled
    }

    /// Sends `request` through `transport`, giving up at `timeout` on `clock`.
    static func send(_ request: HTTP.Request, through transport: any HTTP.Transport, clock: any MediationClock, timeout: Duration) async -> Outcome {
        let gate = OnceGate()
        let deadline = clock.now + timeout
        let sending = clock.startTask {
            do throws(HTTP.TransportError) {
                gate.finish(.response(try await transport.send(request)))
            } catch {
                gate.finish(error.kind == .cancelled ? .cancelled : .transport(error))
            }
        }
        let timer = clock.startTask {
            do {
                try await clock.sleep(until: deadline)
                gate.finish(.timedOut)
            } catch {
                return
            }
        }
        let outcome = await withTaskCancellationHandler {
            await gate.wait()
        } onCancel: {
            gate.finish(.cancelled)
        }
        sending.cancel()
        timer.cancel()
        return outcome
    }

    /// Resumes the one waiter with the first outcome, whenever it comes (before or after the
    /// wait begins); later outcomes are dropped.
    private final class OnceGate: Sendable {
        private struct State {
            var outcome: Outcome?
            var waiter: CheckedContinuation<Outcome, Never>?
        }

        private let state = Locked(State())

        func finish(_ outcome: Outcome) {
            let waiter: CheckedContinuation<Outcome, Never>? = state.withLock { state in
                guard state.outcome == nil else { return nil }
                state.outcome = outcome
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: outcome)
        }

        func wait() async -> Outcome {
            await withCheckedContinuation { continuation in
                let ready: Outcome? = state.withLock { state in
                    if let outcome = state.outcome { return outcome }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

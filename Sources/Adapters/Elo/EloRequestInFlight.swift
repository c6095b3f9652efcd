import Mediation

/// One HTTP exchange in flight, which can be cancelled from outside (``EloClient/shutdown()``)
/// as well as by the caller's task. It has no timer of its own: the engine enforces each
/// source's one limit (engine rule R3a) and cancels the request's task at it. The answer never
/// waits on a transport that ignores cancellation: the first of response and cancellation
/// resumes the caller (``FirstOf``), and the send is cancelled.
final class EloRequestInFlight: Sendable {
    /// How the exchange ended.
    enum Outcome: Sendable {
        /// The transport answered (a response or a transport error).
        case response(Result<HTTP.Response, HTTP.TransportError>)
        /// The caller's task was cancelled, or ``cancel()`` was called.
        case cancelled
    }

    private let gate = FirstOf<Outcome>()

    /// Sends `request` on `clock`'s executor and waits for its answer or a cancellation.
    func run(_ request: HTTP.Request, over transport: any HTTP.Transport, clock: any MediationClock) async -> Outcome {
        // Cancelled before it was sent: nothing is sent.
        guard !gate.isResolved else { return await gate.value(ifCancelled: .cancelled) }
        let send = clock.startTask { [gate] in
            do throws(HTTP.TransportError) {
                gate.resume(.response(.success(try await transport.send(request))))
            } catch {
                gate.resume(.response(.failure(error)))
            }
        }
        let outcome = await gate.value(ifCancelled: .cancelled)
        send.cancel()
        return outcome
    }

    /// Ends the exchange as cancelled (shutdown).
    func cancel() {
        gate.resume(.cancelled)
    }
}

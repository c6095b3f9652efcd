/// One request to the configuration server under a timeout on the engine's clock: whichever of
/// the answer, the timeout and a cancellation comes first decides (``FirstOf``), and the other
/// work is cancelled. Both run as tasks
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
        let gate = FirstOf<Outcome>()
        let deadline = clock.now + timeout
        let sending = clock.startTask {
            do throws(HTTP.TransportError) {
                gate.resume(.response(try await transport.send(request)))
            } catch {
                gate.resume(error.kind == .cancelled ? .cancelled : .transport(error))
            }
        }
        let timer = clock.startTask {
            do {
                try await clock.sleep(until: deadline)
                gate.resume(.timedOut)
            } catch {
                return
            }
        }
        let outcome = await gate.value(ifCancelled: .cancelled)
        sending.cancel()
        timer.cancel()
        return outcome
    }
}

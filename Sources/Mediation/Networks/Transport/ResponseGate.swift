/// Resumes the continuation of one request exactly once, whichever of the transfer's end and
/// the cancellation handler comes first, including a cancel that arrives before the continuation
/// exists. The one such gate of both system transports (libcurl on Linux, URLSession elsewhere).
final class ResponseGate: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<HTTP.Response, HTTP.TransportError>, Never>?
        var finished = false
    }

    private let state = Locked(State())

    /// Whether the request has been answered.
    var isFinished: Bool {
        state.withLock { $0.finished }
    }

    /// Stores the continuation; returns `false` (and answers it `.cancelled` at once) when the
    /// request was answered, that is cancelled, before it was sent.
    func install(_ continuation: CheckedContinuation<Result<HTTP.Response, HTTP.TransportError>, Never>) -> Bool {
        let answered = state.withLock { state -> Bool in
            if state.finished { return true }
            state.continuation = continuation
            return false
        }
        if answered {
            continuation.resume(returning: .failure(HTTP.TransportError(kind: .cancelled, message: "cancelled before the request was sent")))
        }
        return !answered
    }

    /// Answers the request with `result`, unless it was answered already.
    func finish(_ result: Result<HTTP.Response, HTTP.TransportError>) {
        let continuation = state.withLock { state -> CheckedContinuation<Result<HTTP.Response, HTTP.TransportError>, Never>? in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: result)
    }
}

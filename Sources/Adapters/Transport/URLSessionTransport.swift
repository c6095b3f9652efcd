import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Mediation

/// The production transport: one long-lived `URLSession` for the process.
///
/// The engine never relies on URLSession for its deadline or cancellation (on Linux,
/// FoundationNetworking's cancellation and timeouts have known faults, see
/// `shared/reference/style-examples.md`): when the calling task is cancelled this transport
/// answers `.cancelled` at once and lets the underlying request finish or time out on its own.
/// The session's own timeout is only a backstop against leaked connections.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Creates a transport with one ephemeral session.
    /// - Parameter backstopTimeout: URLSession's own request timeout, a safety net far beyond
    ///   any auction deadline (default 30 s).
    public init(backstopTimeout: TimeInterval = 30) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = backstopTimeout
        configuration.timeoutIntervalForResource = backstopTimeout
        configuration.httpMaximumConnectionsPerHost = 8
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` over URLSession.
    /// - Throws: ``TransportError`` `.connection` when no response came, `.cancelled` when the
    ///   calling task was cancelled, `.timedOut` when the backstop fired.
    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = request.body

        let gate = RequestGate()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) in
                guard gate.install(continuation) else { return }
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    gate.finish(URLSessionTransport.result(data: data, response: response, error: error))
                }
                gate.attach(task)
                task.resume()
            }
        } onCancel: {
            gate.cancel()
        }
        switch result {
        case .success(let response): return response
        case .failure(let error): throw error
        }
    }

    private static func result(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<HTTPResponse, TransportError> {
        if let error {
            let nsError = error as NSError
            if nsError.domain == NSURLErrorDomain, nsError.code == NSURLErrorCancelled {
                return .failure(TransportError(kind: .cancelled, message: "request cancelled"))
            }
            if nsError.domain == NSURLErrorDomain, nsError.code == NSURLErrorTimedOut {
                return .failure(TransportError(kind: .timedOut, message: "backstop timeout"))
            }
            return .failure(TransportError(kind: .connection, message: nsError.localizedDescription))
        }
        guard let http = response as? HTTPURLResponse else {
            return .failure(TransportError(kind: .connection, message: "no HTTP response"))
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return .success(HTTPResponse(statusCode: http.statusCode, headers: headers, body: data ?? Data()))
    }
}

/// Resumes the continuation of one request exactly once, whichever of the completion handler
/// and the cancellation handler comes first, including a cancel that arrives before the
/// continuation exists.
private final class RequestGate: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>?
        var cancelled = false
        var finished = false
        var task: URLSessionDataTask?
    }

    private let state = Locked(State())

    /// Stores the continuation; answers it at once (and returns `false`) when the request was
    /// cancelled before it was sent.
    func install(_ continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) -> Bool {
        let cancelledEarly = state.withLock { state -> Bool in
            if state.cancelled {
                state.finished = true
                return true
            }
            state.continuation = continuation
            return false
        }
        if cancelledEarly {
            continuation.resume(returning: .failure(TransportError(kind: .cancelled, message: "cancelled before the request was sent")))
        }
        return !cancelledEarly
    }

    func attach(_ task: URLSessionDataTask) {
        state.withLock { $0.task = task }
    }

    func finish(_ result: Result<HTTPResponse, TransportError>) {
        let continuation = state.withLock { state -> CheckedContinuation<Result<HTTPResponse, TransportError>, Never>? in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: result)
    }

    func cancel() {
        let task = state.withLock { state -> URLSessionDataTask? in
            state.cancelled = true
            return state.task
        }
        finish(.failure(TransportError(kind: .cancelled, message: "request cancelled")))
        #if !canImport(FoundationNetworking)
        // Apple's URLSession cancels reliably; FoundationNetworking's cancel has deadlocked
        // (swift-corelibs-foundation #5412), so on Linux the request runs out on its own.
        task?.cancel()
        #else
        _ = task
        #endif
    }
}

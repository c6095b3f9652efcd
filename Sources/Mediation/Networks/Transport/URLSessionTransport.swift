import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTP {
    /// The production transport: one long-lived `URLSession` for the process.
    ///
    /// The engine never relies on URLSession for its deadline or cancellation (on Linux,
    /// FoundationNetworking's cancellation and timeouts have known faults:
    /// swift-corelibs-foundation issues 5412, 3250, 3287, 3497): when the calling task is cancelled
    /// this transport answers `.cancelled` at once and lets the underlying request finish or time
    /// out on its own. The session's own timeout is only a backstop against leaked connections.
    ///
    /// Network input is untrusted (engine rules R16, R17):
    /// - a response body larger than `maximumResponseBytes` (announced or received) is cut off and
    ///   answered as a `.responseTooLarge` error, so a lying server cannot make the host buffer
    ///   hundreds of megabytes;
    /// - a redirect is followed only when it stays on the origin (scheme, host and port) of the
    ///   request's URL, and at most `maximumRedirects` times per request; any other redirect is
    ///   answered as a `.redirectRefused` error carrying the redirect's status and naming only the
    ///   target's origin. Combined with ``OriginLockedTransport``, a network's requests never
    ///   leave its configured origin.
    public final class URLSessionTransport: Transport {
        private let session: URLSession
        private let collector: ResponseCollector

        /// The transport the standard networks use when the environment supplies none
        /// (``MediationEnvironment/transport`` is `nil`): one session for the process.
        package static let shared = URLSessionTransport()

        /// Creates a transport with one ephemeral session.
        /// - Parameters:
        ///   - backstopTimeout: URLSession's own request timeout, a safety net far beyond any
        ///     auction deadline (default 30 s).
        ///   - maximumResponseBytes: the largest response body accepted (default 8 MiB, above the
        ///     largest creative bundle a network documents: Qartvelo's 2 MB).
        ///   - maximumRedirects: the most same-origin redirects followed per request (default
        ///     ``defaultMaximumRedirects``, 3); the next one is refused.
        public init(backstopTimeout: TimeInterval = 30, maximumResponseBytes: Int = 8 << 20, maximumRedirects: Int = URLSessionTransport.defaultMaximumRedirects) {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = backstopTimeout
            configuration.timeoutIntervalForResource = backstopTimeout
            configuration.httpMaximumConnectionsPerHost = 8
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.urlCache = nil
            collector = ResponseCollector(maximumBytes: maximumResponseBytes, maximumRedirects: max(0, maximumRedirects))
            session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
        }

        /// The most same-origin redirects a request follows by default: 3.
        public static let defaultMaximumRedirects = 3

        deinit {
            session.finishTasksAndInvalidate()
        }

        /// Sends `request` over URLSession.
        /// - Throws: ``TransportError`` `.connection` when no response came, `.cancelled` when the
        ///   calling task was cancelled, `.timedOut` when the backstop fired, `.redirectRefused`
        ///   for a redirect off the request's origin or past the limit, `.responseTooLarge` for a
        ///   body over the limit, `.invalidRequest` for a URL that is not http(s).
        public func send(_ request: Request) async throws(TransportError) -> Response {
            guard let origin = OriginLockedTransport.Origin(request.url) else {
                throw TransportError(kind: .invalidRequest, message: "not an http(s) URL with a host")
            }
            // Schemes are case-insensitive (RFC 3986), but Linux's URLSession answers `HTTP://` with
            // "unsupported URL": the request goes out with the origin's lowercased scheme.
            var url = request.url
            if url.scheme != origin.scheme, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
                components.scheme = origin.scheme
                url = components.url ?? url
            }
            var urlRequest = URLRequest(url: url)
            urlRequest.httpMethod = request.method
            for (name, value) in request.headers {
                urlRequest.setValue(value, forHTTPHeaderField: name)
            }
            urlRequest.httpBody = request.body

            let gate = RequestGate()
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Result<Response, TransportError>, Never>) in
                    guard gate.install(continuation) else { return }
                    let task = session.dataTask(with: urlRequest)
                    collector.register(task, gate: gate, origin: origin)
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

        static func result(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<Response, TransportError> {
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
            return .success(Response(statusCode: http.statusCode, headers: headers, body: data ?? Data()))
        }
    }
}

/// Resumes the continuation of one request exactly once, whichever of the completion handler
/// and the cancellation handler comes first, including a cancel that arrives before the
/// continuation exists.
private final class RequestGate: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<HTTP.Response, HTTP.TransportError>, Never>?
        var cancelled = false
        var finished = false
        var task: URLSessionDataTask?
    }

    private let state = Locked(State())

    /// Stores the continuation; answers it at once (and returns `false`) when the request was
    /// cancelled before it was sent.
    func install(_ continuation: CheckedContinuation<Result<HTTP.Response, HTTP.TransportError>, Never>) -> Bool {
        let cancelledEarly = state.withLock { state -> Bool in
            if state.cancelled {
                state.finished = true
                return true
            }
            state.continuation = continuation
            return false
        }
        if cancelledEarly {
            continuation.resume(returning: .failure(HTTP.TransportError(kind: .cancelled, message: "cancelled before the request was sent")))
        }
        return !cancelledEarly
    }

    func attach(_ task: URLSessionDataTask) {
        state.withLock { $0.task = task }
    }

    func finish(_ result: Result<HTTP.Response, HTTP.TransportError>) {
        let continuation = state.withLock { state -> CheckedContinuation<Result<HTTP.Response, HTTP.TransportError>, Never>? in
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
        finish(.failure(HTTP.TransportError(kind: .cancelled, message: "request cancelled")))
        #if !canImport(FoundationNetworking)
        // Apple's URLSession cancels reliably; FoundationNetworking's cancel has deadlocked
        // (swift-corelibs-foundation #5412), so on Linux the request runs out on its own.
        task?.cancel()
        #else
        _ = task
        #endif
    }
}

/// The session's delegate: collects each task's body, cuts off one that grows past the limit,
/// follows only same-origin redirects up to the limit, and answers the task's gate when it
/// completes.
///
/// `@unchecked Sendable`: an `NSObject` subclass cannot be checked; its only state is the
/// `Locked` table, touched only inside `withLock`.
private final class ResponseCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Entry {
        var gate: RequestGate
        /// The origin of the request's URL: every redirect must stay on it.
        var origin: HTTP.OriginLockedTransport.Origin
        var redirects = 0
        var body = Data()
    }

    private let maximumBytes: Int
    private let maximumRedirects: Int
    private let entries = Locked<[Int: Entry]>([:])

    init(maximumBytes: Int, maximumRedirects: Int) {
        self.maximumBytes = maximumBytes
        self.maximumRedirects = maximumRedirects
    }

    func register(_ task: URLSessionTask, gate: RequestGate, origin: HTTP.OriginLockedTransport.Origin) {
        entries.withLock { $0[task.taskIdentifier] = Entry(gate: gate, origin: origin) }
    }

    /// Follows a redirect only when it stays on the request's origin and the request has
    /// followed fewer than `maximumRedirects`; otherwise answers the request at once with
    /// `.redirectRefused` (the redirect's status, the target's origin only) and lets the task
    /// end on the redirect response, which nobody reads.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        let status = response.statusCode
        let target = request.url.flatMap { HTTP.OriginLockedTransport.Origin($0) }
        let refusal = entries.withLock { entries -> (RequestGate, HTTP.TransportError)? in
            guard var entry = entries[task.taskIdentifier] else { return nil }
            let error: HTTP.TransportError
            if let target, target == entry.origin {
                guard entry.redirects >= maximumRedirects else {
                    entry.redirects += 1
                    entry.body = Data()
                    entries[task.taskIdentifier] = entry
                    return nil
                }
                error = HTTP.TransportError(kind: .redirectRefused, message: "HTTP \(status) redirect refused: more than \(maximumRedirects) redirects", status: status)
            } else {
                let place = target.map { "to \($0)" } ?? "to a URL that is not http(s)"
                error = HTTP.TransportError(kind: .redirectRefused, message: "HTTP \(status) redirect \(place) refused: it leaves \(entry.origin)", status: status)
            }
            entries.removeValue(forKey: task.taskIdentifier)
            return (entry.gate, error)
        }
        guard let refusal else {
            completionHandler(request)
            return
        }
        refusal.0.finish(.failure(refusal.1))
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse, completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        if response.expectedContentLength > Int64(maximumBytes) {
            tooLarge(dataTask, announced: response.expectedContentLength)
        }
        // On Linux the rest of a refused body is read and dropped (FoundationNetworking's
        // cancel has deadlocked, swift-corelibs-foundation #5412); Apple platforms cancel.
        #if canImport(FoundationNetworking)
        completionHandler(.allow)
        #else
        completionHandler(response.expectedContentLength > Int64(maximumBytes) ? .cancel : .allow)
        #endif
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overflow = entries.withLock { entries -> Bool in
            guard let received = entries[dataTask.taskIdentifier]?.body.count else { return false }
            guard received + data.count <= maximumBytes else { return true }
            // Appended in place: copying the entry out and back would copy the whole body on
            // every chunk (quadratic in the body's size).
            entries[dataTask.taskIdentifier]?.body.append(data)
            return false
        }
        if overflow {
            tooLarge(dataTask, announced: nil)
            #if !canImport(FoundationNetworking)
            dataTask.cancel()
            #endif
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        entry.gate.finish(HTTP.URLSessionTransport.result(data: entry.body, response: task.response, error: error))
    }

    private func tooLarge(_ task: URLSessionTask, announced: Int64?) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let size = announced.map { " of \($0) bytes" } ?? ""
        let status = (task.response as? HTTPURLResponse)?.statusCode
        entry.gate.finish(.failure(HTTP.TransportError(kind: .responseTooLarge, message: "response body\(size) exceeds the \(maximumBytes)-byte limit", status: status)))
    }
}

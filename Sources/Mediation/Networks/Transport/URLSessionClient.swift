// Linux uses libcurl directly (CurlLoop): FoundationNetworking's URLSession stops the process
// on some malformed responses.
#if !os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTP/SystemTransport`` on Apple platforms: one long-lived ephemeral `URLSession` per
/// transport, whose delegate (``ResponseCollector``) enforces the transport's limits.
final class URLSessionClient: Sendable {
    private let session: URLSession
    private let collector: ResponseCollector
    private let limits: HTTP.SystemTransport.Limits

    init(limits: HTTP.SystemTransport.Limits) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = limits.backstopTimeout
        configuration.timeoutIntervalForResource = limits.backstopTimeout
        configuration.httpMaximumConnectionsPerHost = 8
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        self.limits = limits
        collector = ResponseCollector(limits: limits)
        session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` (whose URL is on `origin`); answers `.cancelled` at once when the calling
    /// task is cancelled.
    func send(_ request: HTTP.Request, origin: HTTP.OriginLockedTransport.Origin) async -> Result<HTTP.Response, HTTP.TransportError> {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        if let userAgent = limits.userAgent, urlRequest.value(forHTTPHeaderField: "User-Agent") == nil {
            urlRequest.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        }
        urlRequest.httpBody = request.body

        let gate = RequestGate()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTP.Response, HTTP.TransportError>, Never>) in
                guard gate.install(continuation) else { return }
                let task = session.dataTask(with: urlRequest)
                collector.register(task, gate: gate, origin: origin)
                gate.attach(task)
                task.resume()
            }
        } onCancel: {
            gate.cancel()
        }
    }

    static func result(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<HTTP.Response, HTTP.TransportError> {
        if let error {
            let nsError = error as NSError
            if nsError.domain == NSURLErrorDomain, nsError.code == NSURLErrorCancelled {
                return .failure(HTTP.TransportError(kind: .cancelled, message: "request cancelled"))
            }
            if nsError.domain == NSURLErrorDomain, nsError.code == NSURLErrorTimedOut {
                return .failure(HTTP.TransportError(kind: .timedOut, message: "backstop timeout"))
            }
            return .failure(HTTP.TransportError(kind: .connection, message: nsError.localizedDescription))
        }
        guard let http = response as? HTTPURLResponse else {
            return .failure(HTTP.TransportError(kind: .connection, message: "no HTTP response"))
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return .success(HTTP.Response(statusCode: http.statusCode, headers: headers, body: data ?? Data()))
    }
}

/// One request's ``ResponseGate`` and its task: a cancellation answers the gate and cancels the
/// task, whichever comes first.
private final class RequestGate: Sendable {
    private let response = ResponseGate()
    private let task = Locked<URLSessionDataTask?>(nil)

    /// Stores the continuation; answers it at once (and returns `false`) when the request was
    /// cancelled before it was sent.
    func install(_ continuation: CheckedContinuation<Result<HTTP.Response, HTTP.TransportError>, Never>) -> Bool {
        response.install(continuation)
    }

    func attach(_ task: URLSessionDataTask) {
        self.task.withLock { $0 = task }
    }

    func finish(_ result: Result<HTTP.Response, HTTP.TransportError>) {
        response.finish(result)
    }

    func cancel() {
        response.finish(.failure(HTTP.TransportError(kind: .cancelled, message: "request cancelled")))
        task.withLock { $0 }?.cancel()
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

    private let limits: HTTP.SystemTransport.Limits
    private let entries = Locked<[Int: Entry]>([:])

    init(limits: HTTP.SystemTransport.Limits) {
        self.limits = limits
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
            if let target, target == entry.origin, entry.redirects < limits.maximumRedirects {
                entry.redirects += 1
                entry.body = Data()
                entries[task.taskIdentifier] = entry
                return nil
            }
            entries.removeValue(forKey: task.taskIdentifier)
            return (entry.gate, limits.redirectRefused(status: status, target: target, origin: entry.origin))
        }
        guard let refusal else {
            completionHandler(request)
            return
        }
        refusal.0.finish(.failure(refusal.1))
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse, completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        if response.expectedContentLength > Int64(limits.maximumResponseBytes) {
            tooLarge(dataTask, announced: response.expectedContentLength)
        }
        completionHandler(response.expectedContentLength > Int64(limits.maximumResponseBytes) ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overflow = entries.withLock { entries -> Bool in
            guard let received = entries[dataTask.taskIdentifier]?.body.count else { return false }
            guard received + data.count <= limits.maximumResponseBytes else { return true }
            // Appended in place: copying the entry out and back would copy the whole body on
            // every chunk (quadratic in the body's size).
            entries[dataTask.taskIdentifier]?.body.append(data)
            return false
        }
        if overflow {
            tooLarge(dataTask, announced: nil)
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        entry.gate.finish(URLSessionClient.result(data: entry.body, response: task.response, error: error))
    }

    private func tooLarge(_ task: URLSessionTask, announced: Int64?) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let status = (task.response as? HTTPURLResponse)?.statusCode
        entry.gate.finish(.failure(limits.tooLarge(announced: announced, status: status)))
    }
}
#endif

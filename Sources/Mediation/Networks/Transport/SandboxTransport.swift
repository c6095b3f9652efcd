import Foundation

extension NetworkConnection {
    /// A network's simulated ad server, run in-process: it answers the adapter's real requests
    /// with the network's real response format, so the sandbox exercises the same request and
    /// response code as production.
    package protocol SandboxServer: Sendable {
        /// Answers one request (any status, including 204 and errors).
        func respond(to request: HTTP.Request) async -> HTTP.Response
    }
}

/// The offline transport: hands each request to the sandbox server registered for its host.
/// A request to an unknown host fails like a refused connection.
package struct SandboxTransport: HTTP.Transport {
    private let servers: [String: any NetworkConnection.SandboxServer]
    private let clock: any MediationClock
    private let latency: Duration

    /// Creates a sandbox transport.
    /// - Parameters:
    ///   - servers: the simulated server for each host name (e.g. `"elo.sandbox"`).
    ///   - clock: the clock on which simulated network latency passes.
    ///   - latency: the simulated round-trip time added to every request (default zero).
    package init(servers: [String: any NetworkConnection.SandboxServer], clock: any MediationClock = SystemClock(), latency: Duration = .zero) {
        self.servers = servers
        self.clock = clock
        self.latency = latency
    }

    /// Routes `request` to its host's sandbox server.
    /// - Throws: ``HTTP/TransportError`` `.connection` for an unknown host, `.cancelled` when the
    ///   task is cancelled during the simulated latency.
    package func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
        guard let host = request.url.host, let server = servers[host] else {
            throw HTTP.TransportError(kind: .connection, message: "no sandbox server for \(request.url.host ?? "(no host)")")
        }
        if latency > .zero {
            do {
                try await clock.sleep(until: clock.now + latency)
            } catch {
                throw HTTP.TransportError(kind: .cancelled, message: "request cancelled")
            }
        }
        if Task.isCancelled { throw HTTP.TransportError(kind: .cancelled, message: "request cancelled") }
        return await server.respond(to: request)
    }
}

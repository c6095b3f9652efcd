import Foundation

/// A transport that records every exchange it carries into an ``HTTPExchangeRecorder``,
/// attributed to its network and (through ``SourceAttribution/current``) to the auction source
/// it was made for, then returns the response or rethrows the error unchanged.
package struct RecordingTransport: HTTP.Transport {
    private let base: any HTTP.Transport
    private let networkID: String
    private let clock: any MediationClock
    private let recorder: HTTPExchangeRecorder

    /// Wraps `base`.
    /// - Parameters:
    ///   - base: the transport that sends.
    ///   - networkID: the network the exchanges belong to.
    ///   - clock: the engine's clock, for the exchanges' instants.
    ///   - recorder: where exchanges go.
    package init(_ base: any HTTP.Transport, networkID: String, clock: any MediationClock, recorder: HTTPExchangeRecorder) {
        self.base = base
        self.networkID = networkID
        self.clock = clock
        self.recorder = recorder
    }

    /// Sends `request` through the wrapped transport and records the exchange.
    /// - Throws: whatever the wrapped transport throws.
    package func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
        let limit = HTTPExchangeRecorder.bodyLimit
        let startedAt = clock.now
        var exchange = HTTPExchange(
            networkID: networkID,
            source: SourceAttribution.current,
            method: request.method,
            url: request.url,
            requestHeaders: request.headers,
            requestBody: request.body.map { Data($0.prefix(limit)) },
            requestBodyBytes: request.body?.count ?? 0,
            statusCode: nil,
            responseHeaders: [:],
            responseBody: Data(),
            responseBodyBytes: 0,
            error: "no response yet",
            startedAt: startedAt,
            endedAt: startedAt
        )
        let slot = recorder.begin(exchange)
        let result: Result<HTTP.Response, HTTP.TransportError>
        do {
            result = .success(try await base.send(request))
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let response):
            exchange.statusCode = response.statusCode
            exchange.responseHeaders = response.headers
            exchange.responseBody = Data(response.body.prefix(limit))
            exchange.responseBodyBytes = response.body.count
            exchange.error = nil
        case .failure(let error):
            exchange.error = error.description
        }
        exchange.endedAt = clock.now
        if let slot { recorder.finish(slot, with: exchange) }
        return try result.get()
    }
}

extension MediationEnvironment {
    /// `transport` wrapped in a ``RecordingTransport`` for `networkID` when the environment has an
    /// ``exchangeRecorder``, else `transport` itself. Every adapter factory that sends HTTP
    /// should pass the transport it built (live or sandbox) through this, so that a debugging
    /// host sees its exchanges.
    /// - Parameters:
    ///   - transport: the network's transport.
    ///   - networkID: the network's id.
    /// - Returns: the transport to use.
    package func instrumented(_ transport: any HTTP.Transport, networkID: String) -> any HTTP.Transport {
        guard let exchangeRecorder else { return transport }
        return RecordingTransport(transport, networkID: networkID, clock: clock, recorder: exchangeRecorder)
    }
}

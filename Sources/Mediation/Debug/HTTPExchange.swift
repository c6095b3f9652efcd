import Foundation

/// One HTTP exchange an adapter made through its transport, as ``RecordingTransport`` saw it:
/// the request, the response or the transport error, the instants on the engine's clock, and the
/// source it was made for. Bodies are kept up to ``HTTPExchangeRecorder/bodyLimit`` bytes each
/// (``requestBodyBytes`` and ``responseBodyBytes`` give the full sizes).
///
/// It holds what went over the wire, user data included: render it through
/// ``HTTPExchangeRedactor`` unless the person reading it may see that data.
package struct HTTPExchange: Hashable, Sendable {
    /// The network id (`networks.<id>` in the configuration).
    package var networkID: String
    /// The source it was made for, when it was made inside an auction's `loadAd`; `nil` for
    /// requests sent outside one (tracking pings, event batches, preloads).
    package var source: SourceAttribution?
    /// `GET`, `POST` …
    package var method: String
    /// The full URL.
    package var url: URL
    /// The request's header fields.
    package var requestHeaders: [String: String]
    /// The request body (at most ``HTTPExchangeRecorder/bodyLimit`` bytes), if any.
    package var requestBody: Data?
    /// The request body's full size in bytes (0 without a body).
    package var requestBodyBytes: Int
    /// The HTTP status, or `nil` when the transport threw.
    package var statusCode: Int?
    /// The response's header fields (empty when the transport threw).
    package var responseHeaders: [String: String]
    /// The response body (at most ``HTTPExchangeRecorder/bodyLimit`` bytes).
    package var responseBody: Data
    /// The response body's full size in bytes.
    package var responseBodyBytes: Int
    /// The transport error (`kind: message`) when there was no response.
    package var error: String?
    /// When the request was handed to the transport, on the engine's clock.
    package var startedAt: MediationInstant
    /// When the response (or the error) came back, on the engine's clock.
    package var endedAt: MediationInstant

    /// Creates an exchange.
    package init(
        networkID: String,
        source: SourceAttribution?,
        method: String,
        url: URL,
        requestHeaders: [String: String],
        requestBody: Data?,
        requestBodyBytes: Int,
        statusCode: Int?,
        responseHeaders: [String: String],
        responseBody: Data,
        responseBodyBytes: Int,
        error: String?,
        startedAt: MediationInstant,
        endedAt: MediationInstant
    ) {
        self.networkID = networkID
        self.source = source
        self.method = method
        self.url = url
        self.requestHeaders = requestHeaders
        self.requestBody = requestBody
        self.requestBodyBytes = requestBodyBytes
        self.statusCode = statusCode
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.responseBodyBytes = responseBodyBytes
        self.error = error
        self.startedAt = startedAt
        self.endedAt = endedAt
    }

    /// How long the exchange took, in milliseconds of the engine's clock.
    package var durationMilliseconds: Double { (endedAt - startedAt).milliseconds }
}

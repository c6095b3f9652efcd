import Foundation
import Mediation

/// What ``EloClient/configure(_:)`` saw (Elo seed, `EloDebugConfiguration`).
package struct EloDebugConfiguration: Sendable, Hashable {
    /// The publisher id.
    public var publisherID: String
    /// The default ad unit id.
    public var adUnitID: String
    /// The request timeout in seconds (at most 3).
    public var requestTimeout: TimeInterval
    /// Problems found in the configuration; empty for a clean integration.
    public var validationIssues: [String]
    /// Wall-clock time of the configure.
    public var timestamp: Date
}

/// How a load or preload ended (Elo seed, `EloAdLoadOutcome`).
package enum EloAdLoadOutcome: Sendable, Hashable {
    /// A fill at this eCPM (USD CPM).
    case loaded(eCPM: Double)
    /// No fill.
    case noFill(EloNoFillReason)
    /// A failure of this category.
    case error(EloErrorCategory)
}

/// The category of a failed load in the debug events, exactly the Elo document's
/// (`EloAdLoadOutcome.error(EloErrorCategory)`: `.network, .decoding, .internalState`).
///
/// The document's categories have no `cancelled`: a request the caller or ``EloClient/shutdown()``
/// cancelled is a cut-off exchange with the ad server, which the document's own platform
/// reports as a network error (`URLError.cancelled`), so it is `.network` here. The engine still
/// sees it as `cancelled` (``EloError/Category/cancelled``, code 2).
package enum EloErrorCategory: String, Sendable, Hashable, CaseIterable {
    /// The exchange with the ad server did not complete (cancelled by the caller or by shutdown).
    case network
    /// The answer could not be decoded or broke the protocol's rules.
    case decoding
    /// The client could not build a request (e.g. no ad unit id anywhere).
    case internalState
}

/// One finished load or preload (Elo seed, `EloDebugAdOperation`): counts, never content.
package struct EloDebugAdOperation: Sendable, Hashable {
    /// The request id; `nil` when no server request was made (cache hit, disabled, not configured,
    /// no format fits).
    public var requestID: String?
    /// `true` for a preload.
    public var isPreload: Bool
    /// Wall-clock time it finished.
    public var timestamp: Date
    /// Messages forwarded (at most 30).
    public var messageCount: Int
    /// Context objects forwarded.
    public var contextCount: Int
    /// Milliseconds from the call to the answer, on the client's clock.
    public var latencyMilliseconds: Int
    /// The outcome.
    public var outcome: EloAdLoadOutcome
    /// `card` or `strip` for a fill.
    public var format: String?
    /// The max height sent, whole points.
    public var maxHeight: Int?
    /// The max width sent, whole points.
    public var maxWidth: Int?
    /// The ad's CTA flag, `nil` when not sent or without a fill.
    public var ctaEnabled: Bool?
}

/// The tracked events (Elo seed, `EloTrackingEvent`).
package enum EloTrackingEvent: String, Sendable, Hashable, CaseIterable {
    /// The ad was rendered.
    case render
    /// The ad counted its impression.
    case impression
    /// The ad was clicked.
    case click
    /// The host's browser opened the click URL (analytics only).
    case browserOpen = "browser_open"
    /// The host's browser closed (analytics only).
    case browserClose = "browser_close"
}

/// Why a tracking operation failed (privacy-safe: no URL, no header, no content).
package enum EloTrackingFailure: Sendable, Hashable {
    /// A tracking URL could not be parsed.
    case invalidURL
    /// No response.
    case network
    /// A non-2xx status.
    case httpStatus(Int)
    /// Cancelled.
    case cancelled
}

/// A tracking operation's result (Elo seed, `EloTrackingOutcome`).
package enum EloTrackingOutcome: Sendable, Hashable {
    /// Every endpoint answered 2xx.
    case delivered
    /// Nothing could be observed (no URL to ping).
    case unobservable
    /// It failed.
    case failed(EloTrackingFailure)
}

/// One debug event (Elo seed, `EloDebugEvent`). Delivered to the observer set with
/// ``EloClient/setDebugObserver(_:capturePayloads:)``; never while the client holds a lock.
package enum EloDebugEvent: Sendable, Hashable {
    /// Configure finished; earlier events belong to a previous configuration.
    case configured(EloDebugConfiguration)
    /// Shutdown ran.
    case shutdown
    /// The request body with message content and context descriptions redacted (payload
    /// capture only). It still holds identifiers, geo, consent strings and user data.
    case requestPayloadCaptured(requestID: String, json: String)
    /// The decoded response, re-encoded (payload capture only).
    case responsePayloadCaptured(requestID: String, json: String)
    /// The ad opportunity id the server assigned (also ``EloAd/id``).
    case serverRequestIDAssigned(requestID: String, serverRequestID: String)
    /// A load or preload finished.
    case adOperation(EloDebugAdOperation)
    /// A tracking operation started; `payloadJSON` only for browser events with payload capture.
    case trackingAttempted(operationID: String, event: EloTrackingEvent, serverRequestID: String?, payloadJSON: String?, at: Date)
    /// A tracking operation finished.
    case trackingCompleted(operationID: String, event: EloTrackingEvent, outcome: EloTrackingOutcome, at: Date)
}

/// The observer box, shared by the client and its ads' trackers. Builds no event when no
/// observer is set, and calls the observer outside its lock.
final class EloDebugChannel: Sendable {
    private struct State {
        var observer: (@Sendable (EloDebugEvent) -> Void)?
        var capturePayloads = false
    }

    private let state = Locked(State())

    /// The text that replaces message content and context descriptions in captured payloads.
    static let redacted = "[redacted]"

    /// Sets or clears the observer.
    func set(_ observer: (@Sendable (EloDebugEvent) -> Void)?, capturePayloads: Bool) {
        state.withLock {
            $0.observer = observer
            $0.capturePayloads = observer != nil && capturePayloads
        }
    }

    /// Whether an observer is set.
    var isObserved: Bool { state.withLock { $0.observer != nil } }

    /// Whether payloads are captured.
    var capturesPayloads: Bool { state.withLock { $0.capturePayloads } }

    /// Delivers the event built by `make`, only when an observer is set.
    func emit(_ make: () -> EloDebugEvent) {
        guard let observer = state.withLock({ $0.observer }) else { return }
        observer(make())
    }

    /// The request as JSON with every message's content and every context description redacted.
    static func redactedJSON(_ request: EloWireBidRequest) -> String {
        var copy = request
        copy.ext.elo.messages = copy.ext.elo.messages.map { message in
            var message = message
            message.content = redacted
            return message
        }
        copy.ext.elo.context_objects = copy.ext.elo.context_objects.map { object in
            var object = object
            object.description = redacted
            return object
        }
        return json(copy)
    }

    /// Sorted-key JSON text of a value ("{}" when it cannot be encoded).
    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

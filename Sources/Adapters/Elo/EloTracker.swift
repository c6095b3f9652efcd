import Foundation
import Mediation

/// Sends one ad's tracking: render, impression and click pings (GET to the ad's tracking URLs,
/// with `visitor_id` appended, never user data), and browser open / close analytics
/// (`POST <base>/v1/events`). Each operation is reported to the debug channel.
///
/// Engine rule R17: analytics go to the configured origin only; tracking URLs come from the
/// answer (docs/networks/elo.md), so pings may go to another origin, but only to http(s) URLs
/// off the in-process sandboxes' hosts (unless on Elo's own origin), and never follow a
/// redirect off the ping URL's origin.
final class EloTracker: Sendable {
    /// The longest dwell reported: 24 hours (Elo seed, `trackBrowserClosed`).
    static let maximumDwell: Duration = .seconds(24 * 3600)

    /// Tracking pings: URLs from the answer.
    private let transport: OriginLockedTransport
    /// Analytics: the configured origin only.
    private let eventsTransport: OriginLockedTransport
    private let eventsURL: URL
    private let visitorID: String
    private let clock: any MediationClock
    private let now: @Sendable () -> Date
    private let makeID: @Sendable () -> String
    private let debug: EloDebugChannel
    /// Operations not yet drained, and the latest one (each waits for the one before, so
    /// pings leave in the order the engine reported them: render, impression, click).
    private let tasks = Locked<(pending: [Task<Void, Never>], last: Task<Void, Never>?)>(([], nil))

    init(
        transport: any HTTPTransport,
        baseURL: URL,
        visitorID: String,
        clock: any MediationClock,
        now: @escaping @Sendable () -> Date,
        makeID: @escaping @Sendable () -> String,
        debug: EloDebugChannel
    ) {
        self.transport = OriginLockedTransport(transport, endpoint: baseURL, reach: SandboxHosts.answerURLs)
        self.eventsTransport = OriginLockedTransport(transport, endpoint: baseURL)
        self.eventsURL = baseURL.appendingPathComponent("v1").appendingPathComponent("events")
        self.visitorID = visitorID
        self.clock = clock
        self.now = now
        self.makeID = makeID
        self.debug = debug
    }

    /// The tracker's clock (browser dwell is measured on it).
    var currentInstant: MediationInstant { clock.now }

    /// Pings every URL of `event` in the background.
    func ping(_ event: EloTrackingEvent, urls: [String], adID: String) {
        let operationID = makeID()
        let visitorID = visitorID
        debug.emit { .trackingAttempted(operationID: operationID, event: event, serverRequestID: adID, payloadJSON: nil, at: now()) }
        start { [transport, debug, now] in
            var outcome: EloTrackingOutcome = urls.isEmpty ? .unobservable : .delivered
            for raw in urls {
                guard let url = Self.pingURL(raw, visitorID: visitorID), transport.permits(url) else {
                    outcome = .failed(.invalidURL)
                    break
                }
                if let failure = await Self.send(HTTPRequest(method: "GET", url: url), over: transport) {
                    outcome = .failed(failure)
                    break
                }
            }
            let final = outcome
            debug.emit { .trackingCompleted(operationID: operationID, event: event, outcome: final, at: now()) }
        }
    }

    /// Posts a browser analytics event in the background.
    func postAnalytics(_ event: EloTrackingEvent, adID: String, creativeID: String, dwellMilliseconds: Int?) {
        let operationID = makeID()
        let body = EloWireAnalyticsEvent(event: event.rawValue, ad_id: adID, creative_id: creativeID, visitor_id: visitorID, dwell_ms: dwellMilliseconds)
        let capture = debug.capturesPayloads
        debug.emit { .trackingAttempted(operationID: operationID, event: event, serverRequestID: adID, payloadJSON: capture ? EloDebugChannel.json(body) : nil, at: now()) }
        let request = HTTPRequest(method: "POST", url: eventsURL, headers: ["Content-Type": "application/json"], body: Data(EloDebugChannel.json(body).utf8))
        start { [eventsTransport, debug, now] in
            let failure = await Self.send(request, over: eventsTransport)
            let outcome: EloTrackingOutcome = failure.map { .failed($0) } ?? .delivered
            debug.emit { .trackingCompleted(operationID: operationID, event: event, outcome: outcome, at: now()) }
        }
    }

    /// Waits for every operation started so far (tests and orderly shutdown).
    func drain() async {
        while true {
            let pending = tasks.withLock { tasks -> [Task<Void, Never>] in
                let current = tasks.pending
                tasks.pending.removeAll()
                return current
            }
            if pending.isEmpty { return }
            for task in pending { await task.value }
        }
    }

    private func start(_ operation: @escaping @Sendable () async -> Void) {
        tasks.withLock { tasks in
            let previous = tasks.last
            let task = clock.startTask {
                await previous?.value
                await operation()
            }
            tasks.pending.append(task)
            tasks.last = task
        }
    }

    /// `raw` with `visitor_id` appended to its query, or `nil` when it is not an http(s) URL
    /// with a host and no user info, of at most `NetworkValueBounds.maximumURLLength`
    /// characters.
    static func pingURL(_ raw: String, visitorID: String) -> URL? {
        guard NetworkValueBounds.webURL(raw) != nil, var components = URLComponents(string: raw),
              let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
              components.host?.isEmpty == false
        else { return nil }
        var items = components.queryItems ?? []
        items.append(URLQueryItem(name: "visitor_id", value: visitorID))
        components.queryItems = items
        return components.url
    }

    private static func send(_ request: HTTPRequest, over transport: any HTTPTransport) async -> EloTrackingFailure? {
        do throws(TransportError) {
            let response = try await transport.send(request)
            return (200..<300).contains(response.statusCode) ? nil : .httpStatus(response.statusCode)
        } catch {
            return error.kind == .cancelled ? .cancelled : .network
        }
    }
}

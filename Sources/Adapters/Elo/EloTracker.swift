import Foundation
import Mediation

/// The tracking life of one client between shutdowns, shared by the trackers of every ad the
/// client handed out (Elo document, `shutdown()`; engine rule R18).
///
/// - While open, trackers send; ``close()`` (the client's shutdown) stops every tracker at
///   once: nothing is sent afterwards, not even for ads handed out earlier, and operations that
///   are queued or under way are cancelled (reported as `.failed(.cancelled)` to an observer).
///   A later configure opens a new session; ads of a closed session stay silent.
/// - The render / impression dedup keys on the ad opportunity id (Elo document, `EloAd.id`):
///   the first render and the first impression of an id are sent, later ones (from another ad
///   object with the same id) are not. The ledger keeps the newest ``ledgerCapacity`` entries.
final class EloTrackingSession: Sendable {
    /// How many (event, ad id) pairs the dedup ledger remembers.
    static let ledgerCapacity = 4096

    private struct LedgerKey: Hashable {
        var event: EloTrackingEvent
        var adID: String
    }

    private struct Ledger {
        var sent: Set<LedgerKey> = []
        var order: [LedgerKey] = []
    }

    /// Whether trackers may send; closed by the client's shutdown.
    let gate = TrackingGate()
    private let ledger = Locked(Ledger())

    /// Creates an open session.
    init() {}

    /// Whether trackers may send.
    var isOpen: Bool { gate.isOpen }

    /// Stops every tracker of the session and cancels the operations queued or under way.
    func close() {
        gate.close()
    }

    /// Whether `event` of the ad opportunity `adID` is sent for the first time in this session
    /// (it is recorded as sent); always `false` once the session is closed.
    func claimFirst(_ event: EloTrackingEvent, adID: String) -> Bool {
        guard gate.isOpen else { return false }
        return ledger.withLock { ledger in
            let key = LedgerKey(event: event, adID: adID)
            guard ledger.sent.insert(key).inserted else { return false }
            ledger.order.append(key)
            if ledger.order.count > Self.ledgerCapacity {
                let evicted = ledger.order.removeFirst()
                ledger.sent.remove(evicted)
            }
            return true
        }
    }
}

/// Sends one ad's tracking: render and impression pings (GET to the ad's tracking URLs, with
/// `visitor_id` appended, never user data), clicks (nothing is sent: Elo-direct click delivery
/// is server-side), and browser open / close analytics
/// (`POST <base>/v1/events`). Nothing is sent once the client's ``EloTrackingSession`` is
/// closed.
///
/// Engine rule R17: analytics go to the configured origin only; tracking URLs come from the
/// answer (docs/networks/elo.md), so pings may go to another origin, but only to http(s) URLs
/// off the in-process sandboxes' hosts (unless on Elo's own origin), and never follow a
/// redirect off the ping URL's origin.
final class EloTracker: Sendable {
    /// The longest dwell reported: 24 hours (Elo seed, `trackBrowserClosed`).
    static let maximumDwell: Duration = .seconds(24 * 3600)

    /// Tracking pings: URLs from the answer.
    private let transport: HTTP.OriginLockedTransport
    /// Analytics: the configured origin only.
    private let eventsTransport: HTTP.OriginLockedTransport
    private let eventsURL: URL
    /// The visitor id to send, read when each ping or event leaves (not when the ad loaded), so
    /// that a consent withdrawal after the load is honoured; `nil` sends none.
    private let visitorID: @Sendable () -> String?
    private let clock: any MediationClock
    /// The client's tracking session (closed by its shutdown).
    let session: EloTrackingSession
    /// Operations not yet drained, and the latest one (each waits for the one before, so
    /// pings leave in the order the engine reported them: render, impression, click).
    private let tasks = Locked<(pending: [Task<Void, Never>], last: Task<Void, Never>?)>(([], nil))

    init(
        transport: any HTTP.Transport,
        baseURL: URL,
        visitorID: @escaping @Sendable () -> String?,
        clock: any MediationClock,
        session: EloTrackingSession = EloTrackingSession()
    ) {
        self.transport = HTTP.OriginLockedTransport(transport, endpoint: baseURL, reach: SandboxHosts.answerURLs)
        self.eventsTransport = HTTP.OriginLockedTransport(transport, endpoint: baseURL)
        self.eventsURL = baseURL.appendingPathComponent("v1").appendingPathComponent("events")
        self.visitorID = visitorID
        self.clock = clock
        self.session = session
    }

    /// The tracker's clock (browser dwell is measured on it).
    var currentInstant: MediationInstant { clock.now }

    /// Pings every URL of `event` in the background (render and impression: the first of each
    /// ad opportunity id in the session only). Sends nothing once the session is closed.
    func ping(_ event: EloTrackingEvent, urls: [String], adID: String) {
        guard session.claimFirst(event, adID: adID) else { return }
        let session = session
        start { [transport, visitorID] in
            // Read as the ping leaves: the consent in force now, not at the load.
            let visitorID = visitorID()
            for raw in urls {
                guard let url = Self.pingURL(raw, visitorID: visitorID), transport.permits(url) else { return }
                guard session.isOpen, !Task.isCancelled else { return }
                guard await Self.send(HTTP.Request(method: "GET", url: url), over: transport) else { return }
            }
        }
    }

    /// Posts a browser analytics event in the background. Sends nothing once the session is
    /// closed.
    func postAnalytics(_ event: EloTrackingEvent, adID: String, creativeID: String, dwellMilliseconds: Int?) {
        guard session.isOpen else { return }
        let body = EloWireAnalyticsEvent(event: event.rawValue, ad_id: adID, creative_id: creativeID, visitor_id: nil, dwell_ms: dwellMilliseconds)
        let session = session
        start { [eventsTransport, eventsURL, visitorID] in
            guard session.isOpen, !Task.isCancelled else { return }
            // The visitor id as the event leaves: the consent in force now.
            var sent = body
            sent.visitor_id = visitorID()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(sent) else { return }
            let request = HTTP.Request(method: "POST", url: eventsURL, headers: ["Content-Type": "application/json"], body: data)
            _ = await Self.send(request, over: eventsTransport)
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

    /// Starts `operation` after the tracker's previous one, as a task of the session (which
    /// cancels it on shutdown). A closed session starts nothing.
    private func start(_ operation: @escaping @Sendable () async -> Void) {
        tasks.withLock { tasks in
            let previous = tasks.last
            let clock = clock
            let task = session.gate.run { done in
                clock.startTask {
                    await previous?.value
                    await operation()
                    done()
                }
            }
            guard let task else { return }
            tasks.pending.append(task)
            tasks.last = task
        }
    }

    /// `raw` with `visitor_id` appended to its query (none when `visitorID` is `nil`), or `nil`
    /// when it is not an http(s) URL with a host and no user info, of at most
    /// `NetworkValueBounds.maximumURLLength` characters.
    static func pingURL(_ raw: String, visitorID: String?) -> URL? {
        guard NetworkValueBounds.webURL(raw) != nil, var components = URLComponents(string: raw),
              let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
              components.host?.isEmpty == false
        else { return nil }
        if let visitorID {
            var items = components.queryItems ?? []
            items.append(URLQueryItem(name: "visitor_id", value: visitorID))
            components.queryItems = items
        }
        return components.url
    }

    /// Sends `request`; whether it was answered with a 2xx status.
    private static func send(_ request: HTTP.Request, over transport: any HTTP.Transport) async -> Bool {
        guard let response = try? await transport.send(request) else { return false }
        return (200..<300).contains(response.statusCode)
    }
}

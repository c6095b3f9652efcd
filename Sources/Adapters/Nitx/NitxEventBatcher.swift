import Foundation
import Mediation

/// Queues impression and viewable events and sends them in batches (Nitx seed, "Request
/// mode"): a batch leaves 2 s after the first event queued into it, on the injected clock, or at
/// once on ``flush()`` (the host went to the background). Sending is best-effort: a failed
/// batch is dropped with a warning, never retried.
public actor NitxEventBatcher {
    /// The batching interval, 2 s (Nitx seed).
    public static let interval: Duration = .seconds(2)

    private let transport: any HTTPTransport
    private let clock: any MediationClock
    private let logger: any MediationLogger
    private let headers: [String: String]
    private let logSource: String
    private var endpoint: URL?
    private var visitorID: String?
    private var queue: [NitxEventWire] = []
    private var timer: Task<Void, Never>?
    private(set) var queuedCount = 0
    private(set) var sentCount = 0
    private(set) var batchCount = 0

    /// Creates a batcher.
    /// - Parameters:
    ///   - transport: where batches go.
    ///   - clock: the clock the 2 s interval runs on.
    ///   - logger: warnings about failed batches.
    ///   - headers: header fields of every batch request.
    ///   - logSource: the log lines' source, the network id.
    public init(transport: any HTTPTransport, clock: any MediationClock, logger: any MediationLogger, headers: [String: String] = [:], logSource: String = "nitx") {
        self.logSource = logSource
        self.transport = transport
        self.clock = clock
        self.logger = logger
        self.headers = headers
    }

    /// Sets the events endpoint; with none, events are dropped.
    public func setEndpoint(_ url: URL?) {
        endpoint = url
    }

    /// Queues `event` for the visitor `visitorID` and starts the 2 s timer when none runs.
    public func enqueue(_ event: NitxEventWire, visitorID: String?) {
        guard endpoint != nil else { return }
        queue.append(event)
        queuedCount += 1
        self.visitorID = visitorID
        guard timer == nil else { return }
        let due = clock.now + Self.interval
        let clock = clock
        timer = Task { [weak self] in
            do { try await clock.sleep(until: due) } catch { return }
            await self?.timerFired()
        }
    }

    /// Sends whatever is queued now (the host went to the background, or a reset is coming).
    public func flush() async {
        timer?.cancel()
        timer = nil
        await send()
    }

    /// The number of events waiting.
    public var pendingCount: Int { queue.count }

    private func timerFired() async {
        timer = nil
        await send()
    }

    private func send() async {
        guard let endpoint, !queue.isEmpty else { return }
        let events = queue
        queue.removeAll()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let body = try? encoder.encode(NitxEventBatchWire(visitorID: visitorID, events: events)) else { return }
        var headers = headers
        headers["Content-Type"] = "application/json"
        do {
            let response = try await transport.send(HTTPRequest(method: "POST", url: endpoint, headers: headers, body: body))
            if (200..<300).contains(response.statusCode) {
                sentCount += events.count
                batchCount += 1
            } else {
                logger.warning("Nitx event batch of \(events.count) dropped: HTTP \(response.statusCode)", source: logSource)
            }
        } catch {
            logger.warning("Nitx event batch of \(events.count) dropped: \(error)", source: logSource)
        }
    }
}

import Foundation
import Mediation

/// Queues impression and viewable events and sends them in batches (Nitx seed, "Request
/// mode"): a batch leaves 2 s after the first event queued into it, on the injected clock, or at
/// once on ``flush()`` (the host resigned active or went to the background). Sending is
/// best-effort: a failed batch is dropped with a warning, never retried. After ``close()`` (the
/// engine's shutdown) nothing is queued or sent: the timer is stopped and queued events dropped.
///
/// Each event carries the visitor id its ad was loaded under. A batch carries the current
/// visitor id only with the events of that visitor; the events of ads loaded before a
/// ``NitxClient/reset()`` leave in a batch of their own without a visitor id, so that nothing
/// links the forgotten visitor to the new one.
///
/// Queueing is synchronous (the engine's ad hooks must not block and must not reorder), so the
/// state sits in a ``Locked`` box; only sending is asynchronous.
package final class NitxEventBatcher: Sendable {
    /// The batching interval, 2 s (Nitx seed).
    package static let interval: Duration = .seconds(2)

    private struct State {
        var endpoint: URL?
        var visitorID: String?
        /// Each event with the visitor id its ad was loaded under.
        var queue: [(event: NitxWireEvent, loadedUnder: String?)] = []
        var timer: Task<Void, Never>?
        var queuedCount = 0
        var sentCount = 0
        var batchCount = 0
        var closed = false
    }

    private let transport: any HTTP.Transport
    private let clock: any MediationClock
    private let logger: any MediationLogger
    private let headers: [String: String]
    private let logSource: String
    private let state = Locked(State())

    /// Creates a batcher.
    /// - Parameters:
    ///   - transport: where batches go.
    ///   - clock: the clock the 2 s interval runs on.
    ///   - logger: warnings about failed batches.
    ///   - headers: header fields of every batch request.
    ///   - logSource: the log lines' source, the network id.
    package init(transport: any HTTP.Transport, clock: any MediationClock, logger: any MediationLogger, headers: [String: String] = [:], logSource: String = "nitx") {
        self.transport = transport
        self.clock = clock
        self.logger = logger
        self.headers = headers
        self.logSource = logSource
    }

    /// Sets the events endpoint; with none, events are dropped.
    package func setEndpoint(_ url: URL?) {
        state.withLock { $0.endpoint = url }
    }

    /// Sets the visitor id the batches carry (`nil` with personalization off).
    package func setVisitorID(_ id: String?) {
        state.withLock { $0.visitorID = id }
    }

    /// Queues `event` and starts the 2 s timer when none runs. Never blocks.
    /// - Parameters:
    ///   - event: the event.
    ///   - visitorID: the visitor id its ad was loaded under (`nil` with personalization off):
    ///     the batch carries the visitor id only when it is still the current one.
    package func enqueue(_ event: NitxWireEvent, loadedUnder visitorID: String?) {
        let due = clock.now + Self.interval
        let clock = clock
        state.withLock { state in
            guard state.endpoint != nil, !state.closed else { return }
            state.queue.append((event, visitorID))
            state.queuedCount += 1
            guard state.timer == nil else { return }
            state.timer = clock.startTask { [weak self] in
                do { try await clock.sleep(until: due) } catch { return }
                await self?.send(fromTimer: true)
            }
        }
    }

    /// Sends whatever is queued now (the host resigned active or went to the background, or a
    /// reset is coming). Does nothing after ``close()``.
    package func flush() async {
        await send(fromTimer: false)
    }

    /// Stops for good (the engine's shutdown, R18): the timer is cancelled, queued events are
    /// dropped, and nothing is queued or sent afterwards.
    package func close() {
        let timer = state.withLock { state -> Task<Void, Never>? in
            state.closed = true
            state.queue.removeAll()
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }

    /// Events queued since creation.
    package var queuedCount: Int { state.withLock { $0.queuedCount } }
    /// Events sent in a batch the server accepted (2xx).
    package var sentCount: Int { state.withLock { $0.sentCount } }
    /// Batches the server accepted.
    package var batchCount: Int { state.withLock { $0.batchCount } }

    private func send(fromTimer: Bool) async {
        let taken = state.withLock { state -> (URL, [NitxWireEventBatch])? in
            if !fromTimer { state.timer?.cancel() }
            state.timer = nil
            guard !state.closed, let endpoint = state.endpoint, !state.queue.isEmpty else { return nil }
            defer { state.queue.removeAll() }
            // The current visitor's events under its id; those of ads loaded under an earlier
            // (reset) visitor id without any id.
            let current = state.queue.filter { $0.loadedUnder == state.visitorID }.map(\.event)
            let earlier = state.queue.filter { $0.loadedUnder != state.visitorID }.map(\.event)
            var batches: [NitxWireEventBatch] = []
            if !current.isEmpty { batches.append(NitxWireEventBatch(visitorID: state.visitorID, events: current)) }
            if !earlier.isEmpty { batches.append(NitxWireEventBatch(visitorID: nil, events: earlier)) }
            return (endpoint, batches)
        }
        guard let (endpoint, batches) = taken else { return }
        for batch in batches {
            await send(batch, to: endpoint)
        }
    }

    private func send(_ batch: NitxWireEventBatch, to endpoint: URL) async {
        let events = batch.events
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let body = try? encoder.encode(batch) else { return }
        var headers = headers
        headers["Content-Type"] = "application/json"
        do {
            let response = try await transport.send(HTTP.Request(method: "POST", url: endpoint, headers: headers, body: body))
            if (200..<300).contains(response.statusCode) {
                state.withLock { state in
                    state.sentCount += events.count
                    state.batchCount += 1
                }
            } else {
                logger.warning("Nitx event batch of \(events.count) dropped: HTTP \(response.statusCode)", source: logSource)
            }
        } catch {
            logger.warning("Nitx event batch of \(events.count) dropped: \(error)", source: logSource)
        }
    }
}

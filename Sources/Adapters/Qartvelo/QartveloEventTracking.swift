import Foundation
import Mediation

/// One thing a Qartvelo ad tells the network about.
package struct QartveloTrackedEvent: Hashable, Sendable {
    /// What happened.
    package enum Kind: String, Hashable, Sendable {
        /// The ad's impression (once).
        case impression
        /// A click after the impression.
        case click
        /// An HTML5 ad was not ready within 6 s of rendering.
        case renderFailure = "render_failure"
    }

    /// What happened.
    package var kind: Kind
    /// The ad's id (unique per showing).
    package var adID: String
    /// Qartvelo's creative id.
    package var creativeID: String
    /// The tracking URL the network gave for this event, if any.
    package var url: URL?

    /// Creates an event.
    package init(kind: Kind, adID: String, creativeID: String, url: URL?) {
        self.kind = kind
        self.adID = adID
        self.creativeID = creativeID
        self.url = url
    }
}

/// Where a Qartvelo ad sends its impressions and clicks. Production fires the network's
/// tracking URLs through the transport; tests record the events.
///
/// Contract: ``track(_:)`` never blocks the caller (the ad's hooks run on the host's thread).
package protocol QartveloEventTracking: Sendable {
    /// Records one event.
    /// - Parameter event: the event, with the network's tracking URL when it gave one.
    func track(_ event: QartveloTrackedEvent)
}

/// Passes events on to `inner` only while the adapter's gate is open: after the adapter's
/// shutdown nothing is tracked, not even for ads handed out earlier (engine rule R18).
struct QartveloGatedTracker: QartveloEventTracking {
    /// Where events go while the gate is open.
    var inner: any QartveloEventTracking
    /// The adapter's gate.
    var gate: TrackingGate

    func track(_ event: QartveloTrackedEvent) {
        guard gate.isOpen else { return }
        inner.track(event)
    }
}

/// Fires each event's tracking URL with a `GET` through the transport, in its own task kept by
/// the adapter's gate (its shutdown cancels it; nothing is sent once the gate is closed), and
/// logs (without user data) when it fails.
struct QartveloTransportTracker: QartveloEventTracking {
    /// The transport the ad came through.
    var transport: any HTTP.Transport
    /// Where failures are logged.
    var logger: any MediationLogger
    /// The network id, as the log source.
    var network: String
    /// The engine's clock, on which the tracking task starts.
    var clock: any MediationClock
    /// The adapter's gate: closed by its shutdown.
    var gate: TrackingGate = TrackingGate()

    func track(_ event: QartveloTrackedEvent) {
        guard let url = event.url else { return }
        let transport = transport
        let logger = logger
        let network = network
        let gate = gate
        let clock = clock
        gate.run { done in
            clock.startTask {
                defer { done() }
                guard gate.isOpen, !Task.isCancelled else { return }
                do throws(HTTP.TransportError) {
                    let response = try await transport.send(HTTP.Request(method: "GET", url: url))
                    if !(200...299).contains(response.statusCode) {
                        logger.debug("\(event.kind.rawValue) tracking answered \(response.statusCode)", source: network)
                    }
                } catch {
                    logger.debug("\(event.kind.rawValue) tracking failed: \(error.kind.rawValue)", source: network)
                }
            }
        }
    }
}

import Mediation

/// Records the engine's events in order, for tests: pass ``handler`` as the engine's
/// `onEvent`, then read ``events`` or ask for events by name.
///
/// Sendable: the list lives in one lock box.
public final class EventRecorder: Sendable {
    private let recorded = Locked<[MediationEvent]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Records one event.
    /// - Parameter event: the event.
    public func record(_ event: MediationEvent) {
        recorded.withLock { $0.append(event) }
    }

    /// A handler that records into this recorder, for `MediationEngine(onEvent:)`.
    public var handler: @Sendable (MediationEvent) -> Void {
        { [self] event in record(event) }
    }

    /// Every event so far, in order.
    public var events: [MediationEvent] { recorded.withLock { $0 } }

    /// The names of every event so far (`auction_started`, `shown` …), in order.
    public var names: [String] { events.map(\.name) }

    /// The events named `name`.
    /// - Parameter name: e.g. `"auction_started"`.
    public func events(named name: String) -> [MediationEvent] {
        events.filter { $0.name == name }
    }

    /// How many events are named `name`.
    /// - Parameter name: e.g. `"shown"`.
    public func count(_ name: String) -> Int {
        events(named: name).count
    }

    /// The instants of the events named `name`, in order.
    /// - Parameter name: e.g. `"auction_started"`.
    public func instants(_ name: String) -> [MediationInstant] {
        events(named: name).map(\.instant)
    }

    /// The impressions counted so far, in order.
    public var impressions: [MediationEvent.Impression] {
        events.compactMap { event in
            if case .shown(let impression, _) = event { return impression }
            return nil
        }
    }

    /// The traces of finished auctions, in order.
    public var traces: [AuctionTrace] {
        events.compactMap { event in
            if case .auctionFinished(_, let trace, _) = event { return trace }
            return nil
        }
    }

    /// Forgets every event so far.
    public func reset() {
        recorded.withLock { $0.removeAll() }
    }
}

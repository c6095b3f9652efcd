/// Fans the engine's events out to every ``MediationEngine/events()`` stream and the optional
/// handler, in emission order per emitter. Its mutable state lives in one ``Locked`` box.
final class EventHub: Sendable {
    private struct State {
        var continuations: [UInt64: AsyncStream<MediationEvent>.Continuation] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    private let handler: (@Sendable (MediationEvent) -> Void)?

    /// Creates a hub.
    /// - Parameter handler: called synchronously for every event; must not block.
    init(handler: (@Sendable (MediationEvent) -> Void)?) {
        self.handler = handler
    }

    /// A new stream of every event from now on, until the hub is gone or the consumer stops.
    /// Buffers the newest 10,000 events for a slow consumer.
    func stream() -> AsyncStream<MediationEvent> {
        let (stream, continuation) = AsyncStream<MediationEvent>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            state.continuations[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Delivers `event` to the handler and every stream.
    func emit(_ event: MediationEvent) {
        handler?(event)
        // No stream open (the usual case in a tight loop): no array to build.
        let continuations = state.withLock { $0.continuations.isEmpty ? [] : Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(event) }
    }

    /// Ends every stream.
    func finish() {
        let continuations = state.withLock { state in
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    deinit {
        finish()
    }
}

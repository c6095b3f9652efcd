import Foundation

/// Collects the HTTP exchanges of every network whose transport is wrapped in a
/// ``RecordingTransport`` (see ``MediationEnvironment/exchangeRecorder``): a debugging aid,
/// bounded so that a long run cannot grow it without limit.
///
/// Keeps the first ``capacity`` exchanges, each body cut to ``bodyLimit`` bytes; later exchanges
/// are only counted (``droppedCount``). Safe to use from any task (one ``Locked`` box).
package final class HTTPExchangeRecorder: Sendable {
    /// The most bytes kept of each request or response body: 65,536.
    package static let bodyLimit = 65_536

    private struct State {
        var exchanges: [HTTPExchange] = []
        var calls: [AdapterCall] = []
        var dropped = 0
    }

    /// The most exchanges kept.
    package let capacity: Int
    private let state = Locked(State())

    /// Creates a recorder.
    /// - Parameter capacity: the most exchanges kept (default 10,000; at least 1).
    package init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Records one exchange (dropped and counted once ``capacity`` are kept).
    /// - Parameter exchange: the exchange.
    package func record(_ exchange: HTTPExchange) {
        _ = begin(exchange)
    }

    /// Records an exchange that has started and returns its slot for ``finish(_:with:)``, or
    /// `nil` when it was dropped (``capacity`` reached). Until it finishes it reads as in flight
    /// (no status, ``HTTPExchange/error`` `"no response yet"`).
    /// - Parameter exchange: the exchange as far as it is known.
    package func begin(_ exchange: HTTPExchange) -> Int? {
        begin(exchange, in: \.exchanges)
    }

    /// Replaces the exchange in `slot` (from ``begin(_:)``) with its finished form.
    /// - Parameters:
    ///   - slot: the slot.
    ///   - exchange: the finished exchange.
    package func finish(_ slot: Int, with exchange: HTTPExchange) {
        finish(slot, with: exchange, in: \.exchanges)
    }

    /// Records one adapter call (dropped and counted once ``capacity`` calls are kept).
    /// - Parameter call: the call.
    package func record(_ call: AdapterCall) {
        _ = begin(call)
    }

    /// Records an adapter call that has started; see ``begin(_:)-(HTTPExchange)``.
    /// - Parameter call: the call as far as it is known.
    package func begin(_ call: AdapterCall) -> Int? {
        begin(call, in: \.calls)
    }

    /// Replaces the adapter call in `slot` with its finished form.
    /// - Parameters:
    ///   - slot: the slot from ``begin(_:)-(AdapterCall)``.
    ///   - call: the finished call.
    package func finish(_ slot: Int, with call: AdapterCall) {
        finish(slot, with: call, in: \.calls)
    }

    /// Appends `item` to the list at `list` unless ``capacity`` is reached (then counts it
    /// dropped); returns its slot.
    private func begin<Item>(_ item: Item, in list: WritableKeyPath<State, [Item]>) -> Int? {
        state.withLock { state in
            guard state[keyPath: list].count < capacity else {
                state.dropped += 1
                return nil
            }
            state[keyPath: list].append(item)
            return state[keyPath: list].count - 1
        }
    }

    /// Replaces the item in `slot` of the list at `list`.
    private func finish<Item>(_ slot: Int, with item: Item, in list: WritableKeyPath<State, [Item]>) {
        state.withLock { state in
            if state[keyPath: list].indices.contains(slot) { state[keyPath: list][slot] = item }
        }
    }

    /// The adapter calls kept so far, in the order they started.
    package var adapterCalls: [AdapterCall] { state.withLock { $0.calls } }

    /// The exchanges kept so far, in the order they started.
    package var exchanges: [HTTPExchange] { state.withLock { $0.exchanges } }

    /// How many exchanges and adapter calls were not kept because ``capacity`` was reached.
    package var droppedCount: Int { state.withLock { $0.dropped } }

    /// The exchanges of one auction, in the order they started.
    /// - Parameter auctionID: the auction's id.
    package func exchanges(ofAuction auctionID: String) -> [HTTPExchange] {
        exchanges.filter { $0.source?.auctionID == auctionID }
    }
}

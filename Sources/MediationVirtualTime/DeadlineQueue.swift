import Mediation

/// A binary min-heap of (instant, sequence, payload): the order in which a ``ManualClock``
/// wakes its sleepers. Equal instants come out in insertion order, so ties are deterministic.
package struct DeadlineQueue<Payload> {
    private var items: [(key: MediationInstant, sequence: UInt64, payload: Payload)] = []
    private var nextSequence: UInt64 = 0

    /// Creates an empty queue.
    package init() {}

    /// Whether the queue is empty.
    package var isEmpty: Bool { items.isEmpty }
    /// The number of entries.
    package var count: Int { items.count }
    /// The earliest instant, if any.
    package var firstKey: MediationInstant? { items.first?.key }
    /// The payload of the earliest entry, if any.
    package var firstPayload: Payload? { items.first?.payload }

    /// Adds `payload` due at `key`.
    package mutating func push(_ key: MediationInstant, _ payload: Payload) {
        items.append((key, nextSequence, payload))
        nextSequence += 1
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(child, parent) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry.
    package mutating func pop() -> (key: MediationInstant, payload: Payload)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count, less(left, smallest) { smallest = left }
            if right < items.count, less(right, smallest) { smallest = right }
            guard smallest != parent else { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return (top.key, top.payload)
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        items[a].key != items[b].key ? items[a].key < items[b].key : items[a].sequence < items[b].sequence
    }
}

extension DeadlineQueue: Sendable where Payload: Sendable {}

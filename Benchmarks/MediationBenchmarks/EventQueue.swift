/// A binary min-heap of (instant, sequence, payload): the placements benchmark's event queue.
/// Equal instants come out in insertion order.
struct EventQueue<Payload> {
    private var items: [(key: Duration, sequence: UInt64, payload: Payload)] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }
    var firstKey: Duration? { items.first?.key }
    var firstPayload: Payload? { items.first?.payload }

    mutating func push(_ key: Duration, _ payload: Payload) {
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

    mutating func pop() -> (key: Duration, payload: Payload)? {
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

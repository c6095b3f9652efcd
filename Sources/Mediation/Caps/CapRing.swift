/// The last instants of one scope's impressions, newest last, in at most ``capacity`` slots:
/// a ring, so recording costs O(1) and its space is the largest cap of the scope, whatever its
/// window (nothing grows with time).
package struct CapRing: Hashable, Sendable {
    /// The slots (cap time, milliseconds); `slots.count` grows to ``capacity`` then stays.
    private var slots: [Int64] = []
    /// Where the next instant goes once the ring is full (the oldest's slot).
    private var head = 0
    /// How many instants it keeps.
    package private(set) var capacity: Int

    /// Creates an empty ring.
    /// - Parameter capacity: the instants it keeps (at least 1).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many instants it holds.
    package var count: Int { slots.count }

    /// Records an impression at `instant` (not before the newest), dropping the oldest when full.
    package mutating func record(_ instant: Int64) {
        if slots.count < capacity {
            slots.append(instant)
        } else {
            slots[head] = instant
            head = (head + 1) % capacity
        }
    }

    /// The `k`-th newest instant (1 = the newest), or `nil` when it holds fewer.
    package func newest(_ k: Int) -> Int64? {
        guard k >= 1, k <= slots.count else { return nil }
        let index = slots.count < capacity ? slots.count - k : (head - k + capacity) % capacity
        return slots[index]
    }

    /// The slot of the newest instant, or `nil` when empty.
    package var newestSlot: Int? {
        guard !slots.isEmpty else { return nil }
        return slots.count < capacity ? slots.count - 1 : (head - 1 + capacity) % capacity
    }

    /// The instants in the slots of `range` that are filled, in slot order.
    package func instants(inSlots range: Range<Int>) -> [Int64] {
        let clamped = range.clamped(to: 0..<slots.count)
        return Array(slots[clamped])
    }

    /// Its instants, oldest first.
    package var instants: [Int64] {
        slots.count < capacity ? slots : Array(slots[head...] + slots[..<head])
    }

    /// A ring of `capacity` holding the newest of `instants` (sorted oldest first).
    package init(capacity: Int, instants: [Int64]) {
        self.init(capacity: capacity)
        for instant in instants.suffix(self.capacity) { record(instant) }
    }

    /// The same instants in a ring of `capacity` (the oldest dropped when it is smaller).
    package func resized(to capacity: Int) -> CapRing {
        CapRing(capacity: capacity, instants: instants)
    }
}

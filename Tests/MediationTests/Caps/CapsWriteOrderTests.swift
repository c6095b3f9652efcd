import Foundation
import Testing
@testable import Mediation

/// An impression is stored in two writes: the cap clock, then the chunk of each scope. A process
/// that dies between them (or a store that fails the second) must not cost the scope its whole
/// history: a chunk holding an instant after the stored clock is refused as tampered at the next
/// launch, so the clock is written first (the dying write then loses one impression at most).
@Suite("caps: an impression's writes in an order that a death between them cannot turn into lost history")
struct CapsWriteOrderTests {
    /// Forwards to `inner` until `allowed` writes have been made, then fails every write: the
    /// process died there.
    final class DyingStore: StateStore {
        let inner: MemoryStateStore
        private let allowed = Locked<Int?>(nil)

        init(_ inner: MemoryStateStore) { self.inner = inner }

        /// From now on, `writes` more writes succeed; then none does.
        func die(after writes: Int) { allowed.withLock { $0 = writes } }

        func data(forKey key: String) throws(StateStoreError) -> Data? { try inner.data(forKey: key) }
        func keys() throws(StateStoreError) -> [String] { try inner.keys() }
        func exclusively<T>(_ body: () throws(StateStoreError) -> T) throws(StateStoreError) -> T { try inner.exclusively(body) }
        func setData(_ data: Data?, forKey key: String) throws(StateStoreError) {
            let goesThrough = allowed.withLock { left -> Bool in
                guard let remaining = left else { return true }
                guard remaining > 0 else { return false }
                left = remaining - 1
                return true
            }
            guard goesThrough else { throw StateStoreError(kind: .unavailable, key: key, message: "the process died") }
            try inner.setData(data, forKey: key)
        }
    }

    static let wall = Date(timeIntervalSince1970: 1_796_000_000)

    static func configuration() -> (MediationConfiguration, MediationConfiguration.Placement, LineItem) {
        let network = MediationConfiguration.Network(id: "net", adapter: "test")
        let lineItem = LineItem.fixedPrice("li", network: network.id, eCPM: 1)
        var placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [lineItem])
        placement.caps = .init(caps: [.init(impressions: 2, window: .seconds(3600))])
        var configuration = MediationConfiguration(networks: [network], placements: [placement])
        configuration.app = .init(fullScreenGapSeconds: 0)
        return (configuration, placement, lineItem)
    }

    @Test("dying after the first write of the second impression: the relaunch keeps the first, and 2 an hour binds after one more")
    func deathBetweenTheWrites() throws {
        let (configuration, placement, lineItem) = Self.configuration()
        let memory = MemoryStateStore()
        let store = DyingStore(memory)
        let first = CapKeeper(configuration: configuration, at: .origin, store: store, wallClock: { Self.wall }, logger: SilentLogger())
        #expect(first.admitShow(placement: placement, lineItem: lineItem, at: .origin) { true } == nil)
        first.dismissed(placementID: placement.id, at: .origin + .seconds(10))
        store.die(after: 1)
        let second = MediationInstant.origin + .seconds(600)
        #expect(first.admitShow(placement: placement, lineItem: lineItem, at: second) { true } == nil)
        // The relaunch, 600 s after the first impression.
        let relaunched = CapKeeper(configuration: configuration, at: .origin, store: memory, wallClock: { Self.wall.addingTimeInterval(600) }, logger: SilentLogger())
        #expect(relaunched.admitShow(placement: placement, lineItem: lineItem, at: .origin) { true } == nil)
        relaunched.dismissed(placementID: placement.id, at: .origin + .seconds(10))
        // The first impression (600 s ago) and this one: the cap of 2 an hour binds until the
        // first is an hour old, 3000 s from now.
        let refusal = relaunched.admitShow(placement: placement, lineItem: lineItem, at: .origin + .seconds(100)) { true }
        #expect(refusal?.retryAt == .origin + .seconds(3000))
    }
}

import Foundation
import Testing
@testable import Mediation

/// Cap state stays within its bound after a simulated year (`docs/caps.md`, "Kept across a
/// relaunch, bounded"): a cap of N keeps N instants, in ⌈N / 32⌉ stored chunks, at every level,
/// whatever the impressions; and what is kept is the newest, as a relaunch reads it back.
@Suite("Caps after a year")
struct CapsYearTests {
    @Test("a year of 20 impressions a day with caps at every level: each scope stores exactly its largest cap's newest instants (40 in two chunks, 20, 10, 3), and a relaunch reads them back")
    func everyLevelBoundedAfterAYear() throws {
        func window(_ impressions: Int, _ seconds: Int) -> MediationConfiguration.Cap { .init(impressions: impressions, window: .seconds(seconds)) }
        var lineItem = LineItem.fixedPrice("li", network: "neta", eCPM: 1)
        lineItem.caps = .init(caps: [window(3, 7200)], pacingSeconds: 1200)
        var placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [lineItem])
        placement.caps = .init(caps: [window(20, 86_400)], pacingSeconds: 600)
        var network = MediationConfiguration.Network(id: "neta", adapter: "scripted")
        network.caps = .init(caps: [window(10, 3600)])
        var configuration = MediationConfiguration(networks: [network], placements: [placement])
        configuration.app = .init(caps: .init(caps: [window(40, 86_400)]), fullScreenGapSeconds: 0)
        let store = MemoryStateStore()
        let wall = TestWallClock()
        let keeper = CapKeeper(configuration: configuration, at: .origin, store: store, wallClock: wall.read, logger: SilentLogger())
        var shown: [Int64] = []
        // 365 days, one impression an hour from 00:00 to 19:00: every rule allows each one.
        for day in 0..<365 {
            for hour in 0..<20 {
                let seconds = day * 86_400 + hour * 3600
                wall.move(by: Double(seconds) - (shown.last.map { Double($0) / 1000 } ?? 0)) // the wall clock keeps pace
                let refusal = keeper.admitShow(placement: placement, lineItem: lineItem, at: .origin + .seconds(seconds)) { true }
                #expect(refusal == nil, "day \(day) hour \(hour)")
                keeper.dismissed(placementID: placement.id, at: .origin + .seconds(seconds))
                shown.append(Int64(seconds) * 1000)
            }
        }
        #expect(shown.count == 7300)
        // Per scope: its depth (largest cap, or 1 for pacing alone) in ⌈depth / 32⌉ chunks.
        let depths: [(CapScope, Int)] = [(.app, 40), (.placement("level_end"), 20), (.network("neta"), 10), (.lineItem(placement: "level_end", id: "li"), 3)]
        var expectedKeys: Set<String> = [StoredCaps.clockKey]
        for (scope, depth) in depths {
            var stored: [Int64] = []
            for chunk in 0..<((depth + StoredCaps.chunkSize - 1) / StoredCaps.chunkSize) {
                let key = StoredCaps.key(of: scope, chunk: chunk)
                expectedKeys.insert(key)
                let value = try #require(try store.value(StoredCaps.Chunk.self, forKey: key), "\(scope) chunk \(chunk)")
                #expect(value.instants.count <= StoredCaps.chunkSize)
                stored += value.instants
            }
            #expect(stored.count == depth, "\(scope)")
            #expect(stored.sorted() == Array(shown.suffix(depth)), "\(scope) keeps its newest \(depth)")
        }
        #expect(Set(try store.keys().filter { $0.hasPrefix(StoredCaps.prefix) }) == expectedKeys)
        // A relaunch right after the last impression reads them back: the placement's 20 a day
        // binds until 24 h after the last day's first impression, 5 h from now.
        let relaunched = CapKeeper(configuration: configuration, at: .origin, store: store, wallClock: wall.read, logger: SilentLogger())
        #expect(relaunched.refusal(placement: placement, lineItem: lineItem, at: .origin) == CapRefusal(cap: "placement:level_end 20/86400s", retryAt: .origin + .seconds(5 * 3600)))
    }
}

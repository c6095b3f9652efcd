import Foundation
import Mediation
@testable import MediationSimulation
import Testing

/// The simulated stand-ins rewrite only a network's adapter (and line items' ad units): the
/// engine built on them keeps every rule of the configuration, the network's caps included.
@Suite("Simulated networks")
struct SimulatedNetworksTests {
    @Test func aNetworksCapsReachTheEngine() throws {
        let text = """
        {
          "networks": {
            "neta": { "adapter": "fallback", "endpoint": "sandbox", "caps": [ { "impressions": 1, "per_seconds": 86400 } ], "pacing_seconds": 60 }
          },
          "placements": {
            "level_end": { "format": "interstitial", "sources": [ { "id": "neta_li", "network": "neta", "ad_unit_id": "a", "ecpm": 1.0 } ] }
          }
        }
        """
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("simulated-networks-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(text.utf8).write(to: url)
        let configuration = try MediationConfiguration(contentsOf: url, registry: .standard)
        let market = Market(networks: [SimulationFixture.fixed("neta", latencyMilliseconds: 5)])
        let simulated = try SimulatedNetworks(configuration: configuration, market: market, seed: 1, placements: ["level_end"]).configuration
        #expect(simulated.networks.map(\.caps) == configuration.networks.map(\.caps))

        // The engine's keeper on the rewritten configuration, on a manual timeline: one
        // impression of `neta` at 0 s; at 10 h its day cap still refuses the next one, and
        // frees at exactly 86,400 s.
        let placement = try #require(simulated.placements.first)
        let lineItem = try #require(placement.sources.first)
        let keeper = CapKeeper(configuration: simulated, at: .origin, store: MemoryStateStore(), wallClock: { Date(timeIntervalSince1970: 1_800_000_000) }, logger: SilentLogger())
        #expect(keeper.admitShow(placement: placement, lineItem: lineItem, at: .origin) { true } == nil)
        keeper.dismissed(placementID: placement.id, at: .origin + .seconds(20))
        let refusal = keeper.refusal(placement: placement, lineItem: lineItem, at: .origin + .seconds(36_000))
        #expect(refusal == CapRefusal(cap: "network:neta 1/86400s", retryAt: .origin + .seconds(86_400)))
        #expect(keeper.refusal(placement: placement, lineItem: lineItem, at: .origin + .seconds(86_400)) == nil)
    }
}

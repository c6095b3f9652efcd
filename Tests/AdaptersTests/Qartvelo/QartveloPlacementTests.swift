import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Qartvelo ads held by the engine's placement: the server's refresh interval and the HTML5
/// render-failure hook. The engine builds the `qartvelo` network with `QartveloAdapterFactory`.
@Suite("Qartvelo with a placement")
struct QartveloPlacementTests {
    static func network(_ options: [String: JSONValue]) -> NetworkConfiguration {
        NetworkConfiguration(id: "qartvelo", adapter: "qartvelo", credentials: ["app_id": "qv-demo-app"], options: options)
    }

    /// An engine whose `qartvelo` network the standard registry builds, next to `others`
    /// (networks built beforehand).
    static func engine(_ network: NetworkConfiguration, others: PrebuiltNetworks = PrebuiltNetworks(), placement: PlacementConfiguration, environment: MediationEnvironment) throws -> MediationEngine {
        var registry = others.registry
        for factory in standardNetworks { registry.register(factory) }
        let configuration = MediationConfiguration(networks: [network] + others.networks, placements: [placement])
        return try MediationEngine(configuration: configuration, registry: registry, environment: environment)
    }

    @Test func fifteenSecondServerRefreshReachesTheAdAs15AndThePlacementRaisesItTo30() async throws {
        let clock = ManualClock()
        let logger = RecordingLogger()
        let network = Self.network(["banner_refresh_seconds": .integer(15)])
        let placementConfiguration = PlacementConfiguration(
            id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxHeight: 90), refreshSeconds: 60,
            sources: [.fixedPrice("home_banner_qartvelo", network: "qartvelo", adUnitID: "qv-home-banner", eCPM: 1.5)]
        )
        let engine = try Self.engine(network, placement: placementConfiguration, environment: MediationEnvironment(clock: clock, logger: logger))
        let placement = try #require(engine.placement("home_banner"))
        // Calls that set off work on the placement are made from tasks on the clock, so that the
        // clock runs that work (a call from the test's own task could leave it elsewhere).
        _ = await clock.startTask { await placement.attachView(visible: true) }.value
        // The sandbox answers at 0 ms of virtual time; load() joins that auction (or finds its ad).
        let loaded = try #require(await clock.run { await placement.load() })
        let ad = try #require(loaded.ad?.ad as? QartveloBannerAd)
        #expect(ad.serverRefreshSeconds == 15)
        #expect(await placement.refreshInterval == .seconds(30))
        #expect(logger.warnings.count == 1)
        #expect(logger.warnings.first?.contains("15 s") == true)
        await clock.startTask { await engine.shutdown() }.value
    }

    @Test func html5AdNotReadyWithin6SecondsFallsBackToTheNextSource() async throws {
        let clock = ManualClock()
        let network = Self.network(["sandbox_html5": .bool(true), "sandbox_html5_bundle_bytes": .integer(1000)])
        let placementConfiguration = PlacementConfiguration(
            id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxHeight: 90), refreshSeconds: 60,
            sources: [
                .fixedPrice("home_banner_qartvelo", network: "qartvelo", adUnitID: "qv-home-banner", eCPM: 2.0),
                .fixedPrice("home_banner_backfill", network: "backfill", eCPM: 0.5),
            ]
        )
        let backfill = ScriptedAdapter(network: "backfill", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)], ads: .init(size: AdSize(width: 320, height: 50)))
        var others = PrebuiltNetworks()
        others.add("backfill", pricing: .fixedPrice, adapter: backfill)
        let engine = try Self.engine(network, others: others, placement: placementConfiguration, environment: MediationEnvironment(clock: clock))
        let placement = try #require(engine.placement("home_banner"))
        // Calls that set off work on the placement are made from tasks on the clock.
        _ = await clock.startTask { await placement.attachView(visible: true) }.value
        #expect(await clock.settle { backfill.requestCount == 1 })
        let loaded = try #require(await clock.run { await placement.load() })
        let ad = try #require(loaded.ad?.ad as? QartveloBannerAd)
        #expect(ad.isHTML5)
        // The host wires the ad's render-failure hook to the placement.
        ad.onRenderFailure { [weak ad] _ in
            guard let ad else { return }
            clock.startTask { _ = await placement.reportRenderFailure(ad) }
        }
        let shownAt = clock.now
        await clock.startTask { _ = await placement.reportShown(ad) }.value  // rendered in a visible view: the 6 s timer starts
        await clock.advance(to: shownAt + .milliseconds(5999))
        #expect(await placement.currentAd?.ad === ad)
        #expect(ad.renderFailure == nil)
        #expect(backfill.requestCount == 1)
        await clock.advance(to: shownAt + .seconds(6))
        #expect(ad.renderFailure?.code == QartveloErrorCode.renderTimeout)
        // The hook's task reported the failure; the new auction asked the backfill again.
        #expect(await clock.settle { backfill.requestCount == 2 })
        #expect(backfill.requestInstants.last == shownAt + .seconds(6))
        await clock.advance(to: shownAt + .seconds(6) + .milliseconds(100))
        let next = try #require(await clock.run { await placement.load() }?.ad)
        #expect(next.lineItem.id == "home_banner_backfill")
        #expect(next.ad !== ad)
        await clock.startTask { await engine.shutdown() }.value
    }
}

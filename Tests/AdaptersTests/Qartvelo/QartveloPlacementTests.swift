import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Qartvelo ads held by the engine's placement: the server's refresh interval and the HTML5
/// render-failure hook. The engine builds the `qartvelo` network with `QartveloAdapterFactory`.
@Suite("Qartvelo with a placement")
struct QartveloPlacementTests {
    static func network(_ options: [String: JSONValue]) -> MediationConfiguration.Network {
        MediationConfiguration.Network(id: "qartvelo", adapter: "qartvelo", credentials: ["app_id": "qv-demo-app"], options: options)
    }

    /// An engine whose `qartvelo` network the standard registry builds, next to `others`
    /// (networks built beforehand).
    static func engine(_ network: MediationConfiguration.Network, others: PrebuiltNetworks = PrebuiltNetworks(), placement: MediationConfiguration.Placement, environment: MediationEnvironment) throws -> MediationEngine {
        var registry = others.registry
        for factory in standardNetworks { registry.register(factory) }
        let configuration = MediationConfiguration(networks: [network] + others.networks, placements: [placement])
        return try MediationEngine(configuration: configuration, registry: registry, environment: environment)
    }

    @Test func fifteenSecondServerRefreshReachesTheAdAs15AndThePlacementRaisesItTo30() async throws {
        let clock = ManualClock()
        let logger = RecordingLogger()
        let network = Self.network(["banner_refresh_seconds": .integer(15)])
        let placementConfiguration = MediationConfiguration.Placement(
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

    /// An engine with an HTML5 Qartvelo line item at 2.00 and a scripted backfill at 0.50 on
    /// `home_banner`, and the placement with one visible view and its first (Qartvelo) ad.
    static func html5Placement(clock: ManualClock, events: EventRecorder) async throws -> (MediationEngine, Placement, QartveloBannerAd, ScriptedAdapter) {
        let network = Self.network(["sandbox_html5": .bool(true), "sandbox_html5_bundle_bytes": .integer(1000)])
        let placementConfiguration = MediationConfiguration.Placement(
            id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxHeight: 90), refreshSeconds: 60,
            sources: [
                .fixedPrice("home_banner_qartvelo", network: "qartvelo", adUnitID: "qv-home-banner", eCPM: 2.0),
                .fixedPrice("home_banner_backfill", network: "backfill", eCPM: 0.5),
            ]
        )
        let backfill = ScriptedAdapter(network: "backfill", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)], ads: .init(size: AdSize(width: 320, height: 50)))
        var others = PrebuiltNetworks()
        others.add("backfill", pricing: .fixedPrice, adapter: backfill)
        var registry = others.registry
        for factory in standardNetworks { registry.register(factory) }
        let configuration = MediationConfiguration(networks: [network] + others.networks, placements: [placementConfiguration])
        let engine = try MediationEngine(configuration: configuration, registry: registry, environment: MediationEnvironment(clock: clock), onEvent: events.handler)
        let placement = try #require(engine.placement("home_banner"))
        // Calls that set off work on the placement are made from tasks on the clock.
        _ = await clock.startTask { await placement.attachView(visible: true) }.value
        #expect(await clock.settle { backfill.requestCount == 1 })
        let loaded = try #require(await clock.run { await placement.load() })
        let ad = try #require(loaded.ad?.ad as? QartveloBannerAd)
        #expect(ad.isHTML5)
        return (engine, placement, ad, backfill)
    }

    @Test func html5AdNotReadyWithin6SecondsFallsBackWithoutHostWiring() async throws {
        let clock = ManualClock()
        let events = EventRecorder()
        let (engine, placement, ad, backfill) = try await Self.html5Placement(clock: clock, events: events)
        // The host only reports the ad shown; it wires nothing to the ad.
        let shownAt = clock.now
        let report = await clock.startTask { await placement.reportShown(ad) }.value  // rendered: the 6 s timer starts
        #expect(report == .refused(.notReady("the HTML5 ad is not ready yet")))
        await clock.advance(to: shownAt + .milliseconds(5999))
        #expect(await placement.currentAd?.ad === ad)
        #expect(ad.renderFailure == nil)
        #expect(backfill.requestCount == 1)
        await clock.advance(to: shownAt + .seconds(6))
        #expect(ad.renderFailure?.code == QartveloErrorCode.renderTimeout.rawValue)
        // The ad told its placement through the engine's sink; the new auction asked the backfill again.
        #expect(await clock.settle { backfill.requestCount == 2 })
        #expect(backfill.requestInstants.last == shownAt + .seconds(6))
        await clock.advance(to: shownAt + .seconds(6) + .milliseconds(100))
        let next = try #require(await clock.run { await placement.load() }?.ad)
        #expect(next.lineItem.id == "home_banner_backfill")
        #expect(next.ad !== ad)
        #expect(ad.isReleased)                 // never shown: released, not retired
        #expect(events.count("shown") == 0)    // no impression and no revenue for the failed ad
        #expect(events.count("render_failed") == 1)
        await clock.startTask { await engine.shutdown() }.value
    }

    @Test func html5ImpressionCountsWhenTheAdIsReadyWhileVisible() async throws {
        let clock = ManualClock()
        let events = EventRecorder()
        let (engine, placement, ad, _) = try await Self.html5Placement(clock: clock, events: events)
        let report = await clock.startTask { await placement.reportShown(ad) }.value
        #expect(report == .refused(.notReady("the HTML5 ad is not ready yet")))
        #expect(events.count("shown") == 0)
        #expect(!ad.impressionRecorded)
        await clock.advance(by: .seconds(2))
        ad.recordCreativeReady()  // the web view loaded the bundle
        #expect(await clock.settle { events.count("shown") == 1 })
        #expect(ad.impressionRecorded)
        #expect(events.impressions.first?.ad.adID == ad.id)
        #expect(events.instants("shown") == [.origin + .seconds(2)])
        // Later reports count nothing more (R12).
        #expect(await clock.startTask { await placement.reportShown(ad) }.value == .alreadyShown)
        await clock.advance(by: .seconds(10))
        #expect(ad.renderFailure == nil)
        #expect(events.count("shown") == 1)
        await clock.startTask { await engine.shutdown() }.value
    }

    @Test func html5ReadyWhileHiddenCountsAtTheNextReport() async throws {
        let clock = ManualClock()
        let events = EventRecorder()
        let (engine, placement, ad, _) = try await Self.html5Placement(clock: clock, events: events)
        _ = await clock.startTask { await placement.reportShown(ad) }.value
        let view = try #require(await placement.attachedViews.keys.first)
        await clock.startTask { await placement.setVisible(false, for: view) }.value
        ad.recordCreativeReady()
        await clock.runUntilIdle()
        #expect(events.count("shown") == 0)   // ready, but the banner is not visible
        await clock.startTask { await placement.setVisible(true, for: view) }.value
        guard case .impression = await clock.startTask({ await placement.reportShown(ad) }).value else {
            Issue.record("expected the impression")
            return
        }
        #expect(events.count("shown") == 1)
        #expect(ad.impressionRecorded)
        await clock.startTask { await engine.shutdown() }.value
    }

    @Test func theEngineShutdownSilencesQartveloAdsHandedOutBefore() async throws {
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let network = MediationConfiguration.Network(id: "qartvelo", adapter: "qartvelo", credentials: ["app_id": "qv-demo-app"], endpoint: .url(try #require(URL(string: WireRecorder.qartveloEndpoint))))
        let placementConfiguration = MediationConfiguration.Placement(
            id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxHeight: 90), refreshSeconds: 60,
            sources: [.fixedPrice("home_banner_qartvelo", network: "qartvelo", adUnitID: "qv-home-banner", eCPM: 1.5)]
        )
        let engine = try Self.engine(network, placement: placementConfiguration, environment: MediationEnvironment(clock: clock, transport: wire))
        let outcome = try await engine.runAuction(placementID: "home_banner", on: clock)
        let ad = try #require(outcome.winner?.ad as? QartveloBannerAd)
        let shown = await clock.run { () -> Bool in
            guard let placement = engine.placement("home_banner") else { return false }
            _ = await placement.attachView(visible: true)
            _ = await placement.load()
            guard let current = await placement.currentAd?.ad as? QartveloBannerAd else { return false }
            _ = await placement.reportShown(current)
            return true
        }
        #expect(shown == true)
        await clock.runUntilIdle()
        let impressionsBefore = wire.requests.filter { $0.url.path == "/v1/events/impression" }.count
        #expect(impressionsBefore == 1)
        let before = wire.requests.count
        await clock.perform { await engine.shutdown() }
        // The one-shot auction's ad was handed out before shutdown: it must not track now.
        ad.recordRender()
        ad.recordImpression()
        ad.recordClick()
        await clock.advance(by: .seconds(60))
        #expect(wire.requests.count == before)
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Qartvelo in the shipped configuration")
struct QartveloShippedConfigurationTests {
    static func configuration() throws -> MediationConfiguration {
        try MediationConfiguration(contentsOf: RepositoryFiles.shippedConfiguration, registry: NetworkRegistry.standard)
    }

    /// The shipped banner placements have Qartvelo and the fallback network side by side, each a
    /// fixed-price source with its eCPM: in their parallel auctions the higher eCPM wins
    /// whatever the order (`QartveloAuctionTests.swift › theHigherECPMWinsWhateverTheOrder`).
    @Test(arguments: [("home_banner", MediationConfiguration.Placement.BannerSizing.anchored), ("feed_inline", .inline)])
    func qartveloAndTheFallbackAreFixedPriceSourcesOfTheShippedBannerPlacements(_ placementID: String, _ sizing: MediationConfiguration.Placement.BannerSizing) throws {
        let configuration = try Self.configuration()
        #expect(configuration.network("qartvelo")?.adapter == "qartvelo")
        let placement = try #require(configuration.placement(placementID))
        #expect(placement.bannerSizing == sizing)
        #expect(placement.mode == .parallel)
        let sources = placement.sources
        let qartvelo = try #require(sources.first { $0.network == "qartvelo" })
        #expect(qartvelo.pricing == .fixedPrice)
        #expect(qartvelo.eCPM != nil)
        let fallbacks = sources.filter { configuration.network($0.network)?.adapter == "fallback" }
        #expect(!fallbacks.isEmpty)
        #expect(fallbacks.allSatisfy { $0.pricing == .fixedPrice && $0.eCPM != nil })
    }

    @Test func configuredInlinePlacementWithoutMaxHeightAsks250Points() async throws {
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let configuration = try ConfigurationLoader(registry: .standard).load(json: """
        {
          "networks": { "qartvelo": { "adapter": "qartvelo", "credentials": { "app_id": "qv-demo-app" }, "endpoint": "\(WireRecorder.qartveloEndpoint)" } },
          "placements": { "feed_inline": { "format": "banner", "sizing": "inline",
            "sources": [ { "id": "feed_inline_qartvelo", "network": "qartvelo", "ad_unit_id": "qv-feed-inline", "ecpm": 1.9 } ] } }
        }
        """)
        #expect(configuration.placement("feed_inline")?.slot.maxHeight == 250)
        let template = RequestTemplate(screen: AdRequest.Device.Screen(width: 390, height: 844, scale: 3))
        let engine = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: clock, transport: wire, requestTemplate: template))
        let outcome = try await engine.runAuction(placementID: "feed_inline", on: clock)
        let body = try #require(wire.requests.first { $0.url.path == "/v1/banner" }?.body)
        let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(json["banner_mode"] as? String == "inline")
        #expect(json["screen_width"] as? Int == 1170)
        #expect(json["banner_max_height"] as? Int == 750)
        #expect(json["banner_height"] == nil)
        let ad = try #require(outcome.winner?.ad)
        #expect(ad.size.height <= 250)
        ad.releaseResources()
        await clock.perform { await engine.shutdown() }
    }

    /// Sizing is set before `load()` (Qartvelo document: "Set sizing and inlineMaxHeight before
    /// load()", "set banner.usesAdaptiveSize = false before load()"): in the engine the
    /// placement's sizing and max height and the network's `adaptive` option are configuration,
    /// so the very first request of each placement already carries them: the anchored one
    /// without `banner_height` (adaptive off), the inline one inline (inline wins over adaptive
    /// off) with its max height in pixels.
    @Test func theFirstRequestOfEachPlacementCarriesItsConfiguredSizing() async throws {
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let configuration = try ConfigurationLoader(registry: .standard).load(json: """
        {
          "networks": { "qartvelo": { "adapter": "qartvelo", "credentials": { "app_id": "qv-demo-app" }, "endpoint": "\(WireRecorder.qartveloEndpoint)", "options": { "adaptive": false } } },
          "placements": {
            "home_banner": { "format": "banner", "sizing": "anchored", "sources": [ { "id": "home_banner_qartvelo", "network": "qartvelo", "ad_unit_id": "qv-home", "ecpm": 1.5 } ] },
            "feed_inline": { "format": "banner", "sizing": "inline", "slot": { "max_height": 100 },
              "sources": [ { "id": "feed_inline_qartvelo", "network": "qartvelo", "ad_unit_id": "qv-feed-inline", "ecpm": 1.9 } ] }
          }
        }
        """)
        let template = RequestTemplate(screen: AdRequest.Device.Screen(width: 390, height: 844, scale: 3))
        let engine = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: clock, transport: wire, requestTemplate: template))
        for placementID in ["home_banner", "feed_inline"] {
            let outcome = try await engine.runAuction(placementID: placementID, on: clock)
            outcome.winner?.ad.releaseResources()
        }
        let bodies = wire.requests.filter { $0.url.path == "/v1/banner" }.compactMap { request in
            request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        }
        try #require(bodies.count == 2)
        #expect(bodies[0]["banner_mode"] == nil)
        #expect(bodies[0]["banner_height"] == nil)
        #expect(bodies[0]["screen_width"] as? Int == 1170)
        #expect(bodies[1]["banner_mode"] as? String == "inline")
        #expect(bodies[1]["banner_max_height"] as? Int == 300)
        #expect(bodies[1]["banner_height"] == nil)
        await clock.perform { await engine.shutdown() }
    }

    @Test func feedInlineAuctionHasQartveloWithTheBiggestInlineFit() async throws {
        let clock = ManualClock()
        let engine = try MediationEngine(configuration: try Self.configuration(), registry: .standard, environment: MediationEnvironment(clock: clock, seed: 1))
        let task = clock.startTask { await engine.runAuction(placementID: "feed_inline") }
        #expect(await clock.settle { clock.sleeperCount >= 1 })  // the auction has started
        await clock.advance(to: .origin + .seconds(3))
        let outcome = try #require(await task.value)
        let qartvelo = try #require(outcome.trace.source("feed_inline_qartvelo"))
        #expect(qartvelo.network == "qartvelo")
        #expect(qartvelo.eCPM == 1.90)
        #expect(qartvelo.creativeID == "qv-sbx-300x250")  // 390 x 250 pt: the rectangle shows biggest
        #expect(qartvelo.outcome == .won || qartvelo.outcome == .lost(.lostToHigherBid))
        outcome.winner?.ad.releaseResources()  // the winner belongs to the caller
    }
}

import Foundation
import Mediation
import Testing
@testable import Adapters

/// The repository's `Config/` directory, found from this file's path.
enum RepositoryFiles {
    static var configDirectory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // AdaptersTests
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent() // repository root
            .appendingPathComponent("Config")
    }
}

@Suite("Configured auctions")
struct ConfiguredAuctionsTests {
    private func shippedConfiguration() throws -> MediationConfiguration {
        try ConfigurationLoader(adapterPricing: AdapterRegistry.standard.pricingByKind)
            .load(contentsOf: RepositoryFiles.configDirectory.appendingPathComponent("mediation.json"))
    }

    @Test func theShippedConfigHasTheFourPlacements() throws {
        let configuration = try shippedConfiguration()
        #expect(configuration.placements.map(\.id) == ["home_banner", "feed_inline", "chat_strip", "level_end"])
        let home = try #require(configuration.placement("home_banner"))
        #expect(home.format == .banner && home.bannerSizing == .anchored && home.slot.maxHeight == 90)
        let feed = try #require(configuration.placement("feed_inline"))
        #expect(feed.format == .banner && feed.bannerSizing == .inline && feed.slot.maxHeight == 250)
        let strip = try #require(configuration.placement("chat_strip"))
        #expect(strip.format == .native && strip.slot.maxHeight == 100)
        #expect(configuration.placement("level_end")?.format == .interstitial)
        for placement in configuration.placements {
            #expect(placement.sources.count >= 3, "\(placement.id) has a real auction")
            let fixedPrice = placement.sources.filter { $0.pricing == .fixedPrice }
            #expect(Set(fixedPrice.compactMap(\.eCPM)).count == fixedPrice.count, "\(placement.id) eCPMs differ")
        }
    }

    @Test func buildsOneAdapterPerNetworkAndAnAuctionPerPlacement() throws {
        let configuration = try shippedConfiguration()
        let clock = ManualClock(start: .origin + .seconds(5))
        let auctions = try ConfiguredAuctions(configuration: configuration, environment: AdapterEnvironment(clock: clock, seed: 3))
        #expect(Set(auctions.adapters.keys) == Set(configuration.networks.map(\.id)))
        for placement in configuration.placements {
            let auction = try #require(auctions.auction(for: placement.id))
            #expect(auction.placement == placement)
            #expect(auction.sources.map(\.lineItem) == placement.sources)
            #expect(auction.sources.map(\.adapter.network) == placement.sources.map(\.network))
            let request = try #require(auctions.request(for: placement.id, context: HostContext(screenName: "Chat")))
            #expect(request.placementID == placement.id)
            #expect(request.format == placement.format)
            #expect(request.bannerSizing == placement.bannerSizing)
            #expect(request.slot == placement.slot)
            #expect(request.deadline == .origin + .seconds(5) + placement.deadline)
            #expect(request.context.screenName == "Chat")
        }
        #expect(auctions.auction(for: "nope") == nil)
        #expect(auctions.request(for: "nope") == nil)
    }

    @Test func aFactoryErrorNamesTheNetworkPath() throws {
        let configuration = MediationConfiguration(
            networks: [NetworkConfiguration(id: "admob", adapter: "fallback", options: ["fill_rate": .number(2)])],
            placements: []
        )
        #expect {
            _ = try ConfiguredAuctions(configuration: configuration, environment: AdapterEnvironment(clock: ManualClock()))
        } throws: { error in
            (error as? AdapterConfigurationError)?.path == "networks.admob.options.fill_rate"
        }
    }

    @Test func aKindMissingFromTheRegistryNamesTheAdapterPath() {
        let configuration = MediationConfiguration(networks: [NetworkConfiguration(id: "x", adapter: "fallback")], placements: [])
        #expect(throws: AdapterConfigurationError(path: "networks.x.adapter", message: "no adapter of kind \"fallback\" in this build")) {
            _ = try ConfiguredAuctions(configuration: configuration, registry: AdapterRegistry([]), environment: AdapterEnvironment(clock: ManualClock()))
        }
    }
}

/// The fallback network through a configured auction, on a manual clock.
@Suite("Fallback line items in an auction")
struct FallbackAuctionTests {
    private static let config = """
    {
      "networks": {
        "slow_empty": { "adapter": "fallback", "options": { "fill_rate": 0, "latency_ms": 100 } },
        "quick_full": { "adapter": "fallback", "options": { "fill_rate": 1, "latency_ms": 50 } }
      },
      "placements": {
        "level_end": {
          "format": "interstitial", "mode": "waterfall",
          "sources": [
            { "id": "premium", "network": "slow_empty", "ad_unit_id": "p", "ecpm": 6.5 },
            { "id": "standard", "network": "quick_full", "ad_unit_id": "s", "ecpm": 4.0 },
            { "id": "backfill", "network": "quick_full", "ad_unit_id": "b", "ecpm": 1.5 }
          ]
        },
        "home_banner": {
          "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 },
          "sources": [
            { "id": "premium", "network": "slow_empty", "ad_unit_id": "p", "ecpm": 1.8 },
            { "id": "standard", "network": "quick_full", "ad_unit_id": "s", "ecpm": 1.1 },
            { "id": "backfill", "network": "quick_full", "ad_unit_id": "b", "ecpm": 0.35 }
          ]
        }
      }
    }
    """

    private func run(_ placementID: String, until end: Duration) async throws -> AuctionOutcome {
        let configuration = try ConfigurationLoader(adapterPricing: AdapterRegistry.standard.pricingByKind).load(json: Self.config)
        let clock = ManualClock()
        let auctions = try ConfiguredAuctions(configuration: configuration, environment: AdapterEnvironment(clock: clock, seed: 1))
        let auction = try #require(auctions.auction(for: placementID))
        let request = try #require(auctions.request(for: placementID))
        let task = Task { await auction.run(request: request) }
        await clock.settle { clock.sleeperCount > 0 }
        await clock.advance(by: end)
        return await task.value
    }

    @Test func waterfallFillsFromTheSecondTierAt150ms() async throws {
        let outcome = try await run("level_end", until: .milliseconds(300))
        #expect(outcome.winner?.lineItem.id == "standard")
        #expect(outcome.winner?.eCPM == 4.0)
        #expect(outcome.winner?.ad.size == AdSize(width: 390, height: 844))
        #expect(outcome.trace.endedAtMilliseconds == 150)
        #expect(outcome.trace.source("premium")?.outcome == .noFill(FallbackAdapter.noFillReason))
        #expect(outcome.trace.source("premium")?.latencyMilliseconds == 100)
        #expect(outcome.trace.source("standard")?.startOffsetMilliseconds == 100)
        #expect(outcome.trace.source("standard")?.outcome == .won)
        #expect(outcome.trace.source("backfill")?.startOffsetMilliseconds == nil)
    }

    @Test func parallelWaitsForTheHigherSourceThenReleasesTheLoser() async throws {
        let outcome = try await run("home_banner", until: .milliseconds(300))
        #expect(outcome.winner?.lineItem.id == "standard")
        #expect(outcome.winner?.ad.size == AdSize(width: 320, height: 50))
        #expect(outcome.trace.endedAtMilliseconds == 100)
        #expect(outcome.trace.source("backfill")?.outcome == .lost(.lostToHigherBid))
        #expect(outcome.trace.source("backfill")?.adReleased == true)
        #expect((outcome.winner?.ad as? FallbackAd)?.isReleased == false)
    }
}

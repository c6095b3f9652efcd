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
            #expect(Set(placement.sources.compactMap(\.eCPM)).count == placement.sources.count, "\(placement.id) eCPMs differ")
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

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Qartvelo in the shipped configuration")
struct QartveloShippedConfigurationTests {
    static func configuration() throws -> MediationConfiguration {
        try ConfigurationLoader(registry: NetworkRegistry.standard).load(contentsOf: RepositoryFiles.shippedConfiguration)
    }

    @Test(arguments: [("home_banner", BannerSizing.anchored), ("feed_inline", .inline)])
    func qartveloIsAFixedPriceSourceAheadOfTheFallback(_ placementID: String, _ sizing: BannerSizing) throws {
        let configuration = try Self.configuration()
        #expect(configuration.network("qartvelo")?.adapter == "qartvelo")
        let placement = try #require(configuration.placement(placementID))
        #expect(placement.bannerSizing == sizing)
        let sources = placement.sources
        let qartvelo = try #require(sources.firstIndex { $0.network == "qartvelo" })
        #expect(sources[qartvelo].pricing == .fixedPrice)
        #expect(sources[qartvelo].eCPM != nil)
        let fallbackIndices = sources.indices.filter { configuration.network(sources[$0].network)?.adapter == "fallback" }
        #expect(!fallbackIndices.isEmpty)
        #expect(fallbackIndices.allSatisfy { $0 > qartvelo })
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

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Nitx in `Config/mediation.json`: a fixed-price source on every placement, `level_end` included.
@Suite("Nitx in the shipped configuration")
struct NitxShippedConfigurationTests {
    static func configuration() throws -> MediationConfiguration {
        try MediationConfiguration(contentsOf: RepositoryFiles.shippedConfiguration, registry: NetworkRegistry.standard)
    }

    @Test func nitxIsAFixedPriceSourceOnEveryPlacement() throws {
        let configuration = try Self.configuration()
        let network = try #require(configuration.network("nitx"))
        #expect(network.adapter == "nitx")
        #expect(network.endpoint == .sandbox)
        #expect(network.credentials["source_code"] == "SDK-AM-DEMOI")
        #expect(Set(configuration.placements.map(\.format)) == [.banner, .native, .interstitial])
        for placement in configuration.placements {
            let nitx = try #require(placement.sources.first { $0.network == "nitx" }, "\(placement.id)")
            #expect(nitx.pricing == .fixedPrice)
            #expect((nitx.eCPM ?? 0) > 0)
            #expect(nitx.adUnitID.hasPrefix("SLOT-"))
        }
        #expect(configuration.placement("level_end")?.sources.first { $0.network == "nitx" }?.eCPM == 5.20)
    }

    @Test func levelEndAuctionAsksNitxAfterThePremiumTier() async throws {
        let configuration = try Self.configuration()
        let clock = ManualClock()
        let engine = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: clock, seed: 1))
        let task = clock.startTask { await engine.runAuction(placementID: "level_end") }
        #expect(await clock.settle { clock.sleeperCount > 0 }, "the premium tier is waiting for its latency")
        await clock.advance(by: .milliseconds(3000))
        let outcome = try #require(await task.value)
        let nitx = try #require(outcome.trace.source("level_end_nitx"))
        let premium = try #require(outcome.trace.source("level_end_premium"))
        // Seed 1: the premium tier (6.50) has no fill after ~241 ms; the Nitx tier (5.20) is asked
        // then, fills from the sandbox at once and wins; the lower tiers are never asked (R1, R4).
        #expect(premium.outcome == .noFill(FallbackAdapter.noFillReason))
        #expect(nitx.outcome == .won)
        #expect(nitx.pricing == .fixedPrice)
        #expect(nitx.eCPM == 5.20)
        #expect(nitx.startOffsetMilliseconds == premium.latencyMilliseconds)
        #expect(outcome.trace.endedAtMilliseconds == premium.latencyMilliseconds)
        #expect(outcome.winner?.lineItem.id == "level_end_nitx")
        #expect(outcome.winner?.ad.network == "nitx")
        #expect(outcome.winner?.ad.size == AdSize(width: 390, height: 844))
        #expect(outcome.trace.source("level_end_standard")?.startOffsetMilliseconds == nil)
        // R6a: tiers never reached are `not_asked`.
        #expect(outcome.trace.source("level_end_standard")?.outcome == .notAsked(.tierNotReached))
        #expect(outcome.trace.source("level_end_backfill")?.outcome == .notAsked(.tierNotReached))
    }
}

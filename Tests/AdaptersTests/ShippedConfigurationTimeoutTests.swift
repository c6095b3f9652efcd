import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// A network kind whose adapter never answers, not even when cancelled (a hung network).
private struct HungNetworkFactory: NetworkAdapterFactory {
    let kind: String
    let pricing: LineItem.Pricing
    let clock: ManualClock

    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        ScriptedAdapter(network: network.id, pricing: pricing, clock: clock, script: [.never])
    }
}

/// Engine rule R3a through the shipped configuration and the standard networks.
@Suite("R3a in the shipped configuration")
struct ShippedConfigurationTimeoutTests {
    @Test("level_end: a Nitx that never answers times out at its network's 2000 ms after it was asked; the lower tiers fill at about 2.2 s, not no fill at 3000 ms")
    func hungNitxGivesWayToTheNextTiers() async throws {
        let clock = ManualClock()
        let registry = NetworkRegistry.standard.registering(HungNetworkFactory(kind: "nitx", pricing: .fixedPrice, clock: clock))
        let configuration = try MediationConfiguration(contentsOf: RepositoryFiles.shippedConfiguration, registry: registry)
        #expect(configuration.network("nitx")?.timeout == .milliseconds(2000))
        let engine = try MediationEngine(configuration: configuration, registry: registry, environment: MediationEnvironment(clock: clock, seed: 1))
        let outcome = try await engine.runAuction(placementID: "level_end", on: clock)
        let premium = try #require(outcome.trace.source("level_end_premium"))
        let nitx = try #require(outcome.trace.source("level_end_nitx"))
        // Seed 1: the premium tier has no fill after ~241 ms; Nitx is asked then.
        #expect(premium.outcome == .noFill(FallbackAdapter.noFillReason))
        let askedAt = try #require(nitx.startOffsetMilliseconds)
        #expect(askedAt == premium.latencyMilliseconds)
        #expect(nitx.outcome == .timeout(.network))
        // The next tier starts at the instant Nitx's limit fires, and fills.
        #expect(outcome.trace.source("level_end_standard")?.startOffsetMilliseconds == askedAt + 2000)
        #expect(outcome.isFilled)
        #expect(outcome.trace.endedAtMilliseconds > 2200)
        #expect(outcome.trace.endedAtMilliseconds < 2600)
        #expect(outcome.trace.warnings.map(\.code) == ["sandbox_endpoint"])
        outcome.winner?.ad.releaseResources()
        await clock.perform { await engine.shutdown() }
    }
}

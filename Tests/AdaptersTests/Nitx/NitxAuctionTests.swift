import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Nitx line items as fixed-price sources in the engine's auction (the sandbox behind them):
/// the engine builds the `nitx` network with `NitxAdapterFactory`.
@Suite("Nitx in the auction")
struct NitxAuctionTests {
    static func nitxNetwork(sdkBlock: Bool = true) -> MediationConfiguration.Network {
        MediationConfiguration.Network(id: "nitx", adapter: "nitx", credentials: ["source_code": "SDK-AM-DEMOI"], options: ["sdk_block": .bool(sdkBlock)])
    }

    /// An engine whose `nitx` network the standard registry builds, next to `others` (scripted
    /// networks built beforehand).
    static func engine(clock: ManualClock, sdkBlock: Bool = true, others: PrebuiltNetworks = PrebuiltNetworks(), placements: [MediationConfiguration.Placement]) throws -> MediationEngine {
        var registry = others.registry
        registry.register(NitxAdapterFactory())
        let configuration = MediationConfiguration(networks: [nitxNetwork(sdkBlock: sdkBlock)] + others.networks, placements: placements)
        return try MediationEngine(configuration: configuration, registry: registry, environment: MediationEnvironment(clock: clock))
    }

    @Test(arguments: [true, false])
    func nitxWinsLevelEndAtItsConfiguredECPM(sdkBlock: Bool) async throws {
        let clock = ManualClock()
        let other = ScriptedAdapter(network: "netb", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(50), .fill)])
        var others = PrebuiltNetworks()
        others.add("netb", pricing: .fixedPrice, adapter: other)
        let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [
            .fixedPrice("nitx_level_end", network: "nitx", adUnitID: "SLOT-LEVELEND", eCPM: 4.25),
            .fixedPrice("netb_level_end", network: "netb", eCPM: 1.20),
        ])
        let engine = try Self.engine(clock: clock, sdkBlock: sdkBlock, others: others, placements: [placement])
        let outcome = try await engine.runAuction(placementID: "level_end", on: clock)
        let winner = try #require(outcome.winner)
        #expect(winner.lineItem.id == "nitx_level_end")
        #expect(winner.eCPM == 4.25)
        #expect(winner.ad.network == "nitx")
        #expect(winner.ad.format == .interstitial)
        #expect(outcome.trace.source("nitx_level_end")?.outcome == .won)
        #expect(outcome.trace.source("nitx_level_end")?.pricing == .fixedPrice)
        #expect(other.requestCount == 1)
    }

    @Test(arguments: [
        (AdFormat.banner, MediationConfiguration.Placement.BannerSizing.anchored as MediationConfiguration.Placement.BannerSizing?, SlotSize(maxHeight: 90)),
        (.banner, .inline, SlotSize(maxHeight: 250)),
        (.native, nil, SlotSize(maxHeight: 100)),
        (.appOpen, nil, SlotSize()),
        (.interstitial, nil, SlotSize()),
    ])
    func everyEngineFormatFillsAndFitsItsPlacement(format: AdFormat, sizing: MediationConfiguration.Placement.BannerSizing?, slot: SlotSize) async throws {
        let clock = ManualClock()
        let placement = MediationConfiguration.Placement(id: "p", format: format, bannerSizing: sizing, slot: slot, sources: [
            .fixedPrice("nitx_p", network: "nitx", adUnitID: "SLOT-P", eCPM: 2.0),
        ])
        let engine = try Self.engine(clock: clock, placements: [placement])
        let outcome = try await engine.runAuction(placementID: "p", on: clock)
        #expect(outcome.winner?.lineItem.id == "nitx_p", "\(outcome.trace.sources.map(\.outcome))")
        if let ad = outcome.winner?.ad {
            #expect(ad.format == format)
            #expect(slot.fits(ad.size) || format != .banner)
        }
    }

    /// R19: a Nitx line item on a rewarded placement can never fill, so the engine refuses the
    /// configuration (naming the source); the adapter itself still fails a rewarded request
    /// with its `unsupported` error, without a request.
    @Test func rewardedIsAnErrorOutcome() async throws {
        let clock = ManualClock()
        let placement = MediationConfiguration.Placement(id: "r", format: .rewarded, sources: [.fixedPrice("nitx_r", network: "nitx", adUnitID: "SLOT-R", eCPM: 2.0)])
        let error = #expect(throws: ConfigurationError.self) { _ = try Self.engine(clock: clock, placements: [placement]) }
        #expect(error?.code == .unfillable)
        #expect(error?.path == "placements.r.sources[0]")
        let adapter = try NitxAdapterFactory().makeAdapter(for: Self.nitxNetwork(), environment: MediationEnvironment(clock: clock))
        let result = await clock.perform { await adapter.loadAd(for: AdRequest(placementID: "r", adUnitID: "SLOT-R", format: .rewarded)) }
        guard case .failure(let failure) = result else {
            Issue.record("expected an error outcome, got \(result)")
            return
        }
        #expect(failure.message == "Rewarded ads are not available in v1")
    }
}

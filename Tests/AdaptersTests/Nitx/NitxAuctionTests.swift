import Foundation
import Mediation
import MediationTestSupport
import Testing
@testable import Adapters

/// Nitx line items as fixed-price sources in the engine's auction (the sandbox behind them).
@Suite("Nitx in the auction")
struct NitxAuctionTests {
    static func nitx(clock: ManualClock, sdkBlock: Bool = true) throws -> any AdNetworkAdapter {
        let network = NetworkConfiguration(id: "nitx", adapter: "nitx", credentials: ["source_code": "SDK-AM-DEMOI"], options: ["sdk_block": .bool(sdkBlock)])
        return try NitxAdapterFactory().makeAdapter(for: network, environment: AdapterEnvironment(clock: clock))
    }

    @Test(arguments: [true, false])
    func nitxWinsLevelEndAtItsConfiguredECPM(sdkBlock: Bool) async throws {
        let clock = ManualClock()
        let other = ScriptedAdapter(network: "netb", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(50), .fill)])
        let placement = PlacementConfiguration(id: "level_end", format: .interstitial, sources: [
            .fixedPrice("nitx_level_end", network: "nitx", adUnitID: "SLOT-LEVELEND", eCPM: 4.25),
            .fixedPrice("netb_level_end", network: "netb", eCPM: 1.20),
        ])
        let auction = Auction(placement: placement, sources: [
            AuctionSource(lineItem: placement.sources[0], adapter: try Self.nitx(clock: clock, sdkBlock: sdkBlock)),
            AuctionSource(lineItem: placement.sources[1], adapter: other),
        ], clock: clock)
        let outcome = await auction.run(request: AdRequest(placementID: "level_end", format: .interstitial))
        let winner = try #require(outcome.winner)
        #expect(winner.lineItem.id == "nitx_level_end")
        #expect(winner.eCPM == 4.25)
        #expect(winner.ad.network == "nitx")
        #expect(winner.ad.format == .interstitial)
        #expect(outcome.trace.source("nitx_level_end")?.outcome == .won)
        #expect(outcome.trace.source("nitx_level_end")?.pricing == .fixedPrice)
    }

    @Test(arguments: [
        (AdFormat.banner, BannerSizing.anchored as BannerSizing?, SlotSize(maxHeight: 90)),
        (.banner, .inline, SlotSize(maxHeight: 250)),
        (.native, nil, SlotSize(maxHeight: 100)),
        (.appOpen, nil, SlotSize()),
        (.interstitial, nil, SlotSize()),
    ])
    func everyEngineFormatFillsAndFitsItsPlacement(format: AdFormat, sizing: BannerSizing?, slot: SlotSize) async throws {
        let clock = ManualClock()
        let placement = PlacementConfiguration(id: "p", format: format, bannerSizing: sizing, slot: slot, sources: [
            .fixedPrice("nitx_p", network: "nitx", adUnitID: "SLOT-P", eCPM: 2.0),
        ])
        let auction = Auction(placement: placement, sources: [AuctionSource(lineItem: placement.sources[0], adapter: try Self.nitx(clock: clock))], clock: clock)
        let outcome = await auction.run(request: AdRequest(placementID: "p", format: format, bannerSizing: sizing, slot: slot))
        #expect(outcome.winner?.lineItem.id == "nitx_p", "\(outcome.trace.sources.map(\.outcome))")
    }

    @Test func rewardedIsAnErrorOutcome() async throws {
        let clock = ManualClock()
        let placement = PlacementConfiguration(id: "r", format: .rewarded, sources: [.fixedPrice("nitx_r", network: "nitx", adUnitID: "SLOT-R", eCPM: 2.0)])
        let auction = Auction(placement: placement, sources: [AuctionSource(lineItem: placement.sources[0], adapter: try Self.nitx(clock: clock))], clock: clock)
        let outcome = await auction.run(request: AdRequest(placementID: "r", format: .rewarded))
        #expect(outcome.winner == nil)
        guard case .error(let error)? = outcome.trace.source("nitx_r")?.outcome else {
            Issue.record("expected an error outcome")
            return
        }
        #expect(error.message == "Rewarded ads are not available in v1")
    }
}

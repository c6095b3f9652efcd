import Foundation
import HouseAds
import Mediation
import MediationTestKit
import Testing

// The example host's own network (Examples/HouseAds) next to a rival bidder whose ads carry
// every id a network could leak (ad, creative, request, bid), and the fallback: what the house
// network hears after each auction is its own result and the price it had to beat, nothing more.

/// A rival bidder's ad, carrying every id there is.
private final class RivalAd: LoadedAd {
    let id: String
    let creativeID: String
    let requestID: String?
    let bidID: String?
    let network = "rival"
    let format: AdFormat
    let size: AdSize

    init(number: Int, format: AdFormat, size: AdSize) {
        id = "rival-ad-\(number)"
        creativeID = "rival-creative-\(number)"
        requestID = "rival-request-\(number)"
        bidID = "rival-bid-\(number)"
        self.format = format
        self.size = size
    }

    func releaseResources() {}
}

/// Bids its option `bid_ecpm` at once on every request.
private struct RivalAdapter: AdNetworkAdapter {
    let bid: Double
    let counter = Locked(0)

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        let number = counter.withLock { count in
            count += 1
            return count
        }
        let size = AdSize(width: min(request.slot.maxWidth ?? 320, request.screen.width), height: min(request.slot.maxHeight ?? 50, 50))
        return .bid(RivalAd(number: number, format: request.format, size: size), eCPM: bid)
    }
}

private struct RivalFactory: NetworkAdapterFactory {
    let kind = "rival"
    let pricing = LineItem.Pricing.bidder

    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        RivalAdapter(bid: network.options["bid_ecpm"]?.doubleValue ?? 1)
    }
}

@Suite("The example host's network hears about itself only")
struct HouseAdsNoticeTests {
    static let json = """
    {
      "networks": {
        "house": { "adapter": "house_ads", "endpoint": "sandbox", "options": { "creative": "house-pro" } },
        "rival_high": { "adapter": "rival", "endpoint": "sandbox", "options": { "bid_ecpm": 7.25 } },
        "rival_low": { "adapter": "rival", "endpoint": "sandbox", "options": { "bid_ecpm": 2.25 } },
        "admob": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1, "latency_ms": 20 } }
      },
      "placements": {
        "strip_lost": {
          "format": "native", "slot": { "max_height": 100 }, "deadline_ms": 1000,
          "sources": [
            { "id": "strip_lost_house", "network": "house", "ad_unit_id": "house-unit-a", "ecpm": 1.5 },
            { "id": "strip_lost_rival", "network": "rival_high", "ad_unit_id": "rival-unit-a" },
            { "id": "strip_lost_admob", "network": "admob", "ad_unit_id": "ca-app-pub-9/1", "ecpm": 1.35 }
          ]
        },
        "strip_won": {
          "format": "native", "slot": { "max_height": 100 }, "deadline_ms": 1000,
          "sources": [
            { "id": "strip_won_house", "network": "house", "ad_unit_id": "house-unit-b", "ecpm": 3.0 },
            { "id": "strip_won_rival", "network": "rival_low", "ad_unit_id": "rival-unit-b" },
            { "id": "strip_won_admob", "network": "admob", "ad_unit_id": "ca-app-pub-9/2", "ecpm": 1.35 }
          ]
        }
      }
    }
    """

    @Test func itsNoticesCarryItsOwnOutcomeAndThePriceToBeatAndNoOtherSourcesIDsOrPrices() async throws {
        let clock = ManualClock()
        let heard = Locked<[AuctionNotice]>([])
        let registry = NetworkRegistry.standard
            .registering(HouseAdsFactory { notice in heard.withLock { $0.append(notice) } })
            .registering(RivalFactory())
        let configuration = try MediationConfiguration(json: Self.json, registry: registry)
        let engine = try MediationEngine(configuration: configuration, registry: registry, environment: MediationEnvironment(clock: clock, seed: 1))

        let lost = try await engine.runAuction(placementID: "strip_lost", on: clock)
        #expect(lost.winner?.lineItem.id == "strip_lost_rival")
        let won = try await engine.runAuction(placementID: "strip_won", on: clock)
        #expect(won.winner?.lineItem.id == "strip_won_house")

        let notices = heard.withLock { $0 }
        try #require(notices.count == 2)
        // Lost: its own value, the loss reason, and the winner's value as the price to beat.
        #expect(notices[0].auctionID == lost.trace.auctionID)
        #expect(notices[0].placementID == "strip_lost")
        #expect(notices[0].lineItemID == "strip_lost_house")
        #expect(notices[0].adUnitID == "house-unit-a")
        #expect(notices[0].outcome == .lost(.lostToHigherBid))
        #expect(notices[0].eCPM == 1.5)
        #expect(notices[0].priceToBeat == 7.25)
        // Won: the price to beat is the highest other valid value (the rival's 2.25, not the
        // fallback's 1.35).
        #expect(notices[1].lineItemID == "strip_won_house")
        #expect(notices[1].outcome == .won)
        #expect(notices[1].eCPM == 3.0)
        #expect(notices[1].priceToBeat == 2.25)
        #expect(notices[1].adID == won.winner?.ad.id)

        // The encoded form holds none of the other sources' line item ids, ad units, prices
        // (beyond the price to beat), ad, creative, request or bid ids.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = try #require(String(data: encoder.encode(notices), encoding: .utf8))
        for secret in [
            "rival", "admob", "ca-app-pub", "1.35",
            "strip_lost_rival", "strip_lost_admob", "strip_won_rival", "strip_won_admob",
        ] {
            #expect(!text.contains(secret), "the house network's notices leak \(secret): \(text)")
        }
        // Its own fields are there.
        for own in ["strip_lost_house", "house-unit-a", "strip_won_house", "house-unit-b", "7.25", "2.25"] {
            #expect(text.contains(own))
        }
        // What the notice's encoding has, key by key: nothing else.
        let objects = try #require(try JSONSerialization.jsonObject(with: encoder.encode(notices)) as? [[String: Any]])
        let keys = Set(objects.flatMap(\.keys))
        #expect(keys.isSubset(of: ["auctionID", "placementID", "lineItemID", "adUnitID", "outcome", "eCPM", "priceToBeat", "adID"]))
        won.winner?.ad.releaseResources()
        await engine.shutdown()
    }
}

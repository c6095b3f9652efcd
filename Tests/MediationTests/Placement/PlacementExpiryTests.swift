import Mediation
import MediationTestKit
import Testing

/// Engine rule R14: expiry, checked at show time; an expired unshown ad is released once and
/// never shown.
@Suite("Placement expiry (R14)")
struct PlacementExpiryTests {
    /// `level_end` with NetA's ads living 120 s: NetA's ad arrives at 0.100 s, expires at 120.100 s.
    private static func fixture() throws -> PlacementFixture {
        try PlacementFixture(placement: PlacementFixture.levelEnd, netAAds: .init(timeToLive: .seconds(120)))
    }

    @Test("show just before the expiry instant counts; at the instant it is released and not shown", arguments: [
        (-1 as Int64, true),
        (0, false),
        (1000, false),
    ])
    func showAroundExpiry(offsetMilliseconds: Int64, shows: Bool) async throws {
        let fixture = try Self.fixture()
        try await fixture.clock.perform {
            let placement = try fixture.placement
            let load = try await fixture.startLoad()
            await fixture.advance(to: at(0.1))
            let loaded = try #require(await load.value.ad)
            #expect(loaded.expiry.expiresAt == at(120.1))
            let ad = try #require(fixture.netA.ads.first)

            await fixture.advance(to: at(120.1) + ms(offsetMilliseconds))
            let result = await placement.reportShown(loaded.ad)
            if shows {
                guard case .impression(let impression) = result else {
                    Issue.record("expected an impression, got \(result)")
                    return
                }
                #expect(impression.revenueUSD == 1.20 / 1000)
                #expect(ad.impressionCount == 1)
                #expect(ad.releaseCount == 0)
            } else {
                #expect(result == .expired)
                #expect(ad.impressionCount == 0)
                #expect(ad.releaseCount == 1)
                #expect(await placement.currentAd == nil)
            }
            // Much later: a shown ad is still never released; an expired one was released once.
            await fixture.advance(to: at(10_000))
            #expect(ad.releaseCount == (shows ? 0 : 1))
            #expect(fixture.recorder.count("expired") == (shows ? 0 : 1))
            #expect(fixture.recorder.count("released") == (shows ? 0 : 1))
            #expect(fixture.recorder.count("shown") == (shows ? 1 : 0))
        }
    }

    @Test("load just before expiry returns the ad with no request; at expiry it runs a new auction")
    func loadAroundExpiry() async throws {
        let fixture = try Self.fixture()
        try await fixture.clock.perform {
            let placement = try fixture.placement
            let first = try await fixture.startLoad()
            await fixture.advance(to: at(0.1))
            let firstAd = try #require(await first.value.ad)

            await fixture.advance(to: at(120.099))
            let again = try #require(await placement.load().ad)
            #expect(again.ad === firstAd.ad)
            #expect(fixture.requestCount == 3)

            await fixture.advance(to: at(120.1))
            #expect(try #require(fixture.netA.ads.first).releaseCount == 1)
            #expect(fixture.recorder.instants("expired") == [at(120.1)])
            let reload = try await fixture.startLoad()
            await fixture.advance(to: at(120.2))
            let fresh = try #require(await reload.value.ad)
            #expect(fresh.ad !== firstAd.ad)
            #expect(fixture.requestCount == 6)
            #expect(fixture.auctionStarts == [at(0), at(120.1)])
            #expect(try #require(fixture.netA.ads.first).releaseCount == 1)
        }
    }

    @Test("an unseen banner's ad expires after 1 h, is released once, and reloads when seen again")
    func hiddenBannerExpires() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 60))
        try await fixture.clock.perform {
            let placement = try fixture.placement
            let view = await placement.attachView(visible: false)
            await fixture.advance(to: at(0.1))
            let ad = try #require(fixture.netA.ads.first)
            #expect(await placement.currentAd?.ad === ad)

            await fixture.advance(to: at(3600.099))
            #expect(ad.releaseCount == 0)
            await fixture.advance(to: at(3600.1))
            #expect(ad.releaseCount == 1)
            #expect(ad.impressionCount == 0)
            #expect(await placement.currentAd == nil)
            #expect(fixture.auctionStarts == [at(0)])

            await fixture.advance(to: at(4000))
            await placement.setVisible(true, for: view)
            await fixture.advance(to: at(4000.1))
            #expect(fixture.auctionStarts == [at(0), at(4000)])
            #expect(await placement.currentAd?.ad === fixture.netA.ads.last)
            // Unrendered, the second ad is replaced by the refresh at 4060.100 s and released once
            // (replaced), never expired.
            await fixture.advance(to: at(4060.2))
            #expect(fixture.auctionStarts == [at(0), at(4000), at(4060.1)])
            #expect(fixture.netA.ads.map(\.releaseCount) == [1, 1, 0])
            #expect(fixture.recorder.instants("expired") == [at(3600.1)])
        }
    }
}

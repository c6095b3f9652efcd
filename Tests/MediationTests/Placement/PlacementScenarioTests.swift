import Mediation
import MediationTestKit
import Testing

/// Engine rules, scenarios 7 to 11, with their exact values on a manual clock.
@Suite("Placement scenarios 7-11")
struct PlacementScenarioTests {
    @Test("7. Hidden banner: no request until 240.100 s; the first ad is never released")
    func hiddenBanner() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 60))
        try await fixture.clock.perform {
            let renderer = try fixture.renderEachNewAd()
            defer { renderer.cancel() }
            let placement = try fixture.placement
            let view = await placement.attachView(visible: true)

            await fixture.advance(to: at(0.1))
            let first = try #require(fixture.netA.ads.first)
            #expect(fixture.recorder.instants("ad_loaded") == [at(0.1)])
            #expect(first.impressionCount == 1)

            await fixture.advance(to: at(20.1))
            await placement.setVisible(false, for: view)
            await fixture.advance(to: at(200.1))
            await placement.setVisible(true, for: view)
            await fixture.advance(to: at(240.099))
            #expect(fixture.requestCount == 3)
            #expect(fixture.auctionStarts == [at(0)])

            await fixture.advance(to: at(240.1))
            #expect(fixture.auctionStarts == [at(0), at(240.1)])
            #expect(fixture.requestCount == 6)
            await fixture.advance(to: at(300))
            #expect(first.releaseCount == 0)
            #expect(fixture.recorder.count("retired") == 1)
        }
    }

    @Test("8. Background during a refresh: auction 2 ends at 32.100 s; next refresh at 630.0 s; 6 requests before")
    func backgroundDuringRefresh() async throws {
        let fixture = try PlacementFixture(
            placement: PlacementFixture.homeBanner(refreshSeconds: 30),
            netA: [.after(ms(100), .fill), .after(ms(2000), .fill), .after(ms(100), .fill)]
        )
        try await fixture.clock.perform {
            let renderer = try fixture.renderEachNewAd()
            defer { renderer.cancel() }
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)

            await fixture.advance(to: at(0.1))
            #expect(fixture.recorder.instants("ad_loaded") == [at(0.1)])
            await fixture.advance(to: at(31.0))
            #expect(fixture.auctionStarts == [at(0), at(30.1)])
            await fixture.engine.setForeground(false)
            await fixture.advance(to: at(32.1))
            #expect(fixture.recorder.instants("auction_finished") == [at(0.1), at(32.1)])
            #expect(fixture.recorder.instants("ad_loaded") == [at(0.1), at(32.1)])
            let second = try #require(fixture.netA.ads.last)
            #expect(await placement.currentAd?.ad.id == second.id)

            await fixture.advance(to: at(600.0))
            #expect(fixture.auctionStarts == [at(0), at(30.1)])
            await fixture.engine.setForeground(true)
            await fixture.advance(to: at(629.999))
            #expect(fixture.requestCount == 6)
            #expect(fixture.auctionStarts == [at(0), at(30.1)])
            await fixture.advance(to: at(630.0))
            #expect(fixture.auctionStarts == [at(0), at(30.1), at(630.0)])
        }
    }

    @Test("9. Two loads at 0: auctions start at 0, 30.100, 60.200 and 90.300 s only")
    func twoLoads() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 30))
        try await fixture.clock.perform {
            let renderer = try fixture.renderEachNewAd()
            defer { renderer.cancel() }
            let placement = try fixture.placement
            let first = try await fixture.startLoad()
            let second = try await fixture.startLoad(joining: true)
            await fixture.clock.runUntilIdle()
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(0.1))
            let firstAd = try #require(await first.value.ad)
            let secondAd = try #require(await second.value.ad)
            #expect(firstAd.ad === secondAd.ad)

            await fixture.advance(to: at(120.3))
            #expect(fixture.auctionStarts == [at(0), at(30.1), at(60.2), at(90.3)])
            #expect(fixture.requestCount == 12)
        }
    }

    @Test("10. Concurrent loads at 0 and 0.5 s: 3 requests; both get Bid at 2.00; NetA's ad released once")
    func concurrentLoads() async throws {
        let fixture = try PlacementFixture(
            placement: PlacementFixture.levelEnd,
            bid: [.after(ms(1000), .bid(2.00))],
            netA: [.after(ms(1000), .fill)],
            netB: [.after(ms(1000), .noFill)]
        )
        try await fixture.clock.perform {
            _ = try fixture.placement
            let first = try await fixture.startLoad()
            await fixture.advance(to: at(0.5))
            let second = try await fixture.startLoad(joining: true)
            await fixture.advance(to: at(1.0))
            await fixture.advance(to: at(5.0))

            let firstAd = try #require(await first.value.ad)
            let secondAd = try #require(await second.value.ad)
            #expect(fixture.requestCount == 3)
            #expect(fixture.auctionStarts == [at(0)])
            #expect(firstAd.lineItem.id == "bid")
            #expect(firstAd.eCPM == 2.00)
            #expect(secondAd.ad === firstAd.ad)
            #expect(secondAd.eCPM == 2.00)
            let netAAd = try #require(fixture.netA.ads.first)
            #expect(netAAd.releaseCount == 1)
            #expect(try #require(fixture.bid.ads.first).releaseCount == 0)
        }
    }

    @Test("11. Re-created view: V2 shows the same ad with no request; next refresh at 30.600 s")
    func recreatedView() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 30))
        try await fixture.clock.perform {
            let renderer = try fixture.renderEachNewAd()
            defer { renderer.cancel() }
            let placement = try fixture.placement
            let v1 = await placement.attachView(visible: true)
            await fixture.advance(to: at(0.1))
            let shown = try #require(await placement.currentAd)
            #expect(shown.isShown)

            await fixture.advance(to: at(10.0))
            await placement.detachView(v1)
            await fixture.advance(to: at(10.5))
            _ = await placement.attachView(visible: true)
            let again = try #require(await placement.currentAd)
            #expect(again.ad === shown.ad)
            #expect(await placement.reportShown(again.ad) == .alreadyShown)
            #expect(fixture.requestCount == 3)

            await fixture.advance(to: at(30.599))
            #expect(fixture.auctionStarts == [at(0)])
            await fixture.advance(to: at(30.6))
            #expect(fixture.auctionStarts == [at(0), at(30.6)])
            #expect(try #require(fixture.netA.ads.first).releaseCount == 0)
            #expect(try #require(fixture.netA.ads.first).impressionCount == 1)
        }
    }
}

import Mediation
import MediationTestKit
import Testing

/// Engine rules R10 to R13 beyond the numbered scenarios, and the controller's host reports.
@Suite("Placement behaviour")
struct PlacementBehaviourTests {
    @Test("R12: a shown ad is never released, through refreshes and destroy; it is retired")
    func shownNeverReleased() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 30))
        try await fixture.clock.perform {
            let renderer = try fixture.renderEachNewAd()
            defer { renderer.cancel() }
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(95))
            await placement.destroy()
            await fixture.advance(to: at(200))

            #expect(fixture.auctionStarts == [at(0), at(30.1), at(60.2), at(90.3)])
            #expect(fixture.netA.ads.count == 4)
            for ad in fixture.netA.ads {
                #expect(ad.releaseCount == 0)
                #expect(ad.impressionCount == 1)
            }
            #expect(fixture.recorder.count("retired") == 4)
            #expect(fixture.recorder.count("released") == 0)
            #expect(fixture.clock.sleeperCount == 0)
        }
    }

    @Test("a render failure releases the ad and falls back to an auction without its line item")
    func renderFailureFallsBack() async throws {
        let fixture = try PlacementFixture(
            placement: PlacementFixture.levelEnd,
            netA: [.after(ms(100), .fill)],
            netB: [.after(ms(100), .fill)]
        )
        try await fixture.clock.perform {
            let placement = try fixture.placement
            let load = try await fixture.startLoad()
            await fixture.advance(to: at(0.1))
            let first = try #require(await load.value.ad)
            #expect(first.lineItem.id == "neta")

            await fixture.advance(to: at(1))
            let requestsBefore = fixture.requestCount
            let fallback = fixture.clock.startTask { await placement.reportRenderFailure(first.ad) }
            #expect(await fixture.clock.settle { fixture.requestCount > requestsBefore })
            await fixture.advance(to: at(1.1))
            let second = try #require(await fallback.value.ad)
            #expect(second.lineItem.id == "netb")
            #expect(second.eCPM == 0.80)
            #expect(fixture.netA.requestCount == 1)
            #expect(fixture.netB.requestCount == 2)
            #expect(try #require(fixture.netA.ads.first).releaseCount == 1)
            #expect(try #require(fixture.netB.ads.last).releaseCount == 0)
            #expect(fixture.recorder.count("render_failed") == 1)
            #expect(fixture.auctionStarts == [at(0), at(1)])
            let reasons: [MediationEvent.ReleaseReason] = fixture.recorder.events.compactMap {
                if case .released(_, let reason, _) = $0 { return reason }
                return nil
            }
            #expect(reasons == [.renderFailure])
        }
    }

    @Test("R13: a network-supplied refresh interval applies, raised to 30 with a warning when lower", arguments: [
        (15 as Int?, 30.1, true),
        (45, 45.1, false),
        (nil, 60.1, false),
    ])
    func serverRefreshInterval(serverSeconds: Int?, nextRefresh: Double, warns: Bool) async throws {
        let fixture = try PlacementFixture(
            placement: PlacementFixture.homeBanner(refreshSeconds: 60),
            netAAds: .init(serverRefreshSeconds: serverSeconds)
        )
        try await fixture.clock.perform {
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(0.1))
            #expect(await placement.nextRefreshDue == at(nextRefresh))
            await fixture.advance(to: at(nextRefresh) - ms(1))
            #expect(fixture.auctionStarts == [at(0)])
            await fixture.advance(to: at(nextRefresh))
            #expect(fixture.auctionStarts == [at(0), at(nextRefresh)])
            let warnings = fixture.logger.warnings
            #expect(warnings.count == (warns ? 1 : 0))
            if warns { #expect(warnings.first?.contains("15 s") == true) }
        }
    }

    @Test("R13: a failed refresh keeps the current ad and starts a new count")
    func failedRefreshKeepsAd() async throws {
        let fixture = try PlacementFixture(
            placement: PlacementFixture.homeBanner(refreshSeconds: 30),
            netA: [.after(ms(100), .fill), .after(ms(50), .noFill)]
        )
        try await fixture.clock.perform {
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(0.1))
            let first = try #require(await placement.currentAd)
            await fixture.advance(to: at(30.15))
            #expect(fixture.auctionStarts == [at(0), at(30.1)])
            #expect(fixture.recorder.instants("auction_finished") == [at(0.1), at(30.15)])
            #expect(await placement.currentAd?.ad === first.ad)
            #expect(await placement.nextRefreshDue == at(60.15))
            await fixture.advance(to: at(60.15))
            #expect(fixture.auctionStarts == [at(0), at(30.1), at(60.15)])
            #expect(try #require(fixture.netA.ads.first).releaseCount == 0)
        }
    }

    @Test("R13: one timer task per placement, however many views, loads and visibility changes")
    func oneTimer() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 30))
        try await fixture.clock.perform {
            let renderer = try fixture.renderEachNewAd()
            defer { renderer.cancel() }
            let placement = try fixture.placement
            var views: [Placement.ViewID] = []
            for _ in 0..<5 { views.append(await placement.attachView(visible: true)) }
            var loads = [try await fixture.startLoad()]
            for _ in 0..<2 { loads.append(try await fixture.startLoad(joining: true)) }
            await fixture.advance(to: at(1))
            for load in loads { #expect(await load.value.ad != nil) }
            for (index, view) in views.enumerated() {
                await placement.setVisible(index.isMultiple(of: 2), for: view)
                _ = await placement.load()
                await fixture.clock.runUntilIdle()
                #expect(fixture.clock.sleeperCount == 1)
            }
            await fixture.engine.setForeground(false)
            await fixture.clock.runUntilIdle()
            #expect(fixture.clock.sleeperCount == 0)
            #expect(await placement.timerWakeUp == nil)
            await fixture.engine.setForeground(true)
            await fixture.clock.runUntilIdle()
            #expect(fixture.clock.sleeperCount == 1)
            await fixture.advance(to: at(100))
            #expect(fixture.auctionStarts == [at(0), at(30.1), at(60.2), at(90.3)])
        }
    }

    @Test("R10: with a fresh ad, load() and new views make no request")
    func freshAdNoRequest() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.levelEnd)
        try await fixture.clock.perform {
            let placement = try fixture.placement
            let first = try await fixture.startLoad()
            await fixture.advance(to: at(0.1))
            let ad = try #require(await first.value.ad)
            for _ in 0..<3 {
                #expect(await placement.load().ad?.ad === ad.ad)
                _ = await placement.attachView(visible: true)
            }
            await fixture.advance(to: at(10))
            #expect(fixture.requestCount == 3)
            #expect(fixture.auctionStarts == [at(0)])
        }
    }

    @Test("a shown interstitial is used up: the next load runs an auction and retires it")
    func interstitialUsedUp() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.levelEnd)
        try await fixture.clock.perform {
            let placement = try fixture.placement
            let first = try await fixture.startLoad()
            await fixture.advance(to: at(0.1))
            let ad = try #require(await first.value.ad)
            guard case .impression = await placement.reportShown(ad.ad) else {
                Issue.record("expected an impression")
                return
            }
            let second = try await fixture.startLoad()
            await fixture.advance(to: at(0.2))
            #expect(try #require(await second.value.ad).ad !== ad.ad)
            #expect(fixture.recorder.count("retired") == 1)
            #expect(try #require(fixture.netA.ads.first).releaseCount == 0)
        }
    }

    @Test("clicks count once, only after the impression, including on a just-retired ad")
    func clicks() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 30))
        try await fixture.clock.perform {
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(0.1))
            let ad = try #require(fixture.netA.ads.first)
            #expect(await placement.reportClick(ad) == false)
            _ = await placement.reportShown(ad)
            #expect(await placement.reportShown(ad) == .alreadyShown)
            #expect(await placement.reportClick(ad) == true)
            #expect(await placement.reportClick(ad) == false)
            #expect(ad.clickCount == 1)
            #expect(ad.impressionCount == 1)

            await fixture.advance(to: at(30.2))
            let next = try #require(fixture.netA.ads.last)
            #expect(next !== ad)
            _ = await placement.reportShown(next)
            #expect(await placement.reportShown(ad) == .alreadyShown)
            #expect(await placement.reportClick(ad) == false)
            #expect(await placement.reportClick(next) == true)
            #expect(fixture.recorder.count("clicked") == 2)
        }
    }

    @Test("slot resize: a refitting ad keeps its place; otherwise the next auction asks the new size", arguments: [true, false])
    func slotResize(refits: Bool) async throws {
        let fixture = try PlacementFixture(
            placement: PlacementFixture.homeBanner(refreshSeconds: 30),
            netAAds: .init(refitsInPlace: refits)
        )
        try await fixture.clock.perform {
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(0.1))
            let newSlot = SlotSize(maxWidth: 300, maxHeight: 90)
            let refitted = await placement.slotDidResize(newSlot)
            #expect(refitted == (refits ? AdSize(width: 300, height: 46.875) : nil))
            #expect(try #require(fixture.netA.ads.first).refitRequests == [newSlot])
            await fixture.advance(to: at(30.2))
            #expect(fixture.netA.requests.map(\.slot) == [SlotSize(maxWidth: 390, maxHeight: 90), newSlot])
        }
    }

    @Test("destroy releases an unshown ad once; later loads say destroyed; the engine makes a new controller")
    func destroy() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.levelEnd)
        try await fixture.clock.perform {
            let placement = try fixture.placement
            let load = try await fixture.startLoad()
            await fixture.advance(to: at(0.1))
            _ = try #require(await load.value.ad)
            await placement.destroy()
            await placement.destroy()
            let ad = try #require(fixture.netA.ads.first)
            #expect(ad.releaseCount == 1)
            guard case .destroyed = await placement.load() else {
                Issue.record("expected destroyed")
                return
            }
            let fresh = try fixture.placement
            #expect(fresh !== placement)
            #expect(fixture.engine.placement("level_end") === fresh)
            #expect(fixture.engine.placement("nope") == nil)
        }
    }

    @Test("destroy during an auction: the winner is released when it arrives and callers get destroyed")
    func destroyDuringAuction() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.levelEnd)
        try await fixture.clock.perform {
            let placement = try fixture.placement
            let load = try await fixture.startLoad()
            await fixture.advance(to: at(0.05))
            await placement.destroy()
            await fixture.advance(to: at(4))
            guard case .destroyed = await load.value else {
                Issue.record("expected destroyed")
                return
            }
            for ad in fixture.netA.ads { #expect(ad.releaseCount == 1) }
            #expect(await placement.currentAd == nil)
        }
    }
}

import Mediation
import MediationTestKit
import Testing

/// Red-team attacks on the placement and engine life cycle: odd host events (background during
/// an auction, foreground flapping, shutdown with ads loaded, shown and outstanding, shutdown
/// twice, load after shutdown, many placements at once) and a network whose ads expire at once.
/// Each checks the invariant "every loaded ad is shown, or released exactly once" (R7, R12, R14)
/// and that nothing is asked of a network after shutdown (R18).
@Suite("Hostile host events (R7, R12, R13, R14, R18)")
struct HostileHostEventTests {
    /// Every ad the adapters handed out is either shown (never released) or released exactly once.
    static func expectEveryAdAccountedFor(_ adapters: [ScriptedAdapter], sourceLocation: SourceLocation = #_sourceLocation) {
        for adapter in adapters {
            for ad in adapter.ads {
                if ad.impressionCount > 0 {
                    #expect(ad.impressionCount == 1, "\(ad.id) counted \(ad.impressionCount) impressions", sourceLocation: sourceLocation)
                    #expect(ad.releaseCount == 0, "shown ad \(ad.id) released \(ad.releaseCount) times", sourceLocation: sourceLocation)
                } else {
                    #expect(ad.releaseCount == 1, "unshown ad \(ad.id) released \(ad.releaseCount) times", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test("a network whose ads live 1 ms does not turn a visible, unrendered banner into an auction storm")
    func oneMillisecondTTLDoesNotStorm() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 30), netAAds: .init(timeToLive: .milliseconds(1)))
        try await fixture.clock.perform {
            let placement = try fixture.placement
            // The host attaches a visible view but never renders (a slow renderer): every ad
            // expires unshown 1 ms after it arrives.
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(120))
            // A refresh every 30 s, plus at most one immediate reload after each expiry: the
            // network is asked at most 2 x (120 / 30 + 1) times, not once per round trip.
            #expect(fixture.auctionStarts.count <= 10, "\(fixture.auctionStarts.count) auctions in 120 s")
            await fixture.engine.shutdown()
        }
        Self.expectEveryAdAccountedFor([fixture.bid, fixture.netA, fixture.netB])
    }

    @Test("ads that live 40 s (at least the shortest refresh) still reload at once after each expiry")
    func fortySecondTTLReloadsAtOnce() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 60), netAAds: .init(timeToLive: .seconds(40)))
        try await fixture.clock.perform {
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(85))
            #expect(fixture.auctionStarts == [at(0), at(40.1), at(80.2)])
            await fixture.engine.shutdown()
        }
        Self.expectEveryAdAccountedFor([fixture.bid, fixture.netA, fixture.netB])
    }

    @Test("a TTL of 0 (expired on arrival) counts as no fill and waits for the refresh")
    func zeroTTLIsNoFillAndWaits() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 30), netAAds: .init(timeToLive: .zero))
        try await fixture.clock.perform {
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(95))
            #expect(fixture.auctionStarts == [at(0), at(30.1), at(60.2), at(90.3)])
            #expect(await placement.currentAd == nil)
            await fixture.engine.shutdown()
        }
        Self.expectEveryAdAccountedFor([fixture.bid, fixture.netA, fixture.netB])
    }

    @Test("the app goes to the background during an auction: the auction ends, the ad is kept, no refresh runs in the background")
    func backgroundDuringAuction() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 30))
        try await fixture.clock.perform {
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(0.05))
            await fixture.engine.setForeground(false)
            await fixture.advance(to: at(0.1))
            #expect(await placement.currentAd != nil)
            let before = fixture.auctionStarts.count
            await fixture.advance(to: at(600))
            #expect(fixture.auctionStarts.count == before, "no refresh in the background")
            await fixture.engine.setForeground(true)
            await fixture.advance(to: at(630.2))
            #expect(fixture.auctionStarts.count == before + 1, "the refresh count resumes in the foreground")
            await fixture.engine.shutdown()
        }
        Self.expectEveryAdAccountedFor([fixture.bid, fixture.netA, fixture.netB])
    }

    @Test("foreground / background flapping 500 times, with auctions and renders in between, loses and double-releases nothing")
    func foregroundFlapping() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 30), netA: [.after(ms(100), .fill), .after(ms(40), .noFill), .after(ms(70), .fill)])
        let renderer = try fixture.renderEachNewAd()
        try await fixture.clock.perform {
            let placement = try fixture.placement
            let view = await placement.attachView(visible: true)
            for step in 0..<500 {
                await fixture.engine.setForeground(step % 2 == 1)
                if step % 7 == 0 { await placement.setVisible(step % 14 == 0, for: view) }
                await fixture.advance(to: fixture.clock.now + ms(Int64(13 + step % 50)))
            }
            await fixture.engine.setForeground(true)
            await placement.setVisible(true, for: view)
            await fixture.advance(to: fixture.clock.now + .seconds(120))
            await fixture.engine.shutdown()
            await fixture.clock.runUntilIdle()
        }
        renderer.cancel()
        #expect(fixture.auctionStarts.count >= 2)
        Self.expectEveryAdAccountedFor([fixture.bid, fixture.netA, fixture.netB])
    }

    @Test("shutdown with one ad shown, one loaded unshown and one auction outstanding; shutdown twice; nothing after")
    func shutdownWithAdsInEveryState() async throws {
        let clock = ManualClock()
        let shown = ScriptedAdapter(network: "shown", pricing: .fixedPrice, clock: clock, script: [.after(ms(10), .fill)])
        let unshown = ScriptedAdapter(network: "unshown", pricing: .fixedPrice, clock: clock, script: [.after(ms(10), .fill)])
        let hanging = ScriptedAdapter(network: "hanging", pricing: .fixedPrice, clock: clock, script: [.after(.seconds(2), .fill)])
        let placements = [
            MediationConfiguration.Placement(id: "a_shown", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxHeight: 90), refreshSeconds: 30, sources: [.fixedPrice("shown_li", network: "shown", eCPM: 1)]),
            MediationConfiguration.Placement(id: "b_unshown", format: .interstitial, sources: [.fixedPrice("unshown_li", network: "unshown", eCPM: 1)]),
            MediationConfiguration.Placement(id: "c_outstanding", format: .interstitial, sources: [.fixedPrice("hanging_li", network: "hanging", eCPM: 1)]),
        ]
        let test = try TestEngine(placements: placements, adapters: [shown, unshown, hanging], clock: clock)
        try await clock.perform {
            let engine = test.engine
            let a = try #require(engine.placement("a_shown"))
            let b = try #require(engine.placement("b_unshown"))
            let c = try #require(engine.placement("c_outstanding"))
            _ = await a.attachView(visible: true)
            let bLoad = clock.startTask { await b.load() }
            let cLoad = clock.startTask { await c.load() }
            await clock.advance(to: at(0.5))
            let current = try #require(await a.currentAd?.ad)
            guard case .impression = await a.reportShown(current) else {
                Issue.record("the banner's ad did not count")
                return
            }
            #expect(await bLoad.value.ad != nil)
            let outstanding = hanging.requestCount
            #expect(outstanding == 1)

            await engine.shutdown()
            await engine.shutdown() // twice: nothing more happens
            guard case .destroyed = await cLoad.value else {
                Issue.record("the outstanding load did not end destroyed")
                return
            }
            #expect(engine.isShutDown)
            #expect(engine.placement("a_shown") == nil)
            #expect(await engine.runAuction(placementID: "a_shown") == nil)
            // The old controllers are destroyed: loading one asks nobody.
            guard case .destroyed = await b.load() else {
                Issue.record("a destroyed controller loaded")
                return
            }
            #expect(await a.attachView(visible: true).rawValue > 0)
            await engine.setForeground(false)
            await engine.setForeground(true)
            await engine.willResignActive()
            await clock.advance(to: at(3600))
            #expect(shown.requestCount == 1 && unshown.requestCount == 1 && hanging.requestCount == 1, "no request after shutdown")
            // The hanging source answered after shutdown: its late ad is released too.
            #expect(hanging.ads.count == 1)
        }
        #expect(shown.lifeCycleCalls.filter { $0 == .shutdown }.count == 1, "each adapter hears shutdown once")
        #expect(shown.lifeCycleCalls.last == .shutdown, "nothing after shutdown: \(shown.lifeCycleCalls)")
        Self.expectEveryAdAccountedFor([shown, unshown, hanging])
    }

    @Test("a one-shot auction in flight when the engine shuts down still answers once, by its deadline")
    func shutdownDuringOneShotAuction() async throws {
        let clock = ManualClock()
        let slow = ScriptedAdapter(network: "slow", pricing: .fixedPrice, clock: clock, script: [.after(.seconds(1), .fill)])
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, deadline: .milliseconds(1500), sources: [.fixedPrice("slow_li", network: "slow", eCPM: 1)])
        let test = try TestEngine(placements: [placement], adapters: [slow], clock: clock)
        try await clock.perform {
            let task = await test.startAuction("p")
            await test.engine.shutdown()
            await clock.advance(to: at(5))
            let outcome = try #require(await task.value)
            // The winner belongs to the caller (the one-shot contract); it is released once.
            outcome.winner?.ad.releaseResources()
            #expect(slow.requestCount == 1)
        }
        Self.expectEveryAdAccountedFor([slow])
    }

    @Test("200 refreshing placements at once, rendered, hidden and destroyed at random: every ad accounted for")
    func manyPlacementsAtOnce() async throws {
        let clock = ManualClock()
        let fast = ScriptedAdapter(network: "fast", pricing: .fixedPrice, clock: clock) { index, _ in
            index % 5 == 4 ? .after(ms(20), .noFill) : .after(ms(Int64(10 + index % 90)), .fill)
        }
        let bidder = ScriptedAdapter(network: "bidder", pricing: .bidder, clock: clock) { index, _ in
            index % 3 == 0 ? .after(ms(Int64(30 + index % 60)), .bid(Double(index % 4) + 0.5)) : .after(ms(50), .noFill)
        }
        let placements = (0..<200).map { index in
            MediationConfiguration.Placement(id: "p\(index)", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxHeight: 90), refreshSeconds: 30 + index % 4 * 15, sources: [
                .bidder("bid_\(index)", network: "bidder", floor: 0.2),
                .fixedPrice("fast_\(index)", network: "fast", eCPM: 1),
            ])
        }
        let test = try TestEngine(placements: placements, adapters: [fast, bidder], clock: clock)
        try await clock.perform {
            var controllers: [Placement] = []
            var views: [Placement.ViewID] = []
            for index in 0..<200 {
                let placement = try #require(test.engine.placement("p\(index)"))
                controllers.append(placement)
                views.append(await placement.attachView(visible: true))
            }
            for round in 0..<20 {
                await clock.advance(to: clock.now + .seconds(17))
                for (index, placement) in controllers.enumerated() {
                    switch (index + round) % 6 {
                    case 0: if let ad = await placement.currentAd?.ad { _ = await placement.reportShown(ad) }
                    case 1: await placement.setVisible(round % 2 == 0, for: views[index])
                    case 2 where round == 10 && index % 10 == 2: await placement.destroy()
                    default: break
                    }
                }
            }
            await test.engine.shutdown()
            await clock.advance(to: clock.now + .seconds(10))
        }
        #expect(fast.ads.count + bidder.ads.count > 400)
        Self.expectEveryAdAccountedFor([fast, bidder])
    }

    @Test("a careless host: shows another placement's ad, shows twice, clicks before showing, and reports every ad as failing to render")
    func carelessHost() async throws {
        let clock = ManualClock()
        let net = ScriptedAdapter(network: "net", pricing: .fixedPrice, clock: clock, script: [.after(ms(10), .fill)])
        let sources: [LineItem] = (0..<4).map { .fixedPrice("li_\($0)", network: "net", eCPM: Double(4 - $0)) }
        let placements = [
            MediationConfiguration.Placement(id: "one", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxHeight: 90), refreshSeconds: 30, sources: sources),
            MediationConfiguration.Placement(id: "two", format: .native, slot: SlotSize(maxHeight: 100), sources: sources),
        ]
        let test = try TestEngine(placements: placements, adapters: [net], clock: clock)
        let ran: Void? = await clock.run {
            guard let one = test.engine.placement("one"), let two = test.engine.placement("two") else {
                Issue.record("no placements")
                return
            }
            _ = await one.attachView(visible: true)
            _ = await two.attachView(visible: true)
            guard let adOne = await one.load().ad?.ad, let adTwo = await two.load().ad?.ad else {
                Issue.record("no ads")
                return
            }
            #expect(await one.reportShown(adTwo) == .notCurrent)
            #expect(await one.reportClick(adOne) == false, "a click before the impression does not count")
            guard case .impression = await one.reportShown(adOne) else {
                Issue.record("the impression did not count")
                return
            }
            #expect(await one.reportShown(adOne) == .alreadyShown)
            // Every ad fails to render: each failure excludes its line item, so the chain ends.
            var failures = 0
            while let current = await two.currentAd?.ad, failures < 10 {
                failures += 1
                if case .noFill = await two.reportRenderFailure(current) { break }
            }
            #expect(failures <= 4, "\(failures) render failures")
            #expect(await two.currentAd == nil)
        }
        #expect(ran != nil, "the host's calls stalled")
        await clock.perform { await test.engine.shutdown() }
        Self.expectEveryAdAccountedFor([net])
    }

    @Test(
        "a network that hands the same ad object to two line items: the second is an invalid answer (3), the winner's ad is never released"
    )
    func sameAdObjectForTwoLineItems() async throws {
        let clock = ManualClock()
        let shared = ScriptedAd(id: "shared-ad", network: "net", format: .interstitial, size: AdSize(width: 390, height: 844))
        let net = ScriptedAdapter(network: "net", pricing: .fixedPrice, clock: clock, script: [.after(ms(10), .fillWith(shared))])
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, sources: [
            .fixedPrice("high", network: "net", eCPM: 2),
            .fixedPrice("low", network: "net", eCPM: 1),
        ])
        let test = try TestEngine(placements: [placement], adapters: [net], clock: clock)
        let outcome = try await clock.perform { try await test.runAuction("p") }
        #expect(outcome.winner?.lineItem.id == "high")
        #expect(shared.releaseCount == 0, "the winner's ad was released \(shared.releaseCount) times because a loser carried the same object")
        #expect(outcome.trace.sources.map(\.outcome) == [.won, .lost(.invalidResponse)])
        outcome.winner?.ad.releaseResources()
        #expect(shared.releaseCount == 1)
    }

    @Test("the same ad object for two line items, the later-listed one answering first: the earlier-listed line item still holds it and wins; released once")
    func sameAdObjectArrivingInReverseOrder() async throws {
        let clock = ManualClock()
        let shared = ScriptedAd(id: "shared-ad", network: "net", format: .interstitial, size: AdSize(width: 390, height: 844))
        // Asked in config order: "high" answers at 20 ms, "low" at 10 ms.
        let net = ScriptedAdapter(network: "net", pricing: .fixedPrice, clock: clock, script: [.after(ms(20), .fillWith(shared)), .after(ms(10), .fillWith(shared))])
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, sources: [
            .fixedPrice("high", network: "net", eCPM: 2),
            .fixedPrice("low", network: "net", eCPM: 1),
        ])
        let test = try TestEngine(placements: [placement], adapters: [net], clock: clock)
        let outcome = try await clock.perform { try await test.runAuction("p") }
        #expect(outcome.winner?.lineItem.id == "high")
        #expect(outcome.trace.sources.map(\.outcome) == [.won, .lost(.invalidResponse)])
        #expect(shared.releaseCount == 0)
        outcome.winner?.ad.releaseResources()
        #expect(shared.releaseCount == 1)
    }

    @Test("host calls from 32 concurrent tasks on the system clock, shutdown in the middle: every ad shown or released exactly once")
    func concurrentHostCallsAndShutdown() async throws {
        let clock = SystemClock()
        let instant = ScriptedAdapter(network: "instant", pricing: .fixedPrice, clock: clock) { index, _ in
            index % 4 == 3 ? .after(.zero, .noFill) : .after(.zero, .fill)
        }
        let bidder = ScriptedAdapter(network: "bidder", pricing: .bidder, clock: clock) { index, _ in
            .after(.zero, .bid(Double(index % 5) + 0.25))
        }
        let placements = (0..<8).map { index in
            MediationConfiguration.Placement(id: "p\(index)", format: index % 2 == 0 ? .banner : .interstitial, bannerSizing: index % 2 == 0 ? .anchored : nil, slot: SlotSize(maxHeight: 90), refreshSeconds: index % 2 == 0 ? 30 : nil, deadline: .milliseconds(500), sources: [
                .bidder("b\(index)", network: "bidder", floor: 0.1),
                .fixedPrice("f\(index)", network: "instant", eCPM: 1),
            ])
        }
        var networks = PrebuiltNetworks()
        networks.add("instant", pricing: .fixedPrice, adapter: instant)
        networks.add("bidder", pricing: .bidder, adapter: bidder)
        let live = try MediationEngine(configuration: networks.configuration(placements: placements), registry: networks.registry, environment: MediationEnvironment(clock: clock))
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<32 {
                group.addTask {
                    for step in 0..<25 {
                        if worker == 17, step == 20 {
                            await live.shutdown()
                            continue
                        }
                        let id = "p\((worker + step) % 8)"
                        if step % 9 == 4 {
                            if let outcome = await live.runAuction(placementID: id) { outcome.winner?.ad.releaseResources() }
                            continue
                        }
                        guard let placement = live.placement(id) else { continue }
                        switch (worker + step) % 5 {
                        case 0: _ = await placement.load()
                        case 1: if let ad = await placement.currentAd?.ad { _ = await placement.reportShown(ad) }
                        case 2: let view = await placement.attachView(visible: true); await placement.setVisible(false, for: view)
                        case 3: await live.setForeground(step % 2 == 0)
                        default: if step % 13 == 0 { await placement.destroy() } else { _ = await placement.load() }
                        }
                    }
                }
            }
        }
        await live.shutdown()
        // Every answer is immediate; let any task still finishing its release run (no wall-clock sleep).
        for _ in 0..<10_000 where !Self.accounted([instant, bidder]) {
            await Task.yield()
        }
        Self.expectEveryAdAccountedFor([instant, bidder])
    }

    /// Whether every ad is shown or released (the condition ``expectEveryAdAccountedFor`` checks).
    static func accounted(_ adapters: [ScriptedAdapter]) -> Bool {
        adapters.allSatisfy { $0.ads.allSatisfy { $0.impressionCount > 0 || $0.releaseCount > 0 } }
    }

    @Test("a host's loop over events() ends at shutdown; a stream asked for after shutdown is already finished", .timeLimit(.minutes(10)))
    func eventStreamsEndAtShutdown() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 30))
        let stream = fixture.engine.events()
        let consumer = Task { () -> Int in
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        try await fixture.clock.perform {
            _ = try await fixture.placement.attachView(visible: true)
            await fixture.advance(to: at(65))
            await fixture.engine.shutdown()
        }
        let received = await consumer.value
        #expect(received >= 6, "the stream saw the auctions before shutdown: \(received) events")
        var after = 0
        for await _ in fixture.engine.events() { after += 1 }
        #expect(after == 0)
    }
}

import Mediation
import MediationTestKit
import Testing

/// The one assembly: building from a configuration, a registry and an environment; the
/// adapters' life cycle (engine rule R18) and auction notices; shutdown.
@Suite("MediationEngine")
struct MediationEngineTests {
    private static func adapters(_ clock: ManualClock) -> (bid: ScriptedAdapter, netA: ScriptedAdapter, netB: ScriptedAdapter) {
        (
            ScriptedAdapter(network: "bid", pricing: .bidder, clock: clock, script: [.after(ms(50), .bid(2.00))]),
            ScriptedAdapter(network: "neta", pricing: .fixedPrice, clock: clock, script: [.after(ms(100), .fill)]),
            ScriptedAdapter(network: "netb", pricing: .fixedPrice, clock: clock, script: [.after(ms(30), .noFill)])
        )
    }

    @Test("a network whose kind the registry lacks fails the build with its JSON path; nothing is asked")
    func unknownKindFailsTheBuild() throws {
        let clock = ManualClock()
        let (bid, netA, netB) = Self.adapters(clock)
        var networks = PrebuiltNetworks()
        networks.add("bid", pricing: .bidder, adapter: bid)
        networks.add("neta", pricing: .fixedPrice, adapter: netA)
        networks.add("netb", pricing: .fixedPrice, adapter: netB)
        var configuration = networks.configuration(placements: [PlacementFixture.levelEnd])
        configuration.networks[2].adapter = "nobody"
        #expect {
            _ = try MediationEngine(configuration: configuration, registry: networks.registry, environment: MediationEnvironment(clock: clock))
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.code == .unknownAdapter && error.path == "networks.netb.adapter"
        }
        #expect(bid.requestCount + netA.requestCount + netB.requestCount == 0)
    }

    @Test("a factory's configuration error reaches the caller with the JSON path it names")
    func factoryErrorsCarryTheirPath() {
        struct Picky: NetworkAdapterFactory {
            let kind = "picky"
            let pricing = LineItem.Pricing.fixedPrice
            func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
                throw ConfigurationError(code: .missingField, path: "networks.\(network.id).credentials.key", message: "required")
            }
        }
        let configuration = MediationConfiguration(
            networks: [MediationConfiguration.Network(id: "p", adapter: "picky")],
            placements: [MediationConfiguration.Placement(id: "x", format: .interstitial, sources: [.fixedPrice("x1", network: "p", eCPM: 1)])]
        )
        #expect {
            _ = try MediationEngine(configuration: configuration, registry: NetworkRegistry([Picky()]))
        } throws: { error in
            (error as? ConfigurationError)?.path == "networks.p.credentials.key"
        }
    }

    @Test("R18: the engine forwards background and foreground to every adapter, once per change")
    func lifeCycleReachesEveryAdapter() async throws {
        let clock = ManualClock()
        let (bid, netA, netB) = Self.adapters(clock)
        let engine = try TestEngine(placements: [PlacementFixture.levelEnd], adapters: [bid, netA, netB], clock: clock)
        await engine.engine.setForeground(false)
        await engine.engine.setForeground(false) // no change: not forwarded again
        await engine.engine.setForeground(true)
        for adapter in [bid, netA, netB] {
            #expect(adapter.lifeCycleCalls == [.didEnterBackground, .willEnterForeground])
        }
    }

    @Test("a new request template reaches every adapter before updateRequestTemplate returns, also after shutdown")
    func requestTemplateChangesReachEveryAdapterAtOnce() async throws {
        let clock = ManualClock()
        let (bid, netA, netB) = Self.adapters(clock)
        let engine = try TestEngine(placements: [PlacementFixture.levelEnd], adapters: [bid, netA, netB], clock: clock)
        let withdrawn = RequestTemplate(privacy: AdRequest.Privacy(userConsent: false))
        engine.engine.updateRequestTemplate(withdrawn)
        for adapter in [bid, netA, netB] {
            #expect(adapter.templates.map(\.privacy.userConsent) == [false])
        }
        await clock.startTask { await engine.engine.shutdown() }.value
        engine.engine.updateRequestTemplate(RequestTemplate())
        for adapter in [bid, netA, netB] {
            #expect(adapter.templates.map(\.privacy.userConsent) == [false, nil])
        }
    }

    @Test("R18: resigning active reaches every adapter (and leaves the foreground state alone); nothing after shutdown")
    func resignActiveReachesEveryAdapter() async throws {
        let clock = ManualClock()
        let (bid, netA, netB) = Self.adapters(clock)
        let engine = try TestEngine(placements: [PlacementFixture.levelEnd], adapters: [bid, netA, netB], clock: clock)
        await engine.engine.willResignActive()
        #expect(engine.engine.isForeground)
        await clock.startTask { await engine.engine.shutdown() }.value
        await engine.engine.willResignActive()
        for adapter in [bid, netA, netB] {
            #expect(adapter.lifeCycleCalls == [.willResignActive, .shutdown])
        }
    }

    @Test("R18: shutdown destroys every placement (an unshown ad released once), tells every adapter once, and the engine then runs nothing")
    func shutdownStopsEverything() async throws {
        let clock = ManualClock()
        let (bid, netA, netB) = Self.adapters(clock)
        let engine = try TestEngine(placements: [PlacementFixture.levelEnd], adapters: [bid, netA, netB], clock: clock)
        let placement = try #require(engine.engine.placement("level_end"))
        let load = clock.startTask { await placement.load() }
        await clock.advance(to: at(1))
        let loaded = try #require(await load.value.ad)
        #expect(loaded.lineItem.id == "bid")

        await clock.startTask { await engine.engine.shutdown() }.value
        await clock.startTask { await engine.engine.shutdown() }.value // a second call does nothing
        #expect(try #require(bid.ads.first).releaseCount == 1)
        for adapter in [bid, netA, netB] {
            #expect(adapter.lifeCycleCalls == [.shutdown])
        }
        #expect(await placement.destroyed)
        #expect(engine.engine.placement("level_end") == nil)
        #expect(await engine.engine.runAuction(placementID: "level_end") == nil)
        await engine.engine.setForeground(false)
        #expect(bid.lifeCycleCalls == [.shutdown])
        #expect(engine.engine.isShutDown)
    }

    @Test("every asked source's adapter hears the result: the winner its value, losers their loss reason and the value they had to beat")
    func auctionNoticesReachTheAdapters() async throws {
        let clock = ManualClock()
        let (bid, netA, netB) = Self.adapters(clock)
        let engine = try TestEngine(placements: [PlacementFixture.levelEnd], adapters: [bid, netA, netB], clock: clock)
        let outcome = try await engine.runAuction("level_end", until: .seconds(1))
        #expect(outcome.winner?.lineItem.id == "bid")

        let won = try #require(bid.notices.first)
        #expect(won.outcome == .won)
        #expect(won.eCPM == 2.00)
        // No other source brought a priced ad: the winner had nothing to beat.
        #expect(won.priceToBeat == nil)
        #expect(won.auctionID == outcome.trace.auctionID)
        #expect(won.placementID == "level_end")
        #expect(won.adID == bid.ads.first?.id)

        // NetA (fixed 1.20) answers at 100 ms, after the bid decided the auction at 50 ms.
        let cancelled = try #require(netA.notices.first)
        #expect(cancelled.outcome == .cancelled(couldNotBeat: 2.00))
        #expect(cancelled.priceToBeat == 2.00)
        let noFill = try #require(netB.notices.first)
        #expect(noFill.outcome == .noFill(.noInventory))
        #expect([bid, netA, netB].map(\.notices.count) == [1, 1, 1])
    }

    @Test("an adapter that hears no notices gets none; the others' notices are the same, the winner's price to beat included")
    func adaptersThatHearNoNoticesGetNone() async throws {
        let clock = ManualClock()
        let bid = ScriptedAdapter(network: "bid", pricing: .bidder, clock: clock, script: [.after(ms(50), .bid(2.00))])
        let netA = ScriptedAdapter(network: "neta", pricing: .fixedPrice, clock: clock, script: [.after(ms(30), .fill)], receivesNotices: false)
        let netB = ScriptedAdapter(network: "netb", pricing: .fixedPrice, clock: clock, script: [.after(ms(20), .noFill)], receivesNotices: false)
        let engine = try TestEngine(placements: [PlacementFixture.levelEnd], adapters: [bid, netA, netB], clock: clock)
        let outcome = try await engine.runAuction("level_end", until: .seconds(1))
        #expect(outcome.winner?.lineItem.id == "bid")
        #expect(netA.requestCount == 1)
        #expect(netA.notices.isEmpty)
        #expect(netB.notices.isEmpty)
        let won = try #require(bid.notices.first)
        #expect(won.outcome == .won)
        // NetA, which hears nothing, still brought the highest other valid value.
        #expect(won.priceToBeat == 1.20)
        #expect(bid.notices.count == 1)

        // No source hears notices: the auction runs the same and sends none.
        let clock2 = ManualClock()
        let deaf = [
            ScriptedAdapter(network: "bid", pricing: .bidder, clock: clock2, script: [.after(ms(50), .bid(2.00))], receivesNotices: false),
            ScriptedAdapter(network: "neta", pricing: .fixedPrice, clock: clock2, script: [.after(ms(30), .fill)], receivesNotices: false),
            ScriptedAdapter(network: "netb", pricing: .fixedPrice, clock: clock2, script: [.after(ms(20), .noFill)], receivesNotices: false),
        ]
        let engine2 = try TestEngine(placements: [PlacementFixture.levelEnd], adapters: deaf, clock: clock2)
        let outcome2 = try await engine2.runAuction("level_end", until: .seconds(1))
        #expect(outcome2.winner?.lineItem.id == "bid")
        #expect(outcome2.trace.sources.map(\.outcome) == outcome.trace.sources.map(\.outcome))
        #expect(deaf.allSatisfy { $0.notices.isEmpty })
    }

    @Test("a loser's notice carries loss reason 102 and the winning value")
    func loserNotice() async throws {
        let clock = ManualClock()
        let bid = ScriptedAdapter(network: "bid", pricing: .bidder, clock: clock, script: [.after(ms(200), .bid(3.50))])
        let netA = ScriptedAdapter(network: "neta", pricing: .fixedPrice, clock: clock, script: [.after(ms(100), .fill)])
        let netB = ScriptedAdapter(network: "netb", pricing: .fixedPrice, clock: clock, script: [.after(ms(30), .noFill)])
        let engine = try TestEngine(placements: [PlacementFixture.levelEnd], adapters: [bid, netA, netB], clock: clock)
        _ = try await engine.runAuction("level_end", until: .seconds(1))
        let lost = try #require(netA.notices.first)
        #expect(lost.outcome == .lost(.lostToHigherBid))
        #expect(lost.eCPM == 1.20)
        #expect(lost.priceToBeat == 3.50)
        #expect(lost.adUnitID == "")
    }

    @Test("one-shot auctions go through the engine: they publish auction_started and auction_finished")
    func oneShotAuctionsPublishEvents() async throws {
        let clock = ManualClock()
        let (bid, netA, netB) = Self.adapters(clock)
        let engine = try TestEngine(placements: [PlacementFixture.levelEnd], adapters: [bid, netA, netB], clock: clock)
        let outcome = try await engine.runAuction("level_end", until: .seconds(1))
        #expect(engine.recorder.names.prefix(2) == ["auction_started", "auction_finished"])
        guard case .auctionStarted(_, let reason, _, _, _, _, _)? = engine.recorder.events.first else {
            Issue.record("no auction_started event")
            return
        }
        #expect(reason == .oneShot)
        guard case .auctionFinished(_, let trace, _)? = engine.recorder.events(named: "auction_finished").first else {
            Issue.record("no auction_finished event")
            return
        }
        #expect(trace == outcome.trace)
    }

    @Test("new placements start in the engine's foreground state")
    func foregroundForNewPlacements() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 30))
        try await fixture.clock.perform {
            await fixture.engine.setForeground(false)
            #expect(!fixture.engine.isForeground)
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(100))
            #expect(fixture.auctionStarts == [at(0)])
            #expect(await placement.nextRefreshDue == nil)
            await fixture.engine.setForeground(true)
            #expect(await placement.nextRefreshDue == at(130))
        }
    }
}

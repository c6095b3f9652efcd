import Testing
import Mediation
import MediationTestKit

/// `docs/engine-rules.md`, section 4: scenarios 1 to 6, with their exact values on a manual clock.
@Suite("Auction scenarios (docs/engine-rules.md §4)")
struct AuctionScenarioTests {
    @Test("1. Late bid: ends at the deadline, NetA wins, the late bid is released on arrival")
    func lateBid() async throws {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(3400), .bid(5.00))],
            netA: [.after(.milliseconds(200), .fill)],
            netB: [.after(.milliseconds(300), .noFill)]
        )
        let task = await harness.start()
        await harness.clock.advance(to: .origin + .milliseconds(3000))
        let outcome = await task.value
        #expect(outcome.endedAt == 3000)
        #expect(outcome.winner?.lineItem.id == "NetA")
        #expect(outcome.winner?.eCPM == 1.20)
        #expect(harness.requestCount == 3)
        #expect(outcome.outcome(of: "Bid") == .timeout(.deadline))
        #expect(outcome.outcome(of: "NetB") == .noFill(.noInventory))
        // The bid arrives at 3400 ms: released once, on arrival.
        await harness.clock.advance(to: .origin + .milliseconds(3399))
        #expect(harness.bid.ads.isEmpty)
        await harness.clock.advance(to: .origin + .milliseconds(3400))
        let bidAd = try #require(harness.bid.ads.first)
        #expect(bidAd.releaseCount == 1)
        #expect(harness.lateAnswers.map(\.lineItemID) == ["Bid"])
        #expect(harness.lateAnswers.first?.arrivedAt == .origin + .milliseconds(3400))
        await harness.clock.advance(to: .origin + .seconds(10))
        let winnerAd = try #require(harness.netA.ads.first)
        #expect(winnerAd.releaseCount == 0)
        #expect(bidAd.releaseCount == 1)
    }

    @Test("1. Late bid, variant: the bid at 2900 ms wins and NetA's ad is released once")
    func bidJustBeforeTheDeadline() async throws {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(2900), .bid(5.00))],
            netA: [.after(.milliseconds(200), .fill)],
            netB: [.after(.milliseconds(300), .noFill)]
        )
        let outcome = await harness.run()
        #expect(outcome.endedAt == 2900)
        #expect(outcome.winner?.lineItem.id == "Bid")
        #expect(outcome.winner?.eCPM == 5.00)
        #expect(outcome.outcome(of: "NetA") == .lost(.lostToHigherBid))
        #expect(try #require(harness.netA.ads.first).releaseCount == 1)
        #expect(try #require(harness.bid.ads.first).releaseCount == 0)
    }

    @Test("2. Immediate error: ends at 150 ms, NetB cancelled, its ad released if it comes")
    func immediateError() async throws {
        let harness = AuctionHarness(
            bid: [.after(.zero, .error)],
            netA: [.after(.milliseconds(150), .fill)],
            netB: [.after(.milliseconds(250), .fill)]
        )
        let outcome = await harness.run()
        #expect(outcome.endedAt == 150)
        #expect(outcome.winner?.lineItem.id == "NetA")
        // R6a: cancelled with the value it could not beat.
        #expect(outcome.outcome(of: "NetB") == .cancelled(couldNotBeat: 1.20))
        #expect(outcome.outcome(of: "Bid").map { if case .error = $0 { true } else { false } } == true)
        // NetB's scripted adapter ignores cancellation: its ad arrives at 250 ms anyway.
        #expect(try #require(harness.netB.ads.first).releaseCount == 1)
        #expect(try #require(harness.netA.ads.first).releaseCount == 0)
    }

    @Test("2. Variant: a 2.00 bid at 0 ms ends the auction at 0 ms")
    func immediateBid() async throws {
        let harness = AuctionHarness(
            bid: [.after(.zero, .bid(2.00))],
            netA: [.after(.milliseconds(150), .fill)],
            netB: [.after(.milliseconds(250), .fill)]
        )
        let outcome = await harness.run()
        #expect(outcome.endedAt == 0)
        #expect(outcome.winner?.lineItem.id == "Bid")
        #expect(outcome.outcome(of: "NetA") == .cancelled(couldNotBeat: 2.00))
        #expect(outcome.outcome(of: "NetB") == .cancelled(couldNotBeat: 2.00))
        #expect(harness.netA.ads.map(\.releaseCount) == [1])
        #expect(harness.netB.ads.map(\.releaseCount) == [1])
    }

    @Test("2. Variant: all three fail at 0 ms: no fill at 0 ms")
    func allFail() async {
        let harness = AuctionHarness(bid: [.after(.zero, .error)], netA: [.after(.zero, .error)], netB: [.after(.zero, .noFill)])
        let outcome = await harness.run()
        #expect(outcome.endedAt == 0)
        #expect(outcome.winner == nil)
    }

    @Test("3. Silent adapter: ends at 3000 ms, NetB wins, NetA times out")
    func silentAdapter() async throws {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(100), .noFill)],
            netA: [.never],
            netB: [.after(.milliseconds(200), .fill)]
        )
        let outcome = await harness.run()
        #expect(outcome.endedAt == 3000)
        #expect(outcome.winner?.lineItem.id == "NetB")
        #expect(outcome.winner?.eCPM == 0.80)
        #expect(outcome.outcome(of: "NetA") == .timeout(.deadline))
        #expect(harness.requestCount == 3)
    }

    @Test("3. A placement whose only source never returns: no fill at 3000 ms; a new load at 3000 ms ends at 6000 ms; the first ad arriving at 10 s is released once")
    func onlySourceNeverReturns() async throws {
        let clock = ManualClock()
        let lateAd = ScriptedAd(id: "late-1", network: "NetA", format: .interstitial, size: AdSize(width: 390, height: 844))
        let netA = ScriptedAdapter(network: "NetA", pricing: .fixedPrice, clock: clock, script: [
            .after(.seconds(10), .fillWith(lateAd)),
            .never,
        ])
        let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [.fixedPrice("NetA", eCPM: 1.20)])
        let engine = try TestEngine(placements: [placement], adapters: [netA], clock: clock)
        let first = await engine.startAuction("level_end")
        #expect(netA.requestCount == 1)
        await clock.advance(to: .origin + .seconds(3))
        let firstOutcome = try #require(await first.value)
        #expect(firstOutcome.winner == nil)
        #expect(firstOutcome.endedAt == 3000)
        #expect(firstOutcome.outcome(of: "NetA") == .timeout(.deadline))

        let second = await engine.startAuction("level_end")
        #expect(netA.requestCount == 2)
        await clock.advance(to: .origin + .seconds(6))
        let secondOutcome = try #require(await second.value)
        #expect(secondOutcome.trace.startedAtMilliseconds == 3000)
        #expect(secondOutcome.endedAt == 6000)
        #expect(secondOutcome.winner == nil)

        await clock.advance(to: .origin + .seconds(10))
        #expect(lateAd.releaseCount == 1)
        #expect(lateAd.impressionCount == 0)
        #expect(engine.lateAnswers.count == 1)
        #expect(netA.requestCount == 2)
    }

    @Test("4. Success stops the clock: ends at 100 ms; nothing more happens by 10 s")
    func successStopsTheClock() async {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(100), .bid(2.00))],
            netA: [.after(.milliseconds(120), .noFill)],
            netB: [.after(.milliseconds(150), .noFill)]
        )
        let task = await harness.start()
        await harness.clock.advance(to: .origin + .milliseconds(100))
        let outcome = await task.value
        #expect(outcome.endedAt == 100)
        #expect(outcome.winner?.lineItem.id == "Bid")
        await harness.clock.advance(to: .origin + .seconds(10))
        #expect(harness.requestCount == 3)
        #expect(harness.clock.sleeperCount == 0)
        // The cancelled sources' no-fills come in late and carry no ad.
        #expect(harness.lateAnswers.allSatisfy { !$0.adReleased })
    }

    @Test("5. One outcome each: Bid won, NetB no fill, NetA timeout; nothing released")
    func oneOutcomeEach() async {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(200), .bid(1.00))],
            netA: [.never],
            netB: [.after(.milliseconds(100), .noFill)]
        )
        let outcome = await harness.run()
        #expect(outcome.endedAt == 3000)
        #expect(outcome.outcome(of: "Bid") == .won)
        #expect(outcome.outcome(of: "NetB") == .noFill(.noInventory))
        #expect(outcome.outcome(of: "NetA") == .timeout(.deadline))
        #expect(outcome.trace.sources.allSatisfy { !$0.adReleased })
        #expect(harness.bid.ads.map(\.releaseCount) == [0])
    }

    @Test("5. Variant: NetB loaded at 100 ms loses (102) to the bid and is released once")
    func oneOutcomeEachWithLoser() async throws {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(200), .bid(1.00))],
            netA: [.never],
            netB: [.after(.milliseconds(100), .fill)]
        )
        let outcome = await harness.run()
        #expect(outcome.endedAt == 3000)
        #expect(outcome.winner?.lineItem.id == "Bid")
        #expect(outcome.outcome(of: "NetB") == .lost(.lostToHigherBid))
        #expect(try #require(harness.netB.ads.first).releaseCount == 1)
    }

    @Test("6. Invalid prices: the bid is invalid (3) and released once; NetA wins at 200 ms", arguments: [0.0, -1.0, Double.nan, Double.infinity])
    func invalidPrices(price: Double) async throws {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(100), .bid(price))],
            netA: [.after(.milliseconds(200), .fill)],
            netB: [.after(.milliseconds(50), .noFill)]
        )
        let outcome = await harness.run()
        #expect(outcome.endedAt == 200)
        #expect(outcome.outcome(of: "Bid") == .lost(.invalidResponse))
        #expect(try #require(harness.bid.ads.first).releaseCount == 1)
        #expect(outcome.winner?.lineItem.id == "NetA")
    }
}

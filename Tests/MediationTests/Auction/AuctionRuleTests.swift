import Foundation
import Testing
@testable import Mediation
import MediationTestKit

/// Rules R1 to R8 beyond the scenarios: waterfall tiers, ties, floors, size and format,
/// per-source timeouts, currency, and a caller that gives up.
@Suite("Auction rules")
struct AuctionRuleTests {
    @Test("R1 waterfall: bidders at 0, then tiers by descending eCPM, each only after the one before answered without a fill")
    func waterfallAsksTierByTier() async {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(500), .noFill)],
            netA: [.after(.milliseconds(100), .noFill)],
            netB: [.after(.milliseconds(100), .fill)],
            mode: .waterfall
        )
        let task = await harness.start()
        #expect(harness.netB.requestCount == 0)
        await harness.clock.advance(to: .origin + .seconds(10))
        let outcome = await task.value
        #expect(harness.bid.requestInstants == [.origin])
        #expect(harness.netA.requestInstants == [.origin])
        #expect(harness.netB.requestInstants == [.origin + .milliseconds(100)])
        #expect(outcome.winner?.lineItem.id == "NetB")
        #expect(outcome.endedAt == 500)
        #expect(outcome.trace.source("NetB")?.startOffsetMilliseconds == 100)
        #expect(outcome.trace.source("NetB")?.latencyMilliseconds == 100)
    }

    @Test("R1 waterfall: a tier that fills stops the lower tiers, which are never asked")
    func waterfallStopsAtAFill() async {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(50), .noFill)],
            netA: [.after(.milliseconds(100), .fill)],
            netB: [.after(.milliseconds(100), .fill)],
            mode: .waterfall
        )
        let outcome = await harness.run()
        #expect(outcome.endedAt == 100)
        #expect(outcome.winner?.lineItem.id == "NetA")
        #expect(harness.netB.requestCount == 0)
        // R6a: a tier never reached is `not_asked`, not `cancelled`.
        #expect(outcome.outcome(of: "NetB") == .notAsked(.tierNotReached))
        #expect(outcome.trace.source("NetB")?.startOffsetMilliseconds == nil)
        #expect(outcome.trace.source("NetA")?.tier == 1)
        #expect(outcome.trace.source("NetB")?.tier == 2)
        #expect(outcome.trace.source("Bid")?.tier == nil)
    }

    @Test("R1 waterfall: a bid above a tier's eCPM means the tier is never asked")
    func waterfallSkipsTiersABidBeats() async {
        let harness = AuctionHarness(
            bid: [.after(.zero, .bid(1.00))],
            netA: [.after(.milliseconds(100), .noFill)],
            netB: [.after(.milliseconds(100), .fill)],
            mode: .waterfall
        )
        let outcome = await harness.run()
        // NetA (1.20) can still beat 1.00 and is asked; NetB (0.80) cannot and never is.
        #expect(outcome.endedAt == 100)
        #expect(outcome.winner?.lineItem.id == "Bid")
        #expect(harness.netA.requestCount == 1)
        #expect(harness.netB.requestCount == 0)
    }

    @Test("R2 bids below the source's floor and below the placement's floor lose with 100 and are released")
    func floors() async throws {
        let belowSourceFloor = AuctionHarness(
            bid: [.after(.milliseconds(10), .bid(0.49))],
            netA: [.after(.milliseconds(20), .noFill)],
            netB: [.after(.milliseconds(30), .noFill)]
        )
        let first = await belowSourceFloor.run()
        #expect(first.outcome(of: "Bid") == .lost(.belowFloor))
        #expect(try #require(belowSourceFloor.bid.ads.first).releaseCount == 1)
        #expect(first.winner == nil)

        let belowPlacementFloor = AuctionHarness(
            bid: [.after(.milliseconds(10), .bid(0.90))],
            netA: [.after(.milliseconds(20), .noFill)],
            netB: [.after(.milliseconds(30), .fill)],
            placementFloor: 1.00
        )
        let second = await belowPlacementFloor.run()
        #expect(second.outcome(of: "Bid") == .lost(.belowFloor))
        // NetB's fixed 0.80 is under the placement floor: never asked, it cannot win.
        #expect(belowPlacementFloor.netB.requestCount == 0)
        #expect(second.outcome(of: "NetB") == .notAsked(.underFloor))
        #expect(second.endedAt == 20)
    }

    @Test("R2 a bid equal to the floor in micros is accepted")
    func bidAtTheFloor() async {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(10), .bid(0.4999999999999999))],
            netA: [.after(.milliseconds(20), .noFill)],
            netB: [.after(.milliseconds(30), .noFill)]
        )
        let outcome = await harness.run()
        #expect(outcome.winner?.lineItem.id == "Bid")
        #expect(outcome.winner?.eCPM == 0.50)
    }

    @Test("R5 ties go to the earlier arrival")
    func tieGoesToTheEarlierArrival() async throws {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(300), .bid(1.20))],
            netA: [.after(.milliseconds(200), .fill)],
            netB: [.after(.milliseconds(10), .noFill)]
        )
        let outcome = await harness.run()
        #expect(outcome.winner?.lineItem.id == "NetA")
        #expect(outcome.outcome(of: "Bid") == .lost(.lostToHigherBid))
        #expect(try #require(harness.bid.ads.first).releaseCount == 1)
    }

    @Test("R5 ties at the same instant go to the source listed first, whichever is processed first; every time")
    func tieAtTheSameInstantGoesToConfigOrder() {
        for _ in 0..<5 {
            let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [.bidder("Bid"), .fixedPrice("NetA", eCPM: 1.20)])
            var machine = AuctionStateMachine(placement: placement, sources: placement.sources)
            _ = machine.start(at: .origin)
            let at = MediationInstant.origin + .milliseconds(200)
            let netAAd = ScriptedAd(id: "a", network: "NetA", format: .interstitial, size: AdSize(width: 390, height: 844))
            let bidAd = ScriptedAd(id: "b", network: "Bid", format: .interstitial, size: AdSize(width: 390, height: 844))
            let first = machine.answer(1, result: .fill(netAAd), at: at)
            #expect(!machine.isFinished)
            #expect(first.count == 1) // the decision waits for the end of the instant
            _ = machine.answer(0, result: .bid(bidAd, eCPM: 1.1999999999999999), at: at)
            _ = machine.endOfInstant(at: at)
            #expect(machine.isFinished)
            let outcome = machine.outcome(auctionID: "t")
            #expect(outcome.winner?.lineItem.id == "Bid")
            #expect(outcome.outcome(of: "NetA") == .lost(.lostToHigherBid))
        }
    }

    @Test("R8 an ad of the wrong format loses with 204; one too big for the slot with 203; both released")
    func sizeAndFormat() async throws {
        let clock = ManualClock()
        let wrongFormat = ScriptedAdapter(network: "Bid", pricing: .bidder, clock: clock, script: [.after(.milliseconds(10), .bid(3.0))], ads: .init(format: .banner, size: AdSize(width: 320, height: 50)))
        let tooBig = ScriptedAdapter(network: "NetA", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(20), .fill)], ads: .init(format: .banner, size: AdSize(width: 728, height: 90)))
        let fits = ScriptedAdapter(network: "NetB", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(30), .fill)], ads: .init(format: .banner, size: AdSize(width: 320, height: 50)))
        let placement = MediationConfiguration.Placement(
            id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxWidth: 390, maxHeight: 90),
            sources: [.bidder("Bid"), .fixedPrice("NetA", eCPM: 1.2), .fixedPrice("NetB", eCPM: 0.8)]
        )
        let nativeBid = ScriptedAdapter(network: "Bid", pricing: .bidder, clock: clock, script: [.after(.milliseconds(10), .bid(3.0))], ads: .init(format: .native, size: AdSize(width: 320, height: 50)))
        _ = wrongFormat
        let engine = try TestEngine(placements: [placement], adapters: [nativeBid, tooBig, fits], clock: clock)
        let outcome = try await engine.runAuction("home_banner", until: .seconds(1))
        #expect(fits.requestCount == 1 && tooBig.requestCount == 1 && nativeBid.requestCount == 1)
        #expect(outcome.outcome(of: "Bid") == .lost(.incorrectFormat))
        #expect(outcome.outcome(of: "NetA") == .lost(.sizeNotAllowed))
        #expect(outcome.winner?.lineItem.id == "NetB")
        #expect(try #require(nativeBid.ads.first).releaseCount == 1)
        #expect(try #require(tooBig.ads.first).releaseCount == 1)
        #expect(outcome.endedAt == 30)
    }

    @Test("R3 a source's own timeout ends its chance early; its late ad is released")
    func perSourceTimeout() async throws {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(100), .noFill)],
            netA: [.after(.milliseconds(800), .fill)],
            netB: [.after(.milliseconds(200), .fill)],
            netATimeout: .milliseconds(500)
        )
        let outcome = await harness.run()
        #expect(outcome.endedAt == 500)
        #expect(outcome.outcome(of: "NetA") == .timeout(.source))
        #expect(outcome.winner?.lineItem.id == "NetB")
        #expect(try #require(harness.netA.ads.first).releaseCount == 1)
        #expect(harness.netA.requests.first?.deadline == .origin + .milliseconds(500))
    }

    @Test("R3 a shorter placement deadline ends the auction sooner; an answer at the deadline instant counts (R6a)")
    func shorterDeadlineAndAnswerAtTheDeadline() async throws {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(1000), .bid(4.0))],
            netA: [.after(.milliseconds(200), .fill)],
            netB: [.after(.milliseconds(10), .noFill)],
            deadline: .milliseconds(1000)
        )
        let outcome = await harness.run()
        #expect(outcome.endedAt == 1000)
        #expect(outcome.trace.deadlineMilliseconds == 1000)
        #expect(outcome.trace.deadlineLengthMilliseconds == 1000)
        // The 4.00 bid arriving at exactly 1000 ms counts as arrived and wins; NetA loses.
        #expect(outcome.winner?.lineItem.id == "Bid")
        #expect(outcome.outcome(of: "Bid") == .won)
        #expect(outcome.trace.source("Bid")?.latencyMilliseconds == 1000)
        #expect(outcome.outcome(of: "NetA") == .lost(.lostToHigherBid))
        #expect(try #require(harness.bid.ads.first).releaseCount == 0)
        #expect(try #require(harness.netA.ads.first).releaseCount == 1)
    }

    @Test("R9 a source priced in another currency is converted once")
    func currencyConversion() async throws {
        let clock = ManualClock()
        let eur = ScriptedAdapter(network: "Eur", pricing: .bidder, clock: clock, script: [.after(.milliseconds(10), .bid(1.00))])
        let usd = ScriptedAdapter(network: "Usd", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(10), .fill)])
        var eurItem = LineItem.bidder("Eur")
        eurItem.currency = "EUR"
        eurItem.usdRate = 1.10
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, sources: [eurItem, .fixedPrice("Usd", eCPM: 1.05)])
        let engine = try TestEngine(placements: [placement], adapters: [eur, usd], clock: clock, currencyRates: ["EUR": 1.10])
        let outcome = try await engine.runAuction("p", until: .seconds(1))
        #expect(eur.requestCount == 1 && usd.requestCount == 1)
        #expect(outcome.winner?.lineItem.id == "Eur")
        #expect(outcome.winner?.eCPM == 1.10)
        #expect(outcome.trace.source("Eur")?.rawPrice == 1.00)
    }

    @Test("A caller that gives up gets no winner and every ad is released")
    func callerCancels() async throws {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(500), .bid(2.0))],
            netA: [.after(.milliseconds(100), .fill)],
            netB: [.after(.milliseconds(50), .noFill)]
        )
        let task = await harness.start()
        await harness.clock.advance(to: .origin + .milliseconds(200))
        task.cancel()
        let outcome = await task.value
        #expect(outcome.winner == nil)
        #expect(try #require(harness.netA.ads.first).releaseCount == 1)
        await harness.clock.advance(to: .origin + .seconds(1))
        #expect(try #require(harness.bid.ads.first).releaseCount == 1)
    }

    @Test("The trace encodes to JSON with snake_case keys and OpenRTB loss reasons")
    func traceEncodesToJSON() async throws {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(200), .bid(1.00))],
            netA: [.never],
            netB: [.after(.milliseconds(100), .fill)]
        )
        let outcome = await harness.run()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(outcome.trace), as: UTF8.self)
        #expect(json.contains(#""loss_reason":102"#))
        #expect(json.contains(#""status":"timeout""#))
        #expect(json.contains(#""winner":"Bid""#))
        let decoded = try JSONDecoder().decode(AuctionTrace.self, from: Data(json.utf8))
        #expect(decoded == outcome.trace)
    }
}

@Suite("Auction trace for people")
struct AuctionTraceDescriptionTests {
    @Test func readsAsATable() async {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(200), .bid(1.00))],
            netA: [.never],
            netB: [.after(.milliseconds(100), .fill)]
        )
        let text = await harness.run().trace.description
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[0].contains("placement level_end (parallel): winner Bid at 1.00 USD CPM; ended at 3000 ms, deadline 3000 ms"))
        #expect(lines[1].hasPrefix("line item  network  start ms  latency ms  outcome"))
        #expect(lines[2].hasPrefix("Bid        Bid      0         200         won"))
        #expect(lines[3].contains("timeout"))
        #expect(lines[4].contains("lost (102 lost to higher bid)"))
        #expect(lines[4].hasSuffix("yes"))
    }
}

@Suite("Auction slot")
struct AuctionSlotTests {
    @Test("R8 ads must fit the placement's slot after a resize, not only the configured one")
    func theResizedSlotDecides() async throws {
        let clock = ManualClock()
        let net = ScriptedAdapter(network: "NetA", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(10), .fill)], ads: .init(format: .banner, size: AdSize(width: 320, height: 50)))
        let placement = MediationConfiguration.Placement(id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxWidth: 390, maxHeight: 90), sources: [.fixedPrice("NetA", eCPM: 1.2)])
        let engine = try TestEngine(placements: [placement], adapters: [net], clock: clock)
        let controller = try #require(engine.engine.placement("home_banner"))
        let load = clock.startTask {
            await controller.slotDidResize(SlotSize(maxWidth: 300, maxHeight: 40))
            return await controller.load()
        }
        await clock.advance(to: .origin + .seconds(1))
        guard case .noFill(let trace) = await load.value else {
            Issue.record("a 320x50 ad must not fill a 300x40 slot")
            return
        }
        #expect(net.requestCount == 1)
        #expect(trace.source("NetA")?.outcome == .lost(.sizeNotAllowed))
        #expect(try #require(net.ads.first).releaseCount == 1)
    }
}

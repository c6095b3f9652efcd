import Foundation
import Testing
@testable import Mediation
import MediationTestKit

/// The driver's shared timer, auction ids, and the state machine at scale (one timer per
/// ``Auction``, O(1) events, cheap ids).
@Suite("Auction timer, ids and scale")
struct AuctionTimerTests {
    /// `Hung` (fixed 2.00, never answers), `Slow` (fixed 1.00, own timeout 1000 ms, never
    /// answers), `Low` (fixed 0.50, fills 1200 ms after it is asked).
    private static func placement() -> MediationConfiguration.Placement {
        MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [
            .fixedPrice("Hung", eCPM: 2.00),
            .fixedPrice("Slow", eCPM: 1.00, timeout: .milliseconds(1000)),
            .fixedPrice("Low", eCPM: 0.50),
        ])
    }

    @Test("A later auction that needs an earlier wake-up re-arms the shared timer: A ends at its 3000 ms deadline, B at 1700 ms")
    func earlierWakeupRearmsTheTimer() async {
        let clock = ManualClock()
        let hung = ScriptedAdapter(network: "Hung", pricing: .fixedPrice, clock: clock, script: [.never])
        let slow = ScriptedAdapter(network: "Slow", pricing: .fixedPrice, clock: clock, script: [.never])
        let low = ScriptedAdapter(network: "Low", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(1200), .fill)])
        let placement = Self.placement()
        let auction = Auction(placement: placement, sources: [
            AuctionSource(lineItem: placement.sources[0], adapter: hung),
            AuctionSource(lineItem: placement.sources[1], adapter: slow),
            AuctionSource(lineItem: placement.sources[2], adapter: low),
        ], clock: clock)
        let request = AdRequest(placementID: "level_end", format: .interstitial)

        // A at 0 ms with Hung only: its one wake-up is the deadline, 3000 ms.
        let first = clock.startTask { await auction.run(request: request, excluding: ["Slow", "Low"]) }
        #expect(await clock.settle { hung.requestCount == 1 })
        await clock.advance(to: .origin + .milliseconds(500))
        // B at 500 ms without Hung: Slow times out at 1500 ms, before A's wake-up.
        let second = clock.startTask { await auction.run(request: request, excluding: ["Hung"]) }
        #expect(await clock.settle { slow.requestCount == 1 && low.requestCount == 1 })
        await clock.advance(to: .origin + .seconds(10))
        let a = await first.value
        let b = await second.value

        #expect(a.trace.endedAtMilliseconds == 3000)
        #expect(a.winner == nil)
        #expect(a.outcome(of: "Hung") == .timeout(.deadline))
        // Slow timed out at 1500 ms, so Low's fill at 1700 ms decides B at once.
        #expect(b.trace.endedAtMilliseconds == 1700)
        #expect(b.winner?.lineItem.id == "Low")
        #expect(b.outcome(of: "Slow") == .timeout(.source))
        #expect(clock.sleeperCount == 0)
    }

    @Test("An auction that re-arms the shared timer and ends at once hands the timer on: the other auction still ends at its deadline")
    func rearmingAuctionThatEndsAtOnceHandsTheTimerOn() async {
        let clock = ManualClock()
        let hung = ScriptedAdapter(network: "Hung", pricing: .fixedPrice, clock: clock, script: [.never])
        let slow = ScriptedAdapter(network: "Slow", pricing: .fixedPrice, clock: clock, script: [.never])
        let quick = ScriptedAdapter(network: "Quick", pricing: .bidder, clock: clock, script: [.after(.zero, .bid(5.0))])
        let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [
            .fixedPrice("Hung", eCPM: 2.00),
            .fixedPrice("Slow", eCPM: 1.00, timeout: .milliseconds(1000)),
            .bidder("Quick"),
        ])
        let auction = Auction(placement: placement, sources: [
            AuctionSource(lineItem: placement.sources[0], adapter: hung),
            AuctionSource(lineItem: placement.sources[1], adapter: slow),
            AuctionSource(lineItem: placement.sources[2], adapter: quick),
        ], clock: clock)
        let request = AdRequest(placementID: "level_end", format: .interstitial)

        let firstOutcome = Locked<MediationEngine.AuctionOutcome?>(nil)
        let first = clock.startTask {
            let outcome = await auction.run(request: request, excluding: ["Slow", "Quick"])
            firstOutcome.withLock { $0 = outcome }
        }
        #expect(await clock.settle { hung.requestCount == 1 })
        await clock.advance(to: .origin + .milliseconds(500))
        // B wants a wake-up at 1500 ms (Slow's timeout), earlier than A's 3000 ms, and is
        // decided at once by Quick's 5.00 bid.
        let second = await auction.run(request: request, excluding: ["Hung"])
        #expect(second.trace.endedAtMilliseconds == 500)
        #expect(second.winner?.lineItem.id == "Quick")
        await clock.advance(to: .origin + .seconds(10))
        // Without a timer A would never end: check without waiting on it, then end it anyway.
        #expect(await clock.settle { firstOutcome.withLock { $0 != nil } })
        let a = firstOutcome.withLock { $0 }
        first.cancel()
        await first.value
        #expect(a?.trace.endedAtMilliseconds == 3000)
        #expect(a?.outcome(of: "Hung") == .timeout(.deadline))
        #expect(clock.sleeperCount == 0)
    }

    @Test("An auction decided at once leaves nothing sleeping on the clock")
    func decidedAuctionLeavesNoSleeper() async {
        let clock = ManualClock()
        let bid = ScriptedAdapter(network: "Bid", pricing: .bidder, clock: clock, script: [.after(.zero, .bid(2.0))])
        let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [.bidder("Bid")])
        let auction = Auction(placement: placement, sources: [AuctionSource(lineItem: placement.sources[0], adapter: bid)], clock: clock)
        let outcome = await auction.run(request: AdRequest(placementID: "level_end", format: .interstitial))
        await clock.runUntilIdle()
        #expect(outcome.winner?.lineItem.id == "Bid")
        #expect(outcome.trace.endedAtMilliseconds == 0)
        #expect(clock.sleeperCount == 0)
    }

    @Test("R7: when every source answers at once, the losers are released before run returns, even when releasing takes time")
    func losersReleasedBeforeReturnWhenAllAnswerAtOnce() async {
        let adapters = (0..<4).map { InstantBidder(network: "N\($0)", price: 1.0 + Double($0)) }
        let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: (0..<4).map { LineItem.bidder("N\($0)") })
        let auction = Auction(placement: placement, sources: zip(placement.sources, adapters).map { AuctionSource(lineItem: $0, adapter: $1) }, clock: ManualClock())
        var unreleasedLosers = 0
        for _ in 0..<50 {
            let outcome = await auction.run(request: AdRequest(placementID: "level_end", format: .interstitial))
            #expect(outcome.winner?.lineItem.id == "N3")
            // Checked at once, with no settling: every loser of this auction is already released.
            unreleasedLosers += adapters.dropLast().filter { $0.lastAd?.releaseCount != 1 }.count
        }
        #expect(unreleasedLosers == 0)
    }

    @Test("Auction ids are 32 lowercase hex digits and differ from auction to auction")
    func auctionIDs() async {
        let clock = ManualClock()
        let bid = ScriptedAdapter(network: "Bid", pricing: .bidder, clock: clock, script: [.after(.zero, .noFill)])
        let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [.bidder("Bid")])
        let auction = Auction(placement: placement, sources: [AuctionSource(lineItem: placement.sources[0], adapter: bid)], clock: clock)
        var ids: Set<String> = []
        for _ in 0..<50 {
            let outcome = await auction.run(request: AdRequest(placementID: "level_end", format: .interstitial))
            ids.insert(outcome.trace.auctionID)
            #expect(outcome.trace.auctionID.count == 32)
            #expect(outcome.trace.auctionID.allSatisfy { "0123456789abcdef".contains($0) })
        }
        let other = Auction(placement: placement, sources: auction.sources, clock: clock)
        ids.insert(await other.run(request: AdRequest(placementID: "level_end", format: .interstitial)).trace.auctionID)
        #expect(ids.count == 51)
    }

    @Test("R4 at 256 fixed-price sources: the highest answering first decides at once; every other source is cancelled", arguments: [true, false])
    func manySourcesHighestFirst(highestFirst: Bool) {
        let count = 256
        // eCPM 1.00 + i/100: the last source is the highest.
        let sources = (0..<count).map { LineItem.fixedPrice("S\($0)", eCPM: 1.0 + Double($0) / 100) }
        let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: sources)
        var machine = AuctionStateMachine(placement: placement, sources: sources)
        #expect(machine.start(at: .origin).count == count)
        let at = MediationInstant.origin + .milliseconds(10)
        let ad = ScriptedAd(id: "a", network: "S", format: .interstitial, size: AdSize(width: 390, height: 844))
        if highestFirst {
            // The answer only records; the decision is the end of the instant's (R6a).
            #expect(machine.answer(count - 1, result: .fill(ad), at: at).count == 1)
            #expect(!machine.isFinished)
            let actions = machine.endOfInstant(at: at)
            #expect(machine.isFinished)
            #expect(actions.count == count) // 255 cancels and the finish
        } else {
            // Lowest first, all at one instant: each fill is beaten by the next; the end of the
            // instant ends the auction with the last.
            for index in 0..<count {
                _ = machine.answer(index, result: .fill(ScriptedAd(id: "a\(index)", network: "S", format: .interstitial, size: AdSize(width: 390, height: 844))), at: at)
                #expect(!machine.isFinished)
            }
            _ = machine.endOfInstant(at: at)
            #expect(machine.isFinished)
        }
        let outcome = machine.outcome(auctionID: "t")
        #expect(outcome.winner?.lineItem.id == "S\(count - 1)")
        #expect(outcome.trace.sources.filter { $0.outcome == .won }.count == 1)
        let others = outcome.trace.sources.dropLast()
        #expect(others.allSatisfy { $0.outcome == (highestFirst ? .cancelled(couldNotBeat: 3.55) : .lost(.lostToHigherBid)) })
    }
}

/// A bidder that answers at once with an ad whose release takes a millisecond (a test double:
/// real releases must not block), so a caller that got its outcome before the releases were
/// done would see them missing.
private final class InstantBidder: AdNetworkAdapter, Sendable {
    final class SlowReleaseAd: LoadedAd, Sendable {
        let id: String
        let network: String
        let creativeID = "creative"
        let format = AdFormat.interstitial
        let size = AdSize(width: 390, height: 844)
        private let releases = Locked(0)

        init(id: String, network: String) {
            self.id = id
            self.network = network
        }

        var releaseCount: Int { releases.withLock { $0 } }

        func releaseResources() {
            usleep(1000)
            releases.withLock { $0 += 1 }
        }
    }

    let network: String
    let pricing = LineItem.Pricing.bidder
    let price: Double
    private let last = Locked<SlowReleaseAd?>(nil)

    init(network: String, price: Double) {
        self.network = network
        self.price = price
    }

    var lastAd: SlowReleaseAd? { last.withLock { $0 } }

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        let ad = SlowReleaseAd(id: UUID().uuidString, network: network)
        last.withLock { $0 = ad }
        return .bid(ad, eCPM: price)
    }
}

/// ``SystemClock``'s sleep on the real clock: short, bounded waits only.
@Suite("SystemClock sleep")
struct SystemClockSleepTests {
    @Test("A sleep returns at or after its deadline")
    func sleepReachesItsDeadline() async throws {
        let clock = SystemClock()
        let deadline = clock.now + .milliseconds(20)
        try await clock.sleep(until: deadline)
        #expect(clock.now >= deadline)
    }

    @Test("A cancelled sleep throws CancellationError at once, long before its deadline")
    func cancelledSleepThrows() async {
        let clock = SystemClock()
        let sleeper = Task { () -> Bool in
            do {
                try await clock.sleep(until: clock.now + .seconds(600))
                return false
            } catch {
                return error is CancellationError
            }
        }
        sleeper.cancel()
        let threw = await sleeper.value
        #expect(threw)
        // Far before the sleep's 600 s deadline, even on a machine loaded with builds.
        #expect(clock.now < .origin + .seconds(120))
    }

    @Test("A sleep to a past deadline returns at once; in a cancelled task it throws")
    func pastDeadline() async {
        let clock = SystemClock()
        let returned = (try? await clock.sleep(until: .origin)) != nil
        #expect(returned)
        let cancelled = Task { () -> Bool in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                try await clock.sleep(until: .origin)
                return false
            } catch {
                return true
            }
        }
        #expect(await cancelled.value)
    }
}

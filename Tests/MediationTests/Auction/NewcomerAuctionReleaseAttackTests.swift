import Mediation
import MediationTestKit
import Testing

/// A newcomer's attacks on R7 ("every loaded ad that does not win is released exactly once;
/// the winner never") through the host API, on the manual clock.
@Suite("Newcomer attacks: every loaded ad wins or is released exactly once")
struct NewcomerAuctionReleaseAttackTests {
    /// Each ad handed out by `adapters`: one of `winners` (the ads the callers got) never
    /// released, every other one released exactly once.
    private static func expectWinsOrReleasedOnce(_ adapters: [ScriptedAdapter], winners: [any LoadedAd], sourceLocation: SourceLocation = #_sourceLocation) {
        for adapter in adapters {
            for ad in adapter.ads {
                let won = winners.contains { $0 === ad }
                #expect(ad.releaseCount == (won ? 0 : 1), "\(ad.id) (won: \(won)) released \(ad.releaseCount) times", sourceLocation: sourceLocation)
            }
        }
    }

    /// The networks of ``placement(id:mode:)``: `bid` (a bidder), `a` and `b` (fixed prices), each
    /// answering by its script on one manual clock, with an engine serving `placement`.
    private struct Networks {
        let clock = ManualClock()
        let bid: ScriptedAdapter
        let a: ScriptedAdapter
        let b: ScriptedAdapter
        let test: TestEngine
        var engine: MediationEngine { test.engine }

        /// Each network answers its request 0, 1, … as its closure says.
        init(
            placement: MediationConfiguration.Placement = NewcomerAuctionReleaseAttackTests.placement(),
            bid: @escaping @Sendable (Int) -> ScriptedAnswer,
            a: @escaping @Sendable (Int) -> ScriptedAnswer,
            b: @escaping @Sendable (Int) -> ScriptedAnswer
        ) throws {
            self.bid = ScriptedAdapter(network: "bid", pricing: .bidder, clock: clock) { index, _ in bid(index) }
            self.a = ScriptedAdapter(network: "a", pricing: .fixedPrice, clock: clock) { index, _ in a(index) }
            self.b = ScriptedAdapter(network: "b", pricing: .fixedPrice, clock: clock) { index, _ in b(index) }
            test = try TestEngine(placements: [placement], adapters: [self.bid, self.a, self.b], clock: clock)
        }

        /// Each network answers from its list (the last answer repeats).
        init(placement: MediationConfiguration.Placement = NewcomerAuctionReleaseAttackTests.placement(), bid: [ScriptedAnswer], a: [ScriptedAnswer], b: [ScriptedAnswer]) throws {
            try self.init(placement: placement, bid: Self.playing(bid), a: Self.playing(a), b: Self.playing(b))
        }

        /// `script` as a closure: the answer to request `index`, the last one repeating.
        private static func playing(_ script: [ScriptedAnswer]) -> @Sendable (Int) -> ScriptedAnswer {
            { index in script.isEmpty ? .after(.zero, .noFill) : script[min(index, script.count - 1)] }
        }

        /// Starts a one-shot auction of `p` on the clock, runs `during` with its task (a task
        /// `during` returns, e.g. a shutdown, is awaited last), moves the clock to `until` from
        /// the origin and returns the auction's outcome.
        func auction(until: Duration, during: @escaping @Sendable (Task<MediationEngine.AuctionOutcome?, Never>) async -> Task<Void, Never>?) async -> MediationEngine.AuctionOutcome? {
            let (clock, test) = (clock, test)
            return await clock.perform { () -> MediationEngine.AuctionOutcome? in
                let task = await test.startAuction("p")
                let after = await during(task)
                await clock.advance(to: .origin + until)
                await after?.value
                return await task.value
            }
        }

        /// Each ad `bid`, `a` and `b` handed out: one of `winners` never released, every other
        /// one exactly once.
        func expectWinsOrReleasedOnce(winners: [any LoadedAd], sourceLocation: SourceLocation = #_sourceLocation) {
            NewcomerAuctionReleaseAttackTests.expectWinsOrReleasedOnce([bid, a, b], winners: winners, sourceLocation: sourceLocation)
        }
    }

    /// Placement `id` (interstitial, deadline 1000 ms) of `bid_li` (network `bid`, a bidder,
    /// floor 0.1), `a_li` (`a`, 1.0) and `b_li` (`b`, 0.5).
    static func placement(id: String = "p", mode: MediationConfiguration.Placement.AuctionMode = .parallel) -> MediationConfiguration.Placement {
        MediationConfiguration.Placement(id: id, format: .interstitial, deadline: .milliseconds(1000), mode: mode, sources: [
            .bidder("bid_li", network: "bid", floor: 0.1),
            .fixedPrice("a_li", network: "a", eCPM: 1.0),
            .fixedPrice("b_li", network: "b", eCPM: 0.5),
        ])
    }

    @Test("a caller whose task is cancelled before the auction starts: every ad that still arrives is released once")
    func cancelledBeforeStart() async throws {
        let networks = try Networks(bid: [.after(.zero, .bid(3))], a: [.after(.milliseconds(10), .fill)], b: [.after(.milliseconds(2000), .fill)])
        let (clock, engine) = (networks.clock, networks.engine)
        let outcome = await clock.perform { () -> MediationEngine.AuctionOutcome? in
            let task = clock.startTask { () -> MediationEngine.AuctionOutcome? in
                withUnsafeCurrentTask { $0?.cancel() }
                return await engine.runAuction(placementID: "p")
            }
            await clock.advance(to: .origin + .seconds(5))
            return await task.value
        }
        networks.expectWinsOrReleasedOnce(winners: [outcome?.winner?.ad].compactMap { $0 })
        outcome?.winner?.ad.releaseResources()
    }

    @Test("the caller cancels at the very instant the winning bid and a loser arrive, before the end of the instant decides")
    func cancelAtTheAnsweringInstant() async throws {
        let networks = try Networks(bid: [.after(.milliseconds(100), .bid(3))], a: [.after(.milliseconds(100), .fill)], b: [.never])
        let clock = networks.clock
        let outcome = await networks.auction(until: .seconds(5)) { task in
            // An adapter's answer task cancels the caller from inside the instant.
            clock.startTask {
                try? await clock.sleep(until: .origin + .milliseconds(100))
                task.cancel()
            }
            return nil
        }
        networks.expectWinsOrReleasedOnce(winners: [outcome?.winner?.ad].compactMap { $0 })
    }

    @Test("the caller cancels after the deadline decided: late answers of every source still released once")
    func cancelAfterTheDeadlineWithLateAnswers() async throws {
        let networks = try Networks(bid: [.after(.milliseconds(1500), .bid(9))], a: [.after(.milliseconds(1000), .fill)], b: [.after(.milliseconds(1001), .fill)])
        let clock = networks.clock
        let outcome = await networks.auction(until: .seconds(5)) { task in
            await clock.advance(to: .origin + .milliseconds(1000))
            task.cancel()
            return nil
        }
        networks.expectWinsOrReleasedOnce(winners: [outcome?.winner?.ad].compactMap { $0 })
    }

    @Test("the same network hands the same ad object to two auctions: the first's winner is not released by the second")
    func sameAdAcrossTwoAuctions() async throws {
        let shared = ScriptedAd(id: "reused", network: "a", format: .interstitial, size: AdSize(width: 390, height: 844))
        let networks = try Networks(bid: [.after(.milliseconds(50), .noFill), .after(.milliseconds(50), .bid(5))], a: [.after(.milliseconds(10), .fillWith(shared))], b: [.after(.milliseconds(10), .noFill)])
        let (clock, test) = (networks.clock, networks.test)
        let (first, second) = await clock.perform { () -> (MediationEngine.AuctionOutcome?, MediationEngine.AuctionOutcome?) in
            let one = await test.startAuction("p")
            await clock.advance(to: .origin + .seconds(2))
            let first = await one.value
            let two = await test.startAuction("p")
            await clock.advance(to: .origin + .seconds(4))
            return (first, await two.value)
        }
        // The host holds the first winner (the shared ad) and is about to show it.
        #expect(first?.winner?.ad === shared)
        #expect(second?.winner?.lineItem.id == "bid_li")
        // A known limit (docs/adding-a-network.md): across auctions the engine keeps no record of
        // the ads it handed out, and trusts each load to bring a new object, which
        // `AdapterConformance.check` enforces (a reused object repeats its ad id).
        withKnownIssue("an adapter handing the host's winner to a later auction sees it released there") {
            #expect(shared.releaseCount == 0, "the host's winner of auction 1 was released \(shared.releaseCount) times by auction 2, while the host holds it")
        }
    }

    @Test("shutdown in the middle of a 3-source auction: the winner goes to the caller, every other ad (late ones too) released once")
    func shutdownMidAuction() async throws {
        let networks = try Networks(bid: [.after(.milliseconds(3000), .bid(9))], a: [.after(.milliseconds(100), .fill)], b: [.after(.milliseconds(600), .fill)])
        let (clock, engine) = (networks.clock, networks.engine)
        let outcome = await networks.auction(until: .seconds(10)) { _ in
            await clock.advance(to: .origin + .milliseconds(200))
            return clock.startTask { await engine.shutdown() }
        }
        networks.expectWinsOrReleasedOnce(winners: [outcome?.winner?.ad].compactMap { $0 })
    }

    @Test("one-shot auction cancelled by the caller while shutdown runs: every ad released once")
    func cancelDuringShutdown() async throws {
        let networks = try Networks(bid: [.after(.milliseconds(300), .bid(9))], a: [.after(.milliseconds(100), .fill)], b: [.never])
        let (clock, engine) = (networks.clock, networks.engine)
        let outcome = await networks.auction(until: .seconds(10)) { task in
            await clock.advance(to: .origin + .milliseconds(150))
            let shutdown = clock.startTask { await engine.shutdown() }
            task.cancel()
            return shutdown
        }
        #expect(outcome?.winner == nil, "a caller that gave up got a winner")
        networks.expectWinsOrReleasedOnce(winners: [outcome?.winner?.ad].compactMap { $0 })
    }

    @Test("the same ad object for two line items, the earlier-listed one answering after the deadline: the in-time one's ad is never released if it wins, else once")
    func sameAdObjectEarlierListedLate() async throws {
        let clock = ManualClock()
        let shared = ScriptedAd(id: "shared-ad", network: "net", format: .interstitial, size: AdSize(width: 390, height: 844))
        // Asked in config order: "high" answers at 2000 ms (after the 1000 ms deadline), "low" at 10 ms.
        let net = ScriptedAdapter(network: "net", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(2000), .fillWith(shared)), .after(.milliseconds(10), .fillWith(shared))])
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, deadline: .milliseconds(1000), sources: [
            .fixedPrice("high", network: "net", eCPM: 2),
            .fixedPrice("low", network: "net", eCPM: 1),
        ])
        let test = try TestEngine(placements: [placement], adapters: [net], clock: clock)
        let outcome = try await clock.perform { try await test.runAuction("p") }
        if outcome.winner?.ad === shared {
            #expect(shared.releaseCount == 0, "the winner (low, the shared ad) was released \(shared.releaseCount) times by high's late copy; trace: \(outcome.trace.sources.map(\.outcome))")
        } else {
            #expect(shared.releaseCount == 1, "released \(shared.releaseCount) times; trace: \(outcome.trace.sources.map(\.outcome))")
        }
    }

    @Test("the same ad object for two line items, the earlier-listed one cancelled (could not beat a bid) and answering later: released exactly once")
    func sameAdObjectEarlierListedCancelled() async throws {
        let clock = ManualClock()
        let shared = ScriptedAd(id: "shared-ad", network: "net", format: .interstitial, size: AdSize(width: 390, height: 844))
        let bid = ScriptedAdapter(network: "bid", pricing: .bidder, clock: clock, script: [.after(.milliseconds(5), .bid(5))])
        // "high" answers at 50 ms, after the auction ended; "low" at 10 ms.
        let net = ScriptedAdapter(network: "net", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(50), .fillWith(shared)), .after(.milliseconds(10), .fillWith(shared))])
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, deadline: .milliseconds(1000), sources: [
            .bidder("bid_li", network: "bid", floor: 0.1),
            .fixedPrice("high", network: "net", eCPM: 2),
            .fixedPrice("low", network: "net", eCPM: 1),
        ])
        let test = try TestEngine(placements: [placement], adapters: [bid, net], clock: clock)
        let outcome = try await clock.perform { try await test.runAuction("p") }
        #expect(outcome.winner?.lineItem.id == "bid_li")
        #expect(shared.releaseCount == 1, "the shared ad, never a winner, was released \(shared.releaseCount) times; trace: \(outcome.trace.sources.map(\.outcome))")
        outcome.winner?.ad.releaseResources()
    }

    @Test("two different networks hand the same ad object to one auction: the winner's ad is never released, a loser's once")
    func sameAdObjectFromTwoNetworks() async throws {
        let shared = ScriptedAd(id: "shared-ad", network: "a", format: .interstitial, size: AdSize(width: 390, height: 844))
        let networks = try Networks(bid: [.after(.milliseconds(5), .noFill)], a: [.after(.milliseconds(10), .fillWith(shared))], b: [.after(.milliseconds(20), .fillWith(shared))])
        let test = networks.test
        let outcome = try await networks.clock.perform { try await test.runAuction("p") }
        if outcome.winner?.ad === shared {
            #expect(shared.releaseCount == 0, "the winner's ad was released \(shared.releaseCount) times; trace: \(outcome.trace.sources.map(\.outcome))")
        } else {
            #expect(shared.releaseCount == 1, "released \(shared.releaseCount) times; trace: \(outcome.trace.sources.map(\.outcome))")
        }
    }

    /// A network that, when its request is cancelled, hands over the ad it had anyway, at once.
    final class FillsOnCancelAdapter: AdNetworkAdapter, @unchecked Sendable {
        let network: String
        let clock: ManualClock
        private let made = Locked<[ScriptedAd]>([])
        var ads: [ScriptedAd] { made.withLock { $0 } }
        init(network: String, clock: ManualClock) { (self.network, self.clock) = (network, clock) }
        func loadAd(for request: AdRequest) async -> AdLoadResult {
            try? await clock.sleep(until: clock.now + .milliseconds(500))
            let ad = ScriptedAd(id: "\(network)-\(made.withLock { $0.count })", network: network, format: request.format, size: AdSize(width: 390, height: 844))
            made.withLock { $0.append(ad) }
            return .fill(ad)
        }
    }

    @Test("the caller cancels at 50 ms; one network answers its cancellation with its ad at once, a silent one never answers: every ad released once, shutdown returns")
    func cancelledRequestAnswersWithAnAd() async throws {
        let clock = ManualClock()
        let bid = ScriptedAdapter(network: "bid", pricing: .bidder, clock: clock, script: [.never])
        let eager = FillsOnCancelAdapter(network: "a", clock: clock)
        let b = ScriptedAdapter(network: "b", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(20), .fill)])
        var networks = PrebuiltNetworks()
        networks.add("bid", pricing: .bidder, adapter: bid)
        networks.add("a", pricing: .fixedPrice, adapter: eager)
        networks.add("b", pricing: .fixedPrice, adapter: b)
        let engine = try MediationEngine(configuration: networks.configuration(placements: [Self.placement()]), registry: networks.registry, environment: MediationEnvironment(clock: clock))
        let outcome = await clock.perform { () -> MediationEngine.AuctionOutcome? in
            let task = clock.startTask { await engine.runAuction(placementID: "p") }
            await clock.advance(to: .origin + .milliseconds(50))
            task.cancel()
            await clock.advance(to: .origin + .seconds(5))
            await engine.shutdown()
            await clock.advance(to: .origin + .seconds(10))
            return await task.value
        }
        #expect(outcome?.winner == nil, "a caller that gave up got a winner")
        for ad in eager.ads + b.ads {
            #expect(ad.releaseCount == (outcome?.winner?.ad === ad ? 0 : 1), "\(ad.id) released \(ad.releaseCount) times")
        }
        #expect(eager.ads.count == 1)
    }

    @Test("7 line items of one network fail at 10 ms while its 8th is in flight (one auction's failures do not pause the network, R24 counts per auction): the 8th's ad, arriving at 200 ms, wins or is released once")
    func pausedMidAuctionLateAd() async throws {
        let clock = ManualClock()
        let flaky = ScriptedAdapter(network: "flaky", pricing: .fixedPrice, clock: clock) { index, _ in
            index < 7 ? .after(.milliseconds(10), .error) : .after(.milliseconds(200), .fill)
        }
        let backup = ScriptedAdapter(network: "backup", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(300), .fill)])
        var sources: [LineItem] = (0..<7).map { .fixedPrice("f\($0)", network: "flaky", eCPM: 3) }
        sources.append(.fixedPrice("f7", network: "flaky", eCPM: 5))
        sources.append(.fixedPrice("backup_li", network: "backup", eCPM: 1))
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, deadline: .milliseconds(1000), sources: sources)
        let test = try TestEngine(placements: [placement], adapters: [flaky, backup], clock: clock)
        let outcome = try await clock.perform { try await test.runAuction("p") }
        await clock.perform {
            await test.engine.shutdown()
            await clock.advance(to: .origin + .seconds(20))
        }
        Self.expectWinsOrReleasedOnce([flaky, backup], winners: [outcome.winner?.ad].compactMap { $0 })
        #expect(flaky.ads.count == 1, "\(outcome.trace.sources.map(\.outcome))")
    }

    @Test("20 concurrent one-shot auctions of one placement (one prepared machine): every third caller cancels, shutdown comes mid-way; each ad wins once or is released once, traces are each their own")
    func concurrentAuctionsOfOneRoute() async throws {
        let networks = try Networks(
            bid: { index in index % 4 == 0 ? .never : .after(.milliseconds(Int64(40 + index * 7 % 900)), .bid(Double(index % 5) + 0.5)) },
            a: { index in .after(.milliseconds(Int64(30 + index * 13 % 1500)), index % 3 == 0 ? .noFill : .fill) },
            b: { index in .after(.milliseconds(Int64(20 + index * 11 % 1200)), .fill) }
        )
        let (clock, engine) = (networks.clock, networks.engine)
        let outcomes = await clock.perform { () -> [MediationEngine.AuctionOutcome?] in
            var tasks: [Task<MediationEngine.AuctionOutcome?, Never>] = []
            for index in 0..<20 {
                tasks.append(clock.startTask { await engine.runAuction(placementID: "p") })
                await clock.advance(to: clock.now + .milliseconds(Int64(index % 3 * 17)))
                if index % 3 == 2 { tasks[index - 1].cancel() }
                if index == 12 { _ = clock.startTask { await engine.shutdown() } }
            }
            await clock.advance(to: clock.now + .seconds(10))
            var outcomes: [MediationEngine.AuctionOutcome?] = []
            for task in tasks { outcomes.append(await task.value) }
            return outcomes
        }
        networks.expectWinsOrReleasedOnce(winners: outcomes.compactMap { $0?.winner?.ad })
        var ids = Set<String>()
        for outcome in outcomes.compactMap({ $0 }) {
            #expect(ids.insert(outcome.trace.auctionID).inserted)
            if let winner = outcome.winner {
                #expect(outcome.trace.winner == winner.lineItem.id)
                #expect(outcome.trace.sources.filter { $0.outcome == .won }.count == 1, "\(outcome.trace.sources.map(\.outcome))")
            } else {
                #expect(outcome.trace.sources.allSatisfy { $0.outcome != .won }, "\(outcome.trace.sources.map(\.outcome))")
            }
        }
    }

    @Test("every source answers at once (the run's speed path: decided during its first yield) while another task cancels the caller at that instant: the winner is not released, every other ad once")
    func instantAnswersAndCancelDuringTheYield() async throws {
        let networks = try Networks(bid: [.after(.zero, .bid(3))], a: [.after(.zero, .fill)], b: [.after(.zero, .fill)])
        let (clock, engine) = (networks.clock, networks.engine)
        let outcomes = await clock.perform { () -> [MediationEngine.AuctionOutcome?] in
            var results: [MediationEngine.AuctionOutcome?] = []
            for round in 0..<5 {
                let task = clock.startTask { await engine.runAuction(placementID: "p") }
                for _ in 0..<round { await Task.yield() }
                task.cancel()
                await clock.advance(to: clock.now + .seconds(2))
                results.append(await task.value)
            }
            return results
        }
        networks.expectWinsOrReleasedOnce(winners: outcomes.compactMap { $0?.winner?.ad })
    }

    @Test("a waterfall (prepared machine, tiers assigned at start) whose caller cancels between tiers: the first tier's ad and the second tier's late one are released once")
    func waterfallCancelledBetweenTiers() async throws {
        let networks = try Networks(placement: Self.placement(id: "w", mode: .waterfall), bid: [.after(.milliseconds(10), .noFill)], a: [.after(.milliseconds(100), .noFill)], b: [.after(.milliseconds(300), .fill)])
        let (clock, engine) = (networks.clock, networks.engine)
        let outcomes = await clock.perform { () -> [MediationEngine.AuctionOutcome?] in
            var results: [MediationEngine.AuctionOutcome?] = []
            for cancelAt in [50, 100, 150, 300, 301] {
                let start = clock.now
                let task = clock.startTask { await engine.runAuction(placementID: "w") }
                await clock.advance(to: start + .milliseconds(Int64(cancelAt)))
                task.cancel()
                await clock.advance(to: start + .seconds(3))
                results.append(await task.value)
            }
            return results
        }
        networks.expectWinsOrReleasedOnce(winners: outcomes.compactMap { $0?.winner?.ad })
    }
}

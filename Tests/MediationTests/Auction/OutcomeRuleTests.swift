import Foundation
import Mediation
import MediationTestKit
import Testing

/// Engine rule R6a: outcomes are a function of the inputs. Exact scenarios on a manual clock.
@Suite("R6a outcomes are a function of the inputs")
struct OutcomeRuleTests {
    /// A source that answers `result` at `at`, registering its sleep for `at` only at
    /// `registerAt` (so its wake-up comes after the sleepers registered earlier for the same
    /// instant): how a test chooses the order in which same-instant answers are processed.
    final class TimedAdapter: AdNetworkAdapter, Sendable {
        let clock: ManualClock
        let registerAt: Duration
        let at: Duration
        let result: @Sendable (AdRequest) -> AdLoadResult

        init(clock: ManualClock, registerAt: Duration, at: Duration, result: @escaping @Sendable (AdRequest) -> AdLoadResult) {
            self.clock = clock
            self.registerAt = registerAt
            self.at = at
            self.result = result
        }

        func loadAd(for request: AdRequest) async -> AdLoadResult {
            await clock.sleepIgnoringCancellation(until: .origin + registerAt)
            await clock.sleepIgnoringCancellation(until: .origin + at)
            return result(request)
        }
    }

    static let fixedTime = Date(timeIntervalSince1970: 1_764_590_400) // 2025-12-01T12:00:00Z

    /// An engine over `adapters` (network id, pricing, adapter) with one placement.
    static func engine(_ placement: MediationConfiguration.Placement, _ adapters: [(String, LineItem.Pricing, any AdNetworkAdapter)], clock: ManualClock, recorder: EventRecorder = EventRecorder()) throws -> MediationEngine {
        var networks = PrebuiltNetworks()
        for (id, pricing, adapter) in adapters { networks.add(id, pricing: pricing, adapter: adapter) }
        return try MediationEngine(
            configuration: networks.configuration(placements: [placement]),
            registry: networks.registry,
            environment: MediationEnvironment(clock: clock, wallClock: { OutcomeRuleTests.fixedTime }),
            onEvent: recorder.handler
        )
    }

    /// Runs one auction of `placementID` to 10 s of virtual time.
    static func run(_ engine: MediationEngine, _ placementID: String, clock: ManualClock) async throws -> MediationEngine.AuctionOutcome {
        let task = clock.startTask { await engine.runAuction(placementID: placementID) }
        await clock.advance(to: .origin + .seconds(10))
        return try #require(await task.value)
    }

    static func ad(_ id: String, _ network: String) -> ScriptedAd {
        ScriptedAd(id: id, network: network, format: .interstitial, size: AdSize(width: 390, height: 844))
    }

    @Test("each outcome label: won, lost (102), no_fill, error, timeout (source), cancelled with the value it could not beat, not_asked (under the floor)")
    func eachOutcomeLabel() async throws {
        let clock = ManualClock()
        let w = ScriptedAdapter(network: "w", pricing: .bidder, clock: clock, script: [.after(.milliseconds(100), .bid(2.00))], ads: .init(format: .interstitial, size: AdSize(width: 390, height: 844)))
        let l = ScriptedAdapter(network: "l", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(50), .fill)], ads: .init(format: .interstitial, size: AdSize(width: 390, height: 844)))
        let n = ScriptedAdapter(network: "n", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(10), .noFill)])
        let e = ScriptedAdapter(network: "e", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(20), .error)])
        let t = ScriptedAdapter(network: "t", pricing: .fixedPrice, clock: clock, script: [.never])
        let c = ScriptedAdapter(network: "c", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(500), .fill)], ads: .init(format: .interstitial, size: AdSize(width: 390, height: 844)))
        let u = ScriptedAdapter(network: "u", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(5), .fill)])
        let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, floor: 0.20, sources: [
            .bidder("W", network: "w"),
            .fixedPrice("L", network: "l", eCPM: 1.00),
            .fixedPrice("N", network: "n", eCPM: 0.90),
            .fixedPrice("E", network: "e", eCPM: 0.95),
            .fixedPrice("T", network: "t", eCPM: 3.00, timeout: .milliseconds(60)),
            .fixedPrice("C", network: "c", eCPM: 1.50),
            .fixedPrice("U", network: "u", eCPM: 0.10),
        ])
        let recorder = EventRecorder()
        let engine = try Self.engine(placement, [("w", .bidder, w), ("l", .fixedPrice, l), ("n", .fixedPrice, n), ("e", .fixedPrice, e), ("t", .fixedPrice, t), ("c", .fixedPrice, c), ("u", .fixedPrice, u)], clock: clock, recorder: recorder)
        let outcome = try await Self.run(engine, "level_end", clock: clock)
        #expect(outcome.trace.endedAtMilliseconds == 100)
        #expect(outcome.outcome(of: "W") == .won)
        #expect(outcome.outcome(of: "L") == .lost(.lostToHigherBid))
        #expect(outcome.outcome(of: "N") == .noFill(.noInventory))
        #expect(outcome.outcome(of: "E") == .error(AdLoadResult.Error(kind: .server, code: 500, message: "scripted error")))
        #expect(outcome.outcome(of: "T") == .timeout(.source))
        #expect(outcome.trace.source("T")?.limitMilliseconds == 60)
        #expect(outcome.outcome(of: "C") == .cancelled(couldNotBeat: 2.00))
        #expect(outcome.outcome(of: "U") == .notAsked(.underFloor))
        #expect(u.requestCount == 0)
        #expect(outcome.trace.source("U")?.startOffsetMilliseconds == nil)
        // Errors on the lines, with stable codes.
        #expect(outcome.trace.source("E")?.errors == [AuctionTrace.Source.Issue(code: "request_failed", message: "server(500): scripted error")])
        #expect(outcome.trace.source("T")?.errors == [AuctionTrace.Source.Issue(code: "timeout", message: "no answer by the source limit (60 ms)")])
        // C's ad still comes at 500 ms: a late answer, released once, reported once.
        #expect(try #require(c.ads.first).releaseCount == 1)
        let late = recorder.events.compactMap { event -> MediationEvent.LateAnswer? in
            if case .lateAnswer(let late) = event { return late }
            return nil
        }
        #expect(late.map(\.lineItemID) == ["C"])
        var trace = outcome.trace
        for answer in late { trace.record(answer) }
        trace.record(try #require(late.first)) // recorded once
        #expect(trace.source("C")?.lateAnswer == AuctionTrace.Source.LateAnswer(atOffsetMilliseconds: 500, released: true))
        #expect(trace.source("C")?.warnings.map(\.code) == ["late_answer"])
        #expect(trace.source("C")?.outcome == .cancelled(couldNotBeat: 2.00))
    }

    @Test("two answers at the same instant give the same trace in both processing orders (R5 tie: the source listed first)", arguments: [false, true])
    func sameInstantAnswersInBothOrders(reversed: Bool) async throws {
        func run(firstProcessed: Int) async throws -> AuctionTrace {
            let clock = ManualClock()
            // Both fill at 100 ms; the one processed first registers its sleep at 0 ms, the other at 50 ms.
            let a = TimedAdapter(clock: clock, registerAt: firstProcessed == 0 ? .zero : .milliseconds(50), at: .milliseconds(100)) { _ in .fill(OutcomeRuleTests.ad("a", "neta")) }
            let b = TimedAdapter(clock: clock, registerAt: firstProcessed == 1 ? .zero : .milliseconds(50), at: .milliseconds(100)) { _ in .fill(OutcomeRuleTests.ad("b", "netb")) }
            let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [
                .fixedPrice("NetA", network: "neta", eCPM: reversed ? 1.20 : 0.80),
                .fixedPrice("NetB", network: "netb", eCPM: reversed ? 1.20 : 0.80),
            ])
            let engine = try Self.engine(placement, [("neta", .fixedPrice, a), ("netb", .fixedPrice, b)], clock: clock)
            var trace = try await Self.run(engine, "level_end", clock: clock).trace
            trace.auctionID = "masked"
            return trace
        }
        let aFirst = try await run(firstProcessed: 0)
        let bFirst = try await run(firstProcessed: 1)
        #expect(aFirst == bFirst)
        // Equal values at the same instant: the source listed first wins; the other loses (102).
        #expect(aFirst.winner == "NetA")
        #expect(aFirst.source("NetB")?.outcome == .lost(.lostToHigherBid))
        #expect(aFirst.source("NetB")?.adReleased == true)
        #expect(aFirst.endedAtMilliseconds == 100)
    }

    @Test("a higher and a lower fill at the same instant: the lower one is lost (102), not cancelled, in both orders")
    func sameInstantDifferentValues() async throws {
        func run(lowerFirst: Bool) async throws -> AuctionTrace {
            let clock = ManualClock()
            let high = TimedAdapter(clock: clock, registerAt: lowerFirst ? .milliseconds(50) : .zero, at: .milliseconds(100)) { _ in .fill(OutcomeRuleTests.ad("a", "neta")) }
            let low = TimedAdapter(clock: clock, registerAt: lowerFirst ? .zero : .milliseconds(50), at: .milliseconds(100)) { _ in .fill(OutcomeRuleTests.ad("b", "netb")) }
            let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [
                .fixedPrice("NetA", network: "neta", eCPM: 1.20),
                .fixedPrice("NetB", network: "netb", eCPM: 0.80),
            ])
            let engine = try Self.engine(placement, [("neta", .fixedPrice, high), ("netb", .fixedPrice, low)], clock: clock)
            var trace = try await Self.run(engine, "level_end", clock: clock).trace
            trace.auctionID = "masked"
            return trace
        }
        let one = try await run(lowerFirst: true)
        let other = try await run(lowerFirst: false)
        #expect(one == other)
        #expect(one.source("NetB")?.outcome == .lost(.lostToHigherBid))
        #expect(one.source("NetB")?.lateAnswer == nil)
    }

    @Test("an answer at exactly the deadline counts as arrived; at the line item's limit too")
    func answerAtTheDeadlineCounts() async throws {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(3000), .bid(5.00))],
            netA: [.after(.milliseconds(500), .fill)],
            netB: [.after(.milliseconds(100), .noFill)],
            netATimeout: .milliseconds(500)
        )
        let outcome = await harness.run()
        #expect(outcome.endedAt == 3000)
        #expect(outcome.winner?.lineItem.id == "Bid")
        #expect(outcome.outcome(of: "Bid") == .won)
        // NetA answered at its own 500 ms limit: it counts, and loses to the bid.
        #expect(outcome.outcome(of: "NetA") == .lost(.lostToHigherBid))
        #expect(outcome.trace.source("NetA")?.latencyMilliseconds == 500)
        #expect(harness.lateAnswers.isEmpty)
    }

    @Test("a source past its own limit times out; its answer later is recorded on its line as a late answer, its ad released once")
    func lateAnswerOnTheLine() async throws {
        let harness = AuctionHarness(
            bid: [.never],
            netA: [.after(.milliseconds(700), .fill)],
            netB: [.after(.milliseconds(100), .fill)],
            netATimeout: .milliseconds(500)
        )
        let outcome = await harness.run()
        #expect(outcome.endedAt == 3000)
        #expect(outcome.winner?.lineItem.id == "NetB")
        let netA = try #require(outcome.trace.source("NetA"))
        #expect(netA.outcome == .timeout(.source))
        #expect(netA.latencyMilliseconds == nil)
        #expect(netA.lateAnswer == AuctionTrace.Source.LateAnswer(atOffsetMilliseconds: 700, released: true))
        #expect(netA.adReleased == false)
        #expect(try #require(harness.netA.ads.first).releaseCount == 1)
        #expect(harness.lateAnswers.map(\.lineItemID) == ["NetA"])
        #expect(outcome.outcome(of: "Bid") == .timeout(.deadline))
    }

    @Test("waterfall: a tier never reached is not_asked with its tier; a cancelled source carries the value it could not beat")
    func waterfallNotAskedAndCancelledValue() async throws {
        let harness = AuctionHarness(
            bid: [.after(.milliseconds(300), .bid(1.00))],
            netA: [.after(.milliseconds(100), .fill)],
            netB: [.after(.milliseconds(100), .fill)],
            mode: .waterfall
        )
        let outcome = await harness.run()
        // NetA (tier 1, 1.20) fills at 100 ms; the bidder (1.00) cannot win any more... but a
        // bidder's price is unknown: the auction waits for it; it loses at 300 ms.
        #expect(outcome.endedAt == 300)
        #expect(outcome.winner?.lineItem.id == "NetA")
        #expect(outcome.outcome(of: "NetB") == .notAsked(.tierNotReached))
        #expect(outcome.trace.source("NetB")?.tier == 2)
        #expect(harness.netB.requestCount == 0)

        let parallel = AuctionHarness(
            bid: [.after(.milliseconds(50), .bid(2.00))],
            netA: [.after(.milliseconds(200), .fill)],
            netB: [.after(.milliseconds(10), .noFill)]
        )
        let second = await parallel.run()
        #expect(second.outcome(of: "NetA") == .cancelled(couldNotBeat: 2.00))
        let json = String(decoding: try JSONEncoder().encode(second.trace), as: UTF8.self)
        #expect(json.contains(#""could_not_beat":2"#))
    }

    @Test("the same inputs give the same trace, line for line")
    func sameInputsSameTrace() async throws {
        var traces: [String] = []
        for _ in 0..<3 {
            let harness = AuctionHarness(bid: [.after(.milliseconds(100), .bid(1.00))], netA: [.after(.milliseconds(100), .fill)], netB: [.after(.milliseconds(100), .fill)])
            var trace = await harness.run().trace
            trace.auctionID = "masked"
            trace.startedAtWallClock = nil
            traces.append(trace.description)
        }
        #expect(Set(traces).count == 1)
    }
    @Test("the JSON trace: per-line ad unit, pricing, position, tier, configured eCPM, currency and rate, limit, ids; per-auction wall-clock start, deadline length and instant, placement summary")
    func traceJSONFields() async throws {
        let clock = ManualClock()
        let eur = ScriptedAdapter(network: "eur", pricing: .bidder, clock: clock, script: [.after(.milliseconds(40), .bid(1.00))], ads: .init(format: .interstitial, size: AdSize(width: 390, height: 844)))
        let tierOne = ScriptedAdapter(network: "one", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(30), .noFill)])
        let tierTwo = ScriptedAdapter(network: "two", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(20), .bid(0.01))], ads: .init(format: .interstitial, size: AdSize(width: 390, height: 844)))
        var eurItem = LineItem.bidder("Eur", network: "eur", adUnitID: "eur-unit", floor: 0.50)
        eurItem.currency = "EUR"
        eurItem.usdRate = 1.10
        let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, deadline: .milliseconds(2000), floor: 0.10, mode: .waterfall, sources: [
            eurItem,
            .fixedPrice("One", network: "one", adUnitID: "one-unit", eCPM: 1.50, timeout: .milliseconds(800)),
            .fixedPrice("Two", network: "two", adUnitID: "two-unit", eCPM: 0.90),
        ])
        var networks = PrebuiltNetworks()
        networks.add("eur", pricing: .bidder, adapter: eur)
        networks.add("one", pricing: .fixedPrice, adapter: tierOne)
        networks.add("two", pricing: .fixedPrice, adapter: tierTwo)
        let engine = try MediationEngine(
            configuration: networks.configuration(placements: [placement], currencyRates: ["EUR": 1.10]),
            registry: networks.registry,
            environment: MediationEnvironment(clock: clock, wallClock: { OutcomeRuleTests.fixedTime })
        )
        await clock.advance(to: .origin + .milliseconds(1000)) // the auction starts at 1000 ms
        let outcome = try await Self.run(engine, "level_end", clock: clock)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(outcome.trace)
        let trace = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(trace["started_at"] as? String == "2025-12-01T12:00:00.000Z")
        #expect(trace["started_at_ms"] as? Double == 1000)
        #expect(trace["deadline_ms"] as? Double == 2000)
        #expect(trace["deadline_at_ms"] as? Double == 3000)
        #expect(trace["ended_at_ms"] as? Double == 1040)
        #expect(trace["duration_ms"] as? Double == 40)
        let summary = try #require(trace["placement_config"] as? [String: Any])
        #expect(summary["format"] as? String == "interstitial")
        #expect(summary["floor"] as? Double == 0.10)
        #expect(summary["mode"] as? String == "waterfall")
        #expect(summary["deadline_ms"] as? Double == 2000)
        let lines = try #require(trace["sources"] as? [[String: Any]])
        let eurLine = lines[0]
        #expect(eurLine["ad_unit_id"] as? String == "eur-unit")
        #expect(eurLine["pricing"] as? String == "bidder")
        #expect(eurLine["position"] as? Int == 0)
        #expect(eurLine["tier"] == nil)
        #expect(eurLine["floor"] as? Double == 0.50)
        #expect(eurLine["currency"] as? String == "EUR")
        #expect(eurLine["usd_rate"] as? Double == 1.10)
        #expect(eurLine["raw_price"] as? Double == 1.00)
        #expect(eurLine["ecpm"] as? Double == 1.10)
        #expect(eurLine["limit_ms"] as? Double == 2000)
        #expect(eurLine["start_ms"] as? Double == 0)
        #expect(eurLine["latency_ms"] as? Double == 40)
        #expect((eurLine["outcome"] as? [String: Any])?["status"] as? String == "won")
        let one = lines[1]
        #expect(one["tier"] as? Int == 1)
        #expect(one["configured_ecpm"] as? Double == 1.50)
        #expect(one["currency"] as? String == "USD")
        #expect(one["usd_rate"] == nil)
        #expect(one["limit_ms"] as? Double == 800)
        let two = lines[2]
        #expect(two["tier"] as? Int == 2)
        #expect(two["start_ms"] as? Double == 30) // asked when tier 1 answered without a fill
        // Its 0.90 could not beat the converted bid (1.10) that came at 40 ms: cancelled then.
        let cancelled = try #require(two["outcome"] as? [String: Any])
        #expect(cancelled["status"] as? String == "cancelled")
        #expect(cancelled["could_not_beat"] as? Double == 1.10)
        #expect(two["errors"] as? [Any] != nil)
        // Decoding gives the same trace back.
        #expect(try JSONDecoder().decode(AuctionTrace.self, from: data) == outcome.trace)
    }
}

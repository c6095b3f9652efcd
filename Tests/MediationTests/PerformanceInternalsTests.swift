import Foundation
import Testing
@testable import Mediation
import MediationTestKit

/// Attacks on the internals the performance work changed: the trace's shared box and lines
/// built when read, the request's shared signals, the lock box and the manual clock's time run.
@Suite("Performance internals")
struct PerformanceInternalsTests {
    // MARK: - Support

    /// An ad class whose life a test can watch through a weak reference.
    final class TrackedAd: LoadedAd, @unchecked Sendable {
        let id: String
        let network: String
        let creativeID: String
        let format: AdFormat = .interstitial
        let size = AdSize(width: 320, height: 480)
        private let released = Locked(0)

        init(id: String, network: String) {
            self.id = id
            self.network = network
            creativeID = "creative-\(id)"
        }

        var releaseCount: Int { released.withLock { $0 } }

        func releaseResources() { released.withLock { $0 += 1 } }
    }

    /// Holds an ad weakly.
    final class WeakAd: @unchecked Sendable {
        weak var ad: TrackedAd?
        init(_ ad: TrackedAd) { self.ad = ad }
    }

    /// A network that answers with a fresh ``TrackedAd`` after `delay` on `clock` (ignoring
    /// cancellation when `ignoresCancellation`), keeping only weak references to its ads.
    final class TrackingAdapter: AdNetworkAdapter {
        let network: String
        let clock: ManualClock
        let delay: Duration
        let ignoresCancellation: Bool
        private let made = Locked<[WeakAd]>([])

        init(network: String, clock: ManualClock, delay: Duration = .zero, ignoresCancellation: Bool = false) {
            self.network = network
            self.clock = clock
            self.delay = delay
            self.ignoresCancellation = ignoresCancellation
        }

        /// Weak references to every ad it handed out.
        var ads: [WeakAd] { made.withLock { $0 } }

        func loadAd(for request: AdRequest) async -> AdLoadResult {
            if delay > .zero {
                let deadline = clock.now + delay
                if ignoresCancellation {
                    await clock.sleepIgnoringCancellation(until: deadline)
                } else {
                    do { try await clock.sleep(until: deadline) } catch { return .failure(AdLoadResult.Error(kind: .cancelled, message: "cancelled")) }
                }
            }
            let ad = TrackedAd(id: "\(network)-\(made.withLock { $0.count })", network: network)
            made.withLock { $0.append(WeakAd(ad)) }
            return .fill(ad)
        }
    }

    /// An auction of `level_end` over fixed-price sources `(id, eCPM, adapter)`, run on `clock`
    /// until `until`, with the late answers it reports.
    private static func runAuction(
        clock: ManualClock,
        sources: [(String, Double, any AdNetworkAdapter)],
        deadline: Duration = .milliseconds(300),
        until: Duration = .seconds(1),
        lateAnswers: Locked<[MediationEvent.LateAnswer]> = Locked([])
    ) async -> MediationEngine.AuctionOutcome {
        let placement = MediationConfiguration.Placement(
            id: "level_end",
            format: .interstitial,
            deadline: deadline,
            sources: sources.map { .fixedPrice($0.0, eCPM: $0.1) }
        )
        let auction = Auction(
            placement: placement,
            sources: zip(placement.sources, sources).map { AuctionSource(lineItem: $0, adapter: $1.2) },
            clock: clock
        )
        let task = clock.startTask {
            await auction.run(request: AdRequest(placementID: "level_end", format: .interstitial)) { late in
                lateAnswers.withLock { $0.append(late) }
            }
        }
        await clock.advance(to: clock.now + until)
        return await task.value
    }

    /// A finished auction's trace whose lines have not been read yet (Fast fills at once,
    /// Slow at 500 ms, past the 300 ms deadline).
    private static func lazyTrace() async -> (MediationEngine.AuctionOutcome, [MediationEvent.LateAnswer]) {
        let clock = ManualClock()
        let late = Locked<[MediationEvent.LateAnswer]>([])
        let outcome = await runAuction(
            clock: clock,
            sources: [
                ("Fast", 1.0, TrackingAdapter(network: "Fast", clock: clock)),
                ("Slow", 2.0, TrackingAdapter(network: "Slow", clock: clock, delay: .milliseconds(500), ignoresCancellation: true)),
            ],
            lateAnswers: late
        )
        return (outcome, late.withLock { $0 })
    }

    // MARK: - Trace

    @Test("Changing a copy of an auction's trace, its lines or a late answer, never changes the original")
    func traceCopiesAreValues() async throws {
        let (outcome, lateAnswers) = await Self.lazyTrace()
        let original = outcome.trace
        let late = try #require(lateAnswers.first)
        #expect(late.lineItemID == "Slow")

        var copy = original
        copy.record(late)
        #expect(copy.source("Slow")?.lateAnswer != nil)
        #expect(original.source("Slow")?.lateAnswer == nil)
        #expect(outcome.trace.source("Slow")?.warnings.isEmpty == true)
        #expect(copy != original)

        var second = original
        second.sources[0].outcome = .noFill(.noInventory)
        second.winner = "Nobody"
        #expect(original.source("Fast")?.outcome == .won)
        #expect(original.winner == "Fast")
        #expect(copy.winner == "Fast")
        #expect(copy.source("Fast")?.outcome == .won)

        // Recording the same late answer again, or another auction's, changes nothing.
        var again = copy
        again.record(late)
        #expect(again == copy)
        var other = late
        other.auctionID = "another"
        var untouched = original
        untouched.record(other)
        #expect(untouched == original)
    }

    @Test("A trace whose lines are built when read equals and hashes like its JSON round trip")
    func lazyTraceEqualsItsRoundTrip() async throws {
        let (outcome, lateAnswers) = await Self.lazyTrace()
        var traces = [outcome.trace]
        var recorded = outcome.trace
        for late in lateAnswers { recorded.record(late) }
        traces.append(recorded)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for trace in traces {
            let data = try encoder.encode(trace)
            let decoded = try JSONDecoder().decode(AuctionTrace.self, from: data)
            #expect(decoded == trace)
            #expect(trace == decoded)
            #expect(decoded.hashValue == trace.hashValue)
            #expect(Set([trace, decoded]).count == 1)
            #expect(try encoder.encode(decoded) == data)
        }
        // Built from a fresh auction (lines never read), the hash comes first.
        let (fresh, _) = await Self.lazyTrace()
        let hash = fresh.trace.hashValue
        let decoded = try JSONDecoder().decode(AuctionTrace.self, from: JSONEncoder().encode(fresh.trace))
        #expect(decoded.hashValue == hash)
    }

    @Test("Many tasks reading an unread trace's lines at once all get the same lines")
    func concurrentReadsOfLazyLines() async {
        let (outcome, _) = await Self.lazyTrace()
        let trace = outcome.trace
        let readings = await withTaskGroup(of: [AuctionTrace.Source].self) { group in
            for _ in 0..<64 {
                group.addTask { trace.sources }
            }
            var readings: [[AuctionTrace.Source]] = []
            for await lines in group { readings.append(lines) }
            return readings
        }
        #expect(readings.count == 64)
        #expect(readings.allSatisfy { $0 == readings[0] })
        #expect(readings[0].map(\.lineItemID) == ["Fast", "Slow"])
        #expect(trace.sources == readings[0])
    }

    @Test("A trace keeps no ad alive: the losers' ads die with the auction, the winner's with the outcome")
    func traceHoldsNoAds() async {
        let clock = ManualClock()
        let winner = TrackingAdapter(network: "Winner", clock: clock)
        let loser = TrackingAdapter(network: "Loser", clock: clock, delay: .milliseconds(10))
        var outcome: MediationEngine.AuctionOutcome? = await Self.runAuction(
            clock: clock,
            sources: [("Loser", 1.0, loser), ("Winner", 2.0, winner), ("Late", 3.0, TrackingAdapter(network: "Late", clock: clock, delay: .milliseconds(500), ignoresCancellation: true))]
        )
        let trace = outcome?.trace
        #expect(trace?.winner == "Winner")
        #expect(outcome?.winner?.ad is TrackedAd)
        #expect(loser.ads.count == 1 && loser.ads.allSatisfy { $0.ad == nil })
        #expect(winner.ads.count == 1 && winner.ads.allSatisfy { $0.ad != nil })
        outcome = nil
        #expect(winner.ads.allSatisfy { $0.ad == nil })
        #expect(trace?.sources.count == 3)
    }

    @Test("A hung source keeps its auction's run alive, but not the winner's ad once the outcome is gone")
    func hungSourceDoesNotHoldTheWinner() async {
        let clock = ManualClock()
        let winner = TrackingAdapter(network: "Winner", clock: clock)
        // Answers an hour later whatever happens: its task, and the run it reports to, live on.
        let hung = TrackingAdapter(network: "Hung", clock: clock, delay: .seconds(3600), ignoresCancellation: true)
        var outcome: MediationEngine.AuctionOutcome? = await Self.runAuction(
            clock: clock,
            sources: [("Winner", 2.0, winner), ("Hung", 3.0, hung)]
        )
        #expect(outcome?.trace.source("Hung")?.outcome == .timeout(.deadline))
        #expect(outcome?.winner != nil)
        outcome = nil
        #expect(clock.sleeperCount == 1)
        #expect(winner.ads.count == 1 && winner.ads.allSatisfy { $0.ad == nil })
        await clock.advance(by: .seconds(3600))
        #expect(hung.ads.allSatisfy { $0.ad == nil })
    }

    @Test("An answer after the end is reported once, its ad released, and recorded on the outcome's trace")
    func lateAnswerAfterTheEnd() async throws {
        let clock = ManualClock()
        let late = Locked<[MediationEvent.LateAnswer]>([])
        let slow = TrackingAdapter(network: "Slow", clock: clock, delay: .milliseconds(500), ignoresCancellation: true)
        var outcome = await Self.runAuction(
            clock: clock,
            sources: [("Fast", 1.0, TrackingAdapter(network: "Fast", clock: clock)), ("Slow", 2.0, slow)],
            lateAnswers: late
        )
        let answers = late.withLock { $0 }
        #expect(answers.count == 1)
        let answer = try #require(answers.first)
        #expect(answer.auctionID == outcome.trace.auctionID)
        #expect(answer.arrivedAt == .origin + .milliseconds(500))
        #expect(answer.adReleased)
        #expect(slow.ads.count == 1 && slow.ads.allSatisfy { $0.ad == nil })
        #expect(outcome.trace.source("Slow")?.outcome == .timeout(.deadline))
        #expect(outcome.trace.endedAtMilliseconds == 300)
        outcome.trace.record(answer)
        let line = try #require(outcome.trace.source("Slow"))
        #expect(line.lateAnswer == AuctionTrace.Source.LateAnswer(atOffsetMilliseconds: 500, released: true))
        #expect(line.warnings.count == 1)
        #expect(outcome.trace.source("Fast")?.lateAnswer == nil)
        #expect(outcome.winner?.lineItem.id == "Fast")
    }

    @Test("What the engine's tallies read of an unread line matches the line once built")
    func summariesMatchBuiltLines() async {
        let clock = ManualClock()
        let outcome = await Self.runAuction(
            clock: clock,
            sources: [
                ("NoFill", 5.0, ScriptedAdapter(network: "NoFill", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(5), .noFill)])),
                ("Error", 4.0, ScriptedAdapter(network: "Error", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(7), .error)])),
                ("Timeout", 3.0, ScriptedAdapter(network: "Timeout", pricing: .fixedPrice, clock: clock, script: [.never])),
                ("Won", 2.0, TrackingAdapter(network: "Won", clock: clock, delay: .milliseconds(20))),
                ("Lost", 1.0, TrackingAdapter(network: "Lost", clock: clock, delay: .milliseconds(10))),
                ("Invalid", -1.0, TrackingAdapter(network: "Invalid", clock: clock)),
            ]
        )
        let lazy = outcome.trace
        #expect(lazy.sourceCount == 6)
        var summaries: [(Bool, Double?, SourceOutcome)] = []
        var signals: [HealthSignal?] = []
        var notices: [AuctionNotice?] = []
        for index in 0..<lazy.sourceCount {
            let summary = lazy.sourceSummary(at: index)
            summaries.append((summary.wasAsked, summary.latencyMilliseconds, summary.outcome))
            signals.append(lazy.healthSignals.signal(at: index))
            notices.append(lazy.notice(at: index, adUnitID: "unit-\(index)") { won in won ? 9 : 8 })
        }
        let lines = lazy.sources
        #expect(lines.map(\.outcome) == summaries.map(\.2))
        #expect(lines.map(\.latencyMilliseconds) == summaries.map(\.1))
        #expect(lines.map { $0.startOffsetMilliseconds != nil } == summaries.map(\.0))
        #expect(notices.map { $0 != nil } == summaries.map(\.0))
        #expect(signals == [.success, .failure, .failure, .success, .success, nil])
        #expect(notices[3]?.priceToBeat == 9)
        #expect(notices[4]?.priceToBeat == 8)
        #expect(notices[4]?.adUnitID == "unit-4")
        #expect(notices[4]?.lineItemID == "Lost")
        #expect(lines.map(\.lineItemID) == ["NoFill", "Error", "Timeout", "Won", "Lost", "Invalid"])
        #expect(lines[2].outcome == .timeout(.deadline))
        #expect(lines[3].outcome == .won)
        #expect(lines[5].startOffsetMilliseconds == nil)
        // A trace with the same lines set by hand (built) gives the same summaries.
        var built = lazy
        built.sources = lines
        #expect(built == lazy)
        for index in 0..<built.sourceCount {
            #expect(built.sourceSummary(at: index).outcome == summaries[index].2)
            #expect(built.sourceSummary(at: index).latencyMilliseconds == summaries[index].1)
            #expect(built.healthSignals.signal(at: index) == signals[index])
            #expect(built.notice(at: index, adUnitID: "unit-\(index)") { won in won ? 9 : 8 } == notices[index])
        }
    }

    @Test("An auction's notices read straight from its record equal those of its built lines, ties for the top value included", arguments: [
        [3.0, 2.0, 1.0], // the winner beat 2.0
        [2.0, 2.0, 1.0], // a tie at the top: the winner (config order) had to beat the other 2.0
        [1.0, 2.0, 2.0], // a tie at the top behind a lower first line
        [2.0, -1.0, 1.0], // an invalid price is no value to beat
        [2.0],            // alone: no price to beat
    ])
    func noticesFromTheRecordMatchBuiltLines(prices: [Double]) async {
        let clock = ManualClock()
        let outcome = await Self.runAuction(
            clock: clock,
            sources: prices.enumerated().map { index, price in ("S\(index)", price, TrackingAdapter(network: "S\(index)", clock: clock, delay: .milliseconds(5 * (prices.count - index)))) }
        )
        func notices(of trace: AuctionTrace) -> [AuctionNotice] {
            var notices: [AuctionNotice] = []
            AuctionNotice.forEachNotice(of: trace, sourceCount: prices.count, to: { _ in true }, adUnitID: { "unit-\($0)" }) { _, notice in notices.append(notice) }
            return notices
        }
        let fresh = outcome.trace
        #expect(fresh.deferredLines != nil)
        let fromRecord = notices(of: fresh)
        var built = fresh
        built.sources = fresh.sources
        #expect(built.deferredLines == nil)
        #expect(fromRecord == notices(of: built))
        // The winner had to beat the highest valid value of the other lines, each loser the
        // winner's (the last line answers first, so the lower prices are in before the winner).
        let winner = fromRecord.first { $0.outcome == .won }
        let others = built.sources.filter { $0.lineItemID != winner?.lineItemID && $0.startOffsetMilliseconds != nil }.compactMap(\.eCPM)
        #expect(winner != nil)
        #expect(winner?.priceToBeat == others.max())
        #expect(fromRecord.filter { $0.outcome != .won }.allSatisfy { $0.priceToBeat == winner?.eCPM })
    }

    @Test("Auctions of one prepared machine keep their own lines, read in any order")
    func tracesOfOneAuctionObjectAreIndependent() async {
        let clock = ManualClock()
        let answers: [ScriptedAnswer] = [.after(.milliseconds(5), .fill), .after(.milliseconds(7), .noFill), .after(.milliseconds(9), .error)]
        let first = ScriptedAdapter(network: "First", pricing: .fixedPrice, clock: clock, script: answers)
        let second = ScriptedAdapter(network: "Second", pricing: .fixedPrice, clock: clock, script: Array(answers.reversed()))
        let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, deadline: .milliseconds(300), sources: [.fixedPrice("First", eCPM: 2), .fixedPrice("Second", eCPM: 1)])
        let auction = Auction(placement: placement, sources: [AuctionSource(lineItem: placement.sources[0], adapter: first), AuctionSource(lineItem: placement.sources[1], adapter: second)], clock: clock)
        var traces: [AuctionTrace] = []
        for _ in 0..<3 {
            let task = clock.startTask { await auction.run(request: AdRequest(placementID: "level_end", format: .interstitial)).trace }
            await clock.advance(by: .seconds(1))
            traces.append(await task.value)
        }
        // Read last to first: each trace shows its own auction.
        let outcomes = traces.reversed().map { $0.sources.map(\.outcome) }.reversed().map { $0 }
        #expect(outcomes[0] == [.won, .cancelled(couldNotBeat: 2)])
        #expect(outcomes[1] == [.noFill(.noInventory), .noFill(.noInventory)])
        #expect(outcomes[2].first == .error(AdLoadResult.Error(kind: .server, code: 500, message: "scripted error")))
        #expect(outcomes[2].last == .won)
        #expect(Set(traces.map(\.auctionID)).count == 3)
        #expect(traces.map(\.startedAtMilliseconds) == [0, 1000, 2000])
        #expect(traces[0].sources[0].latencyMilliseconds == 5)
        #expect(traces[2].sources[1].latencyMilliseconds == 5)
    }

    @Test("A cancelled auction's trace holds no ad and every ad it took is released once")
    func cancelledAuctionHoldsNoAds() async {
        let clock = ManualClock()
        let early = TrackingAdapter(network: "Early", clock: clock, delay: .milliseconds(10))
        let slow = TrackingAdapter(network: "Slow", clock: clock, delay: .milliseconds(200))
        let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, deadline: .milliseconds(300), sources: [.fixedPrice("Early", eCPM: 1), .fixedPrice("Slow", eCPM: 2)])
        let auction = Auction(placement: placement, sources: [AuctionSource(lineItem: placement.sources[0], adapter: early), AuctionSource(lineItem: placement.sources[1], adapter: slow)], clock: clock)
        let task = clock.startTask { await auction.run(request: AdRequest(placementID: "level_end", format: .interstitial)) }
        await clock.advance(to: .origin + .milliseconds(50))
        #expect(early.ads.count == 1 && early.ads.allSatisfy { $0.ad != nil })
        task.cancel()
        await clock.runUntilIdle()
        let outcome = await task.value
        await clock.advance(by: .seconds(1))
        #expect(outcome.winner == nil)
        #expect(outcome.trace.source("Early")?.outcome == .cancelled(couldNotBeat: nil))
        #expect(outcome.trace.source("Early")?.adReleased == true)
        #expect(early.ads.allSatisfy { $0.ad == nil })
        #expect(slow.ads.isEmpty)
    }

    // MARK: - Request signals

    @Test("Changing one request's device or privacy never changes another request or the template")
    func requestSignalsAreValues() {
        var template = RequestTemplate()
        template.device.advertisingID = "template-ifa"
        let placement = MediationConfiguration.Placement(id: "home_banner", format: .banner, sources: [.bidder("Bid")])
        let first = template.request(for: placement, slot: SlotSize(), context: AdRequest.Context(), at: .origin)
        var second = first
        var third = template.request(for: placement, slot: SlotSize(), context: AdRequest.Context(), at: .origin)
        #expect(first == second && first == third)
        #expect(first.hashValue == third.hashValue)

        second.device.advertisingID = "changed"
        second.privacy.coppa = true
        #expect(first.device.advertisingID == "template-ifa")
        #expect(first.privacy.coppa == false)
        #expect(third.device.advertisingID == "template-ifa")
        #expect(template.device.advertisingID == "template-ifa")
        #expect(template.privacy.coppa == false)
        #expect(second != first)

        third.screen.width = 1
        third.app.bundleID = "other"
        #expect(first.screen == template.screen)
        #expect(first.app == template.app)

        // The template changing later does not reach requests already made.
        template.privacy.coppa = true
        #expect(first.privacy.coppa == false)

        // Equal signals in separate boxes are equal and hash alike.
        var rebuilt = AdRequest(placementID: "home_banner", format: .banner, bannerSizing: first.bannerSizing, slot: first.slot, screen: first.screen, context: first.context, device: first.device, app: first.app, privacy: first.privacy, deadline: first.deadline, timeBudget: first.timeBudget)
        #expect(rebuilt == first)
        #expect(rebuilt.hashValue == first.hashValue)
        #expect(Set([rebuilt, first]).count == 1)
        rebuilt.device.advertisingID = nil
        #expect(rebuilt != first)

        let same = RequestTemplate(screen: template.screen, device: template.device, app: template.app, privacy: template.privacy)
        #expect(same == template && same.hashValue == template.hashValue)
    }

    // MARK: - Lock box

    @Test("The lock box keeps every change made from many tasks at once")
    func lockedUnderContention() async {
        let counter = Locked(0)
        let log = Locked<[Int]>([])
        let tasks = 32
        let rounds = 2000
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for round in 0..<rounds {
                        counter.withLock { $0 += 1 }
                        if round % 100 == 0 { log.withLock { $0.append(task) } }
                        // A copy of the box shares it.
                        let copy = counter
                        _ = copy.withLock { $0 }
                    }
                }
            }
        }
        #expect(counter.withLock { $0 } == tasks * rounds)
        #expect(log.withLock { $0.count } == tasks * rounds / 100)
        struct Failure: Error {}
        #expect(throws: Failure.self) { try counter.withLock { _ in throw Failure() } }
        // A throwing body leaves the lock free.
        #expect(counter.withLock { $0 } == tasks * rounds)
    }
}

import Mediation
import MediationTestKit
import Testing

@Suite("ScriptedAdapter")
struct ScriptedAdapterTests {
    @Test("answers after its delay on the manual clock, then repeats the last answer")
    func answersAfterDelay() async throws {
        let clock = ManualClock()
        let adapter = ScriptedAdapter(network: "neta", pricing: .fixedPrice, clock: clock, script: [
            .after(.milliseconds(100), .fill),
            .after(.milliseconds(50), .noFill),
        ])
        let request = AdRequest(placementID: "p", format: .banner)
        let first = clock.startTask { await adapter.loadAd(for: request) }
        #expect(await clock.settle { clock.sleeperCount > 0 })
        await clock.advance(by: .milliseconds(99))
        #expect(adapter.answerInstants.isEmpty)
        await clock.advance(by: .milliseconds(1))
        let result = await first.value
        let ad = try #require(result.ad as? ScriptedAd)
        #expect(ad.network == "neta")
        #expect(ad.size == AdSize(width: 320, height: 50))
        #expect(adapter.answerInstants == [.origin + .milliseconds(100)])

        for _ in 0..<2 {
            let next = clock.startTask { await adapter.loadAd(for: request) }
            #expect(await clock.settle { clock.sleeperCount > 0 })
            await clock.advance(by: .milliseconds(50))
            guard case .noFill = await next.value else {
                Issue.record("expected no fill")
                return
            }
        }
        #expect(adapter.requestCount == 3)
        #expect(adapter.ads.count == 1)
    }

    @Test("a bid carries its price; an error is a server failure")
    func bidAndError() async throws {
        let clock = ManualClock()
        let adapter = ScriptedAdapter(network: "bid", pricing: .bidder, clock: clock, script: [.after(.zero, .bid(2.5)), .after(.zero, .error)])
        let request = AdRequest(placementID: "p", format: .interstitial, slot: SlotSize(maxWidth: 195))
        guard case .bid(let ad, let eCPM) = await adapter.loadAd(for: request) else {
            Issue.record("expected a bid")
            return
        }
        #expect(eCPM == 2.5)
        #expect(ad.format == .interstitial)
        #expect(ad.size.width == 195)
        guard case .failure(let error) = await adapter.loadAd(for: request) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .server)
    }

    @Test("a cancelled request still answers at its time unless it honours cancellation")
    func cancellation() async {
        let clock = ManualClock()
        let stubborn = ScriptedAdapter(network: "a", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)])
        let polite = ScriptedAdapter(network: "b", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)], honoursCancellation: true)
        let request = AdRequest(placementID: "p", format: .banner)
        let first = clock.startTask { await stubborn.loadAd(for: request) }
        let second = clock.startTask { await polite.loadAd(for: request) }
        await clock.runUntilIdle()
        first.cancel()
        second.cancel()
        guard case .failure(let error) = await second.value else {
            Issue.record("expected the polite adapter to stop")
            return
        }
        #expect(error.kind == .cancelled)
        await clock.advance(by: .milliseconds(100))
        #expect(await first.value.ad != nil)
        #expect(stubborn.answersAfterCancellation == 1)
        #expect(stubborn.answerInstants == [.origin + .milliseconds(100)])
    }

    @Test("never answers, even when cancelled")
    func never() async {
        let clock = ManualClock()
        let adapter = ScriptedAdapter(network: "n", pricing: .fixedPrice, clock: clock, script: [.never])
        let request = AdRequest(placementID: "p", format: .banner)
        let task = clock.startTask { await adapter.loadAd(for: request) }
        // It suspends without sleeping on the clock: nothing will ever wake it.
        #expect(await clock.settle { adapter.requestCount == 1 && clock.sleeperCount == 0 })
        await clock.advance(by: .seconds(10))
        task.cancel()
        await clock.advance(by: .seconds(10))
        #expect(adapter.requestCount == 1)
        #expect(adapter.answerInstants.isEmpty)
    }
}

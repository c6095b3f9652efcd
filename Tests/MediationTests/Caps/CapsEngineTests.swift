import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Mediation

/// Caps, pacing and the one-full-screen-ad rule through the engine, at exact instants on the
/// manual clock (`docs/caps.md`).
@Suite("Caps through the engine")
struct CapsEngineTests {
    static let twentyADayTenMinutesApart = MediationConfiguration.CapSettings(caps: [.init(impressions: 20, window: .seconds(86_400))], pacingSeconds: 600)

    @Test("20 a day with 10 minutes between: refused 1 ms before the pacing frees, shown at the instant; after the 20th the next auction asks no network and the placement says when it may show")
    func twentyADay() async throws {
        let harness = try CapsHarness(placements: [CapsHarness.interstitial("level_end", caps: Self.twentyADayTenMinutesApart)])
        #expect(try await harness.showAndDismiss("level_end").isImpression)
        // The pacing's edge: an ad loaded 1 ms before 10 minutes is refused at show…
        await harness.advance(to: 599.999)
        _ = try await harness.load("level_end")
        let refused = try await harness.showCurrent("level_end")
        #expect(refused.capRefusal == CapRefusal(cap: "placement:level_end pacing 600s", retryAt: at(600)))
        #expect(harness.cappedEvents.count == 1)
        // …and counts at the instant.
        await harness.advance(to: 600)
        #expect(try await harness.showCurrent("level_end").isImpression)
        let placement = try harness.placement("level_end")
        if let ad = await placement.currentAd?.ad { await placement.reportDismissed(ad) }
        for n in 2..<20 {
            await harness.advance(to: Double(n) * 600)
            #expect(try await harness.showAndDismiss("level_end").isImpression, "impression \(n + 1)")
        }
        // The 21st: the day cap binds until the first impression is a day old, past the ad's
        // one-hour life: the auction asks no network, its line item not_asked (capped).
        await harness.advance(to: 20 * 600)
        let requests = harness.adapter.requestCount
        guard case .noFill(let trace) = try await harness.load("level_end") else {
            Issue.record("an auction past the cap filled")
            return
        }
        #expect(harness.adapter.requestCount == requests)
        #expect(trace.sources.first?.outcome == .notAsked(.capped))
        #expect(trace.sources.first?.retryAtMilliseconds == 86_400_000)
        #expect(await placement.nextShowInstant == at(86_400))
        #expect(await placement.showRefusal?.cap == "placement:level_end 20/86400s")
        await harness.advance(to: 86_399.999)
        #expect(await placement.nextShowInstant == at(86_400))
        await harness.advance(to: 86_400)
        #expect(await placement.nextShowInstant == at(86_400))
        #expect(try await harness.showAndDismiss("level_end").isImpression)
    }

    @Test("an app-open ad inside the gap after an interstitial is refused until 30 s after the interstitial's end")
    func appOpenInsideTheGap() async throws {
        let harness = try CapsHarness(placements: [CapsHarness.interstitial("level_end"), CapsHarness.interstitial("app_open", format: .appOpen)])
        _ = try await harness.load("level_end")
        _ = try await harness.load("app_open")
        #expect(try await harness.showCurrent("level_end").isImpression)
        // On top of the interstitial: refused, no instant frees it (its dismissal does).
        #expect(try await harness.showCurrent("app_open").capRefusal == CapRefusal(cap: "app one_full_screen (level_end presented)", retryAt: nil))
        await harness.advance(to: 5)
        let levelEnd = try harness.placement("level_end")
        if let ad = await levelEnd.currentAd?.ad { await levelEnd.reportDismissed(ad) }
        await harness.advance(to: 34.999)
        #expect(try await harness.showCurrent("app_open").capRefusal == CapRefusal(cap: "app full_screen_gap 30s", retryAt: at(35)))
        #expect(await (try harness.placement("app_open")).nextShowInstant == at(35))
        await harness.advance(to: 35)
        #expect(try await harness.showCurrent("app_open").isImpression)
    }

    @Test("a full-screen ad reported shown in the background counts nothing")
    func showInBackground() async throws {
        let harness = try CapsHarness(placements: [CapsHarness.interstitial("app_open", format: .appOpen)])
        _ = try await harness.load("app_open")
        await harness.engine.setForeground(false)
        let result = try await harness.showCurrent("app_open")
        #expect(result == .refused(.background))
        #expect(harness.recorder.events(named: "shown").isEmpty)
        #expect(await (try harness.placement("app_open")).nextShowInstant == nil)
        await harness.engine.setForeground(true)
        #expect(try await harness.showCurrent("app_open").isImpression)
    }

    @Test("two placements racing to present: exactly one counts, the other is refused naming it")
    func twoPlacementsRacing() async throws {
        let harness = try CapsHarness(placements: [CapsHarness.interstitial("level_end"), CapsHarness.interstitial("rewarded", format: .rewarded)])
        _ = try await harness.load("level_end")
        _ = try await harness.load("rewarded")
        let a = try harness.placement("level_end")
        let b = try harness.placement("rewarded")
        let adA = try #require(await a.currentAd?.ad)
        let adB = try #require(await b.currentAd?.ad)
        let first = harness.clock.startTask { await a.reportShown(adA) }
        let second = harness.clock.startTask { await b.reportShown(adB) }
        await harness.clock.runUntilIdle()
        let results = [await first.value, await second.value]
        #expect(results.filter(\.isImpression).count == 1)
        let refusal = try #require(results.compactMap(\.capRefusal).first)
        #expect(refusal.cap.hasPrefix("app one_full_screen ("))
        #expect(harness.recorder.events(named: "shown").count == 1)
    }

    @Test("a capped line item is not_asked (capped) with its retry instant while the others are asked")
    func cappedLineItem() async throws {
        var placement = CapsHarness.interstitial("level_end")
        placement.sources[0].caps = MediationConfiguration.CapSettings(caps: [.init(impressions: 1, window: .seconds(7200))])
        placement.sources.append(.fixedPrice("level_end_low", network: "neta", eCPM: 0.5))
        let harness = try CapsHarness(placements: [placement], app: .init(fullScreenGapSeconds: 0))
        #expect(try await harness.showAndDismiss("level_end").isImpression)
        await harness.advance(to: 1)
        guard case .loaded(let ad) = try await harness.load("level_end") else {
            Issue.record("no fill")
            return
        }
        #expect(ad.lineItem.id == "level_end_low")
        let trace = try #require(harness.recorder.events(named: "auction_finished").last.flatMap { if case .auctionFinished(_, let trace, _) = $0 { trace } else { nil } })
        #expect(trace.sources.first { $0.lineItemID == "level_end_neta" }?.outcome == .notAsked(.capped))
        #expect(trace.sources.first { $0.lineItemID == "level_end_neta" }?.retryAtMilliseconds == 7_200_000)
    }

    @Test("the capped event's NDJSON names the placement, the cap and the instant it frees")
    func cappedEventRecord() throws {
        let event = MediationEvent.capped(placementID: "level_end", lineItemID: "le_neta", refusal: CapRefusal(cap: "placement:level_end 20/86400s", retryAt: at(86_400)), at: at(12_000))
        let record = EventRecord(event)
        #expect(record.event == "capped")
        #expect(record.cap == "placement:level_end 20/86400s")
        #expect(record.retryAtMilliseconds == 86_400_000)
        #expect(record.placementID == "level_end")
    }
}

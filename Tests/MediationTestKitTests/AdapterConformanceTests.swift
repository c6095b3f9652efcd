import Mediation
import MediationTestKit
import Testing

@Suite("Adapter conformance check")
struct AdapterConformanceTests {
    private static let request = AdRequest(placementID: "p", format: .banner, slot: SlotSize(maxWidth: 390, maxHeight: 90))

    @Test("an adapter that honours cancellation and hands out fresh, valid ads conforms")
    func conformingAdapter() async {
        let clock = ManualClock()
        let adapter = ScriptedAdapter(network: "good", pricing: .bidder, clock: clock, script: [.after(.milliseconds(80), .bid(1.5))], honoursCancellation: true)
        let report = await AdapterConformance.check(adapter, clock: clock, request: Self.request)
        #expect(report.failures == [])
        #expect(report.notes == [])
        #expect(report.conforms)
    }

    @Test("an adapter that ignores cancellation is caught")
    func ignoresCancellation() async {
        let clock = ManualClock()
        let adapter = ScriptedAdapter(network: "stubborn", pricing: .bidder, clock: clock, script: [.after(.milliseconds(80), .bid(1.5))])
        let report = await AdapterConformance.check(adapter, clock: clock, request: Self.request)
        #expect(report.failures == ["a cancelled request did not answer promptly (no answer without moving virtual time)"])
    }

    @Test("an adapter that never answers, bids a bad price, or reuses an ad is caught")
    func brokenAnswers() async {
        let clock = ManualClock()
        let silent = ScriptedAdapter(network: "silent", pricing: .bidder, clock: clock, script: [.never])
        let silentReport = await AdapterConformance.check(silent, clock: clock, request: Self.request)
        #expect(silentReport.failures.contains { $0.hasPrefix("request 1 did not answer by its deadline") })
        #expect(silentReport.failures.contains("4 of 4 concurrent requests did not answer by the deadline"))

        let shared = ScriptedAd(id: "same", network: "reuse", format: .banner)
        let reuse = ScriptedAdapter(network: "reuse", pricing: .bidder, clock: clock, script: [.after(.zero, .bidWith(shared, .nan))])
        let reuseReport = await AdapterConformance.check(reuse, clock: clock, request: Self.request)
        #expect(reuseReport.failures.contains("request 1 bid a price that is not finite and positive: nan"))
        #expect(reuseReport.failures.contains("request 2 handed out the ad id same twice"))
        #expect(reuseReport.notes == ["the adapter answered before waiting on the clock, so cancellation could not be checked"])

        let wrongFormat = ScriptedAdapter(network: "wrong", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(10), .fill)], ads: .init(format: .interstitial), honoursCancellation: true)
        let wrongReport = await AdapterConformance.check(wrongFormat, clock: clock, request: Self.request)
        #expect(wrongReport.failures.contains("request 1 handed out a interstitial ad for a banner request"))
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Elo preload cache")
struct EloPreloadTests {
    /// A transport whose price rises with each bid request: 1.00, 2.00, 3.00 ...
    static func risingPrices() -> EloFakeTransport {
        let count = Locked(0)
        return EloFakeTransport { request in
            let n = count.withLock { $0 += 1; return $0 }
            return .success(EloFixtures.bidResponse(for: request, price: Double(n)))
        }
    }

    @Test func preloadedAdIsServedToTheSameInputsAtItsOriginalPrice() async {
        let transport = Self.risingPrices()
        let client = EloFixtures.client(transport: transport)
        await client.preloadAd(for: EloFixtures.request()).value
        #expect(await client.preloadedAdCount == 1)
        let result = await client.loadAd(for: EloFixtures.request())
        guard case .loaded(_, let eCPM) = result else { Issue.record("expected a fill, got \(result)"); return }
        #expect(eCPM == 1.0)
        #expect(transport.bidRequests.count == 1)
        #expect(await client.preloadedAdCount == 0)
        let next = await client.loadAd(for: EloFixtures.request())
        guard case .loaded(_, let nextECPM) = next else { Issue.record("expected a fill, got \(next)"); return }
        #expect(nextECPM == 2.0)
    }

    @Test func messageIDsAndTimesDoNotChangeTheKey() async {
        let transport = Self.risingPrices()
        let client = EloFixtures.client(transport: transport)
        let original = [AdRequest.Context.Message(role: .user, content: "hello", id: "m-1", createdAt: Date(timeIntervalSince1970: 1_700_000_000))]
        let later = [AdRequest.Context.Message(role: .user, content: "hello", id: "m-99", createdAt: nil)]
        await client.preloadAd(for: EloFixtures.request(messages: original)).value
        let result = await client.loadAd(for: EloFixtures.request(messages: later))
        guard case .loaded(_, let eCPM) = result else { Issue.record("expected a fill, got \(result)"); return }
        #expect(eCPM == 1.0)
        #expect(transport.bidRequests.count == 1)
    }

    @Test func slotBoundsCompareInWholePoints() async {
        let transport = Self.risingPrices()
        let client = EloFixtures.client(transport: transport)
        await client.preloadAd(for: EloFixtures.request(maxWidth: 390.2, maxHeight: 120.9)).value
        _ = await client.loadAd(for: EloFixtures.request(maxWidth: 390.8, maxHeight: 120.1))
        #expect(transport.bidRequests.count == 1)
    }

    @Test(arguments: [
        EloFixtures.request(messages: [AdRequest.Context.Message(role: .user, content: "something else")]),
        EloFixtures.request(messages: [
            AdRequest.Context.Message(role: .assistant, content: "Where should I fly this weekend?", id: "m-1"),
            AdRequest.Context.Message(role: .assistant, content: "Tbilisi has great food.", id: "m-2"),
        ]),
        EloFixtures.request(contextObjects: []),
        EloFixtures.request(maxHeight: 150),
        EloFixtures.request(maxWidth: 320),
        EloFixtures.request(privacy: AdRequest.Privacy(gdprApplies: true)),
        EloFixtures.request(privacy: AdRequest.Privacy(usPrivacyString: "1YYN")),
        EloFixtures.request(privacy: AdRequest.Privacy(coppa: true)),
        EloFixtures.request(privacy: AdRequest.Privacy(underAgeOfConsent: true)),
        EloFixtures.request(adUnitID: "another-unit"),
    ])
    func anyOtherInputMakesANewRequest(other: AdRequest) async {
        let transport = Self.risingPrices()
        let client = EloFixtures.client(transport: transport)
        await client.preloadAd(for: EloFixtures.request()).value
        let result = await client.loadAd(for: other)
        guard case .loaded(_, let eCPM) = result else { Issue.record("expected a fill, got \(result)"); return }
        #expect(eCPM == 2.0)
        #expect(transport.bidRequests.count == 2)
    }

    @Test(arguments: [
        EloConfiguration(publisherID: "pub-1", adUnitID: "unit-default", coppa: true),
        EloConfiguration(publisherID: "pub-1", adUnitID: "unit-default", tfua: true),
    ])
    func reconfiguredCOPPAOrTFUAMakesANewRequest(reconfigured: EloConfiguration) async throws {
        let transport = Self.risingPrices()
        let client = EloFixtures.client(transport: transport)
        await client.preloadAd(for: EloFixtures.request()).value
        await client.configure(reconfigured)
        _ = await client.loadAd(for: EloFixtures.request())
        let requests = try transport.decodedBidRequests()
        #expect(requests.count == 2)
        #expect(requests.last?.regs.coppa == (reconfigured.coppa ? 1 : 0))
        #expect(requests.last?.regs.ext.tfua == (reconfigured.tfua ? 1 : 0))
    }

    @Test func preloadIsFiledUnderTheConsentOfItsRequest() async throws {
        let clock = ManualClock()
        let count = Locked(0)
        let transport = EloFakeTransport { request in
            let n = count.withLock { $0 += 1; return $0 }
            if n == 1 { try? await clock.sleep(until: .origin + .milliseconds(100)) } // the preload's answer is slow
            return .success(EloFixtures.bidResponse(for: request, price: Double(n)))
        }
        let client = EloFixtures.client(transport: transport, clock: clock)
        let preload = client.preloadAd(for: EloFixtures.request())
        #expect(await clock.settle { transport.bidRequests.count == 1 })
        // The publisher turns COPPA on while the preload (asked without it) is in flight.
        await client.configure(EloConfiguration(publisherID: "pub-1", adUnitID: "unit-default", coppa: true))
        await clock.advance(to: .origin + .milliseconds(100))
        await preload.value
        #expect(await client.preloadedAdCount == 0)
        let result = await clock.perform { await client.loadAd(for: EloFixtures.request()) }
        guard case .loaded(_, let eCPM) = result else { Issue.record("expected a fill, got \(result)"); return }
        #expect(eCPM == 2.0) // a new request, not the preloaded non-COPPA ad
        let requests = try transport.decodedBidRequests()
        #expect(requests.map(\.regs.coppa) == [0, 1])
    }

    @Test func expiredPreloadIsReleasedAndNotServed() async throws {
        let clock = ManualClock()
        let transport = Self.risingPrices()
        let client = EloFixtures.client(transport: transport, clock: clock)
        await client.preloadAd(for: EloFixtures.request(deadline: .origin + .seconds(3))).value
        let preloaded = try #require(await client.preloadedAds.first)
        await clock.advance(to: .origin + .seconds(1800)) // the fixture's exp is 1800 s
        let result = await client.loadAd(for: EloFixtures.request(deadline: clock.now + .seconds(3)))
        guard case .loaded(_, let eCPM) = result else { Issue.record("expected a fill, got \(result)"); return }
        #expect(eCPM == 2.0)
        #expect(transport.bidRequests.count == 2)
        #expect(preloaded.isReleased)
    }

    @Test func preloadStillFreshJustBeforeExpiry() async {
        let clock = ManualClock()
        let transport = Self.risingPrices()
        let client = EloFixtures.client(transport: transport, clock: clock)
        await client.preloadAd(for: EloFixtures.request()).value
        await clock.advance(to: .origin + .seconds(1800) - .milliseconds(1))
        let result = await client.loadAd(for: EloFixtures.request(deadline: clock.now + .seconds(3)))
        guard case .loaded(_, let eCPM) = result else { Issue.record("expected a fill, got \(result)"); return }
        #expect(eCPM == 1.0)
    }

    @Test func disabledClientServesNothingFromTheCache() async {
        let client = EloFixtures.client(transport: Self.risingPrices())
        await client.preloadAd(for: EloFixtures.request()).value
        await client.disable()
        let result = await client.loadAd(for: EloFixtures.request())
        guard case .noFill(.sessionDisabled) = result else { Issue.record("expected sessionDisabled, got \(result)"); return }
    }

    @Test func shutdownReleasesPreloadedAds() async throws {
        let transport = Self.risingPrices()
        let client = EloFixtures.client(transport: transport)
        await client.preloadAd(for: EloFixtures.request()).value
        let preloaded = try #require(await client.preloadedAds.first)
        #expect(!preloaded.isReleased)
        await client.shutdown()
        #expect(preloaded.isReleased)
        #expect(await client.preloadedAdCount == 0)
        await client.configure(EloFixtures.configuration)
        _ = await client.loadAd(for: EloFixtures.request())
        #expect(transport.bidRequests.count == 2)
    }

    @Test func replacingACachedAdReleasesTheOldOne() {
        var cache = EloPreloadCache(capacity: 2)
        let key = EloPreloadKey(request: EloFixtures.request(), adUnitID: "u", configuration: EloFixtures.configuration, maxHeight: 120, maxWidth: 390)
        let first = Self.ad("a1")
        let second = Self.ad("a2")
        cache.store(first, eCPM: 1, under: key, now: .origin)
        cache.store(second, eCPM: 2, under: key, now: .origin)
        #expect(first.isReleased)
        #expect(!second.isReleased)
        #expect(cache.take(key, now: .origin)?.ad.id == "a2")
        #expect(cache.count == 0)
    }

    @Test func cacheBeyondCapacityReleasesTheOldest() {
        var cache = EloPreloadCache(capacity: 2)
        let ads = ["a1", "a2", "a3"].map(Self.ad)
        for (index, ad) in ads.enumerated() {
            let key = EloPreloadKey(request: EloFixtures.request(maxHeight: Double(100 + index)), adUnitID: "u", configuration: EloFixtures.configuration, maxHeight: 100 + index, maxWidth: 390)
            cache.store(ad, eCPM: 1, under: key, now: .origin + .seconds(index))
        }
        #expect(cache.count == 2)
        #expect(ads.map(\.isReleased) == [true, false, false])
    }

    static func ad(_ id: String) -> EloAd {
        EloAd(id: id, creativeID: "c", network: "elo", format: .native, eloFormat: .strip, size: AdSize(width: 390, height: 72), timeToLive: nil, title: "t", description: nil, imageURL: nil, ctaText: nil, clickURL: nil, ctaEnabled: nil, tracking: EloWireTracking(), tracker: nil)
    }
}

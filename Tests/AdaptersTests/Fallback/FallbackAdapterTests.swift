import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Fallback network")
struct FallbackAdapterTests {
    private func request(_ adUnitID: String = "unit-1", format: AdFormat = .banner, slot: SlotSize = SlotSize(maxHeight: 90)) -> AdRequest {
        AdRequest(placementID: "home_banner", adUnitID: adUnitID, format: format, bannerSizing: format == .banner ? .anchored : nil, slot: slot)
    }

    private func instantAdapter(fillRate: Double = 1, seed: UInt64 = 1, optionSeed: UInt64 = 0, clock: ManualClock = ManualClock()) -> FallbackAdapter {
        FallbackAdapter(network: "admob", options: FallbackOptions(fillRate: fillRate, latency: .zero, seed: optionSeed), clock: clock, seed: seed)
    }

    /// A compact record of one answer, for comparing runs.
    private func signature(_ result: AdLoadResult) -> String {
        switch result {
        case .fill(let ad): "fill \(ad.id) \(ad.creativeID) \(ad.size)"
        case .bid(let ad, let eCPM): "bid \(ad.id) \(eCPM)"
        case .noFill(let reason): "noFill \(reason.code)"
        case .failure(let error): "failure \(error.kind)"
        }
    }

    @Test func answersAfterItsLatencyOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let adapter = FallbackAdapter(network: "admob", options: FallbackOptions(latency: .milliseconds(100)), clock: clock, seed: 1)
        let answered = Locked(false)
        let task = clock.startTask {
            let result = await adapter.loadAd(for: request())
            answered.withLock { $0 = true }
            return result
        }
        await clock.advance(by: .milliseconds(99))
        #expect(answered.withLock { $0 } == false)
        await clock.advance(by: .milliseconds(1))
        let result = await task.value
        #expect(answered.withLock { $0 })
        #expect(clock.now == .origin + .milliseconds(100))
        guard case .fill(let ad) = result else {
            Issue.record("expected a fill, got \(signature(result))")
            return
        }
        #expect(ad.network == "admob")
        #expect(ad.format == .banner)
        #expect(ad.size == AdSize(width: 390, height: 60)) // anchored adaptive on the 390 pt phone
        #expect(ad.id == "admob:unit-1:1")
    }

    @Test func jitterAddsAtMostItsAmount() async throws {
        let clock = ManualClock()
        let adapter = FallbackAdapter(network: "admob", options: FallbackOptions(latency: .milliseconds(100), latencyJitter: .milliseconds(50)), clock: clock, seed: 3)
        for _ in 0..<5 {
            let task = clock.startTask { await adapter.loadAd(for: request()) }
            #expect(await clock.settle { clock.sleeperCount == 1 })
            await clock.advance(by: .milliseconds(99))
            #expect(clock.sleeperCount == 1)
            await clock.advance(by: .milliseconds(51))
            _ = await task.value
            #expect(clock.sleeperCount == 0)
        }
    }

    @Test func cancellationAnswersAtOnce() async throws {
        let clock = ManualClock()
        let adapter = FallbackAdapter(network: "admob", options: FallbackOptions(latency: .seconds(10)), clock: clock, seed: 1)
        let task = clock.startTask { await adapter.loadAd(for: request()) }
        await clock.settle()
        #expect(clock.sleeperCount == 1)
        task.cancel()
        let result = await task.value
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(signature(result))")
            return
        }
        #expect(error.kind == .cancelled)
        #expect(clock.now == .origin)
    }

    @Test func theAdapterKeepsNoTimerOfItsOwnTheEngineEnforcesTheLimit() async throws {
        // The network's timeout_ms is the engine's to enforce (one limit per source, R3a): the
        // adapter waits its latency and no more, and has one sleeper, not two.
        let clock = ManualClock()
        let adapter = FallbackAdapter(network: "admob", options: FallbackOptions(latency: .milliseconds(500)), clock: clock, seed: 1)
        let task = clock.startTask { await adapter.loadAd(for: request()) }
        #expect(await clock.settle { clock.sleeperCount == 1 })
        await clock.advance(by: .milliseconds(200))
        #expect(clock.sleeperCount == 1)
        await clock.advance(by: .milliseconds(300))
        let result = await task.value
        guard case .fill = result else {
            Issue.record("expected a fill at 500 ms, got \(signature(result))")
            return
        }
        #expect(clock.now == .origin + .milliseconds(500))
    }

    @Test(arguments: [0.0, 1.0])
    func fillRateZeroNeverFillsAndOneAlwaysFills(_ fillRate: Double) async {
        let adapter = instantAdapter(fillRate: fillRate)
        for index in 0..<50 {
            let result = await adapter.loadAd(for: request("unit-\(index % 3)"))
            switch result {
            case .fill: #expect(fillRate == 1)
            case .noFill(let reason):
                #expect(fillRate == 0)
                #expect(reason == FallbackAdapter.noFillReason)
            default: Issue.record("unexpected \(signature(result))")
            }
        }
    }

    @Test func fillRateIsHonouredOverManyRequests() async {
        let adapter = instantAdapter(fillRate: 0.3, seed: 9)
        var fills = 0
        for _ in 0..<2000 {
            if case .fill = await adapter.loadAd(for: request()) { fills += 1 }
        }
        #expect((540...660).contains(fills), "\(fills) fills of 2000 at 0.3")
    }

    @Test func theSameSeedRepeatsAndAnotherSeedDiffers() async {
        func run(seed: UInt64, optionSeed: UInt64 = 0) async -> [String] {
            let adapter = FallbackAdapter(network: "admob", options: FallbackOptions(fillRate: 0.5, latency: .zero, seed: optionSeed, creatives: 5), clock: ManualClock(), seed: seed)
            var answers: [String] = []
            for index in 0..<30 {
                answers.append(signature(await adapter.loadAd(for: request("unit-\(index % 2)"))))
            }
            return answers
        }
        let first = await run(seed: 7)
        #expect(await run(seed: 7) == first)
        #expect(await run(seed: 8) != first)
        #expect(await run(seed: 7, optionSeed: 1) != first)
    }

    @Test func everyShowingHasItsOwnIDAndCreativesRepeat() async {
        let adapter = FallbackAdapter(network: "admob", options: FallbackOptions(latency: .zero, creatives: 2), clock: ManualClock(), seed: 1)
        var ids = Set<String>()
        var creatives = Set<String>()
        for _ in 0..<20 {
            guard let ad = await adapter.loadAd(for: request()).ad else { continue }
            ids.insert(ad.id)
            creatives.insert(ad.creativeID)
        }
        #expect(ids.count == 20)
        #expect(creatives.count == 2)
    }

    @Test func releaseIsIdempotent() {
        let ad = FallbackAd(id: "a", creativeID: "c", network: "admob", format: .banner, size: AdSize(width: 320, height: 50))
        #expect(!ad.isReleased)
        ad.releaseResources()
        ad.releaseResources()
        #expect(ad.isReleased)
    }

    struct SizeCase: Sendable, CustomTestStringConvertible {
        var name: String
        var format: AdFormat
        var slot: SlotSize
        var expected: AdSize
        var testDescription: String { name }
    }

    @Test(arguments: [
        SizeCase(name: "banner without sizing, max height 90", format: .banner, slot: SlotSize(maxHeight: 90), expected: AdSize(width: 320, height: 50)),
        SizeCase(name: "banner without sizing, max height 250", format: .banner, slot: SlotSize(maxHeight: 250), expected: AdSize(width: 300, height: 250)),
        SizeCase(name: "native strip, max height 100", format: .native, slot: SlotSize(maxHeight: 100), expected: AdSize(width: 320, height: 100)),
        SizeCase(name: "interstitial takes the screen", format: .interstitial, slot: SlotSize(), expected: AdSize(width: 390, height: 844)),
        SizeCase(name: "tablet-wide slot takes the leaderboard", format: .banner, slot: SlotSize(maxWidth: 800, maxHeight: 90), expected: AdSize(width: 320, height: 50)),
        SizeCase(name: "nothing fits: the smallest", format: .banner, slot: SlotSize(maxHeight: 20), expected: AdSize(width: 320, height: 50)),
    ])
    func choosesTheBiggestSizeThatFits(_ sizeCase: SizeCase) {
        let size = FallbackAdapter.chooseSize(FallbackOptions().sizes(for: sizeCase.format), slot: sizeCase.slot, screen: .phone)
        #expect(size == sizeCase.expected)
    }

    @Test(arguments: [
        (AdRequest.Device.Screen(width: 320, height: 568, scale: 2), AdSize(width: 320, height: 50)),
        (AdRequest.Device.Screen(width: 390, height: 844, scale: 3), AdSize(width: 390, height: 60)),
        (AdRequest.Device.Screen(width: 768, height: 1024, scale: 2), AdSize(width: 768, height: 90)),
        (AdRequest.Device.Screen(width: 1024, height: 400, scale: 2), AdSize(width: 1024, height: 60)),
    ])
    func anchoredBannerMatchesQartvelosHeight(screen: AdRequest.Device.Screen, expected: AdSize) async throws {
        let slot = SlotSize(maxHeight: 90)
        let request = AdRequest(placementID: "home_banner", adUnitID: "unit-1", format: .banner, bannerSizing: .anchored, slot: slot, screen: screen)
        let ad = try #require(await instantAdapter().loadAd(for: request).ad)
        #expect(ad.size == expected)
        #expect(ad.size == QartveloAnchoredSizing.slotSize(for: slot, screen: screen))
    }

    @Test func anchoredFallbackAndQartveloServeTheSameSizeForTheSameWidth() async throws {
        let clock = ManualClock()
        let environment = MediationEnvironment(clock: clock)
        let qartvelo = try QartveloAdapterFactory().makeAdapter(for: MediationConfiguration.Network(id: "qartvelo", adapter: "qartvelo", credentials: ["app_id": "qv-demo-app"]), environment: environment)
        let fallback = try FallbackAdapterFactory().makeAdapter(for: MediationConfiguration.Network(id: "admob", adapter: "fallback", options: ["latency_ms": .integer(0)]), environment: environment)
        for screen in [AdRequest.Device.Screen(width: 390, height: 844, scale: 3), AdRequest.Device.Screen(width: 768, height: 1024, scale: 2)] {
            for slot in [SlotSize(maxHeight: 90), SlotSize(maxWidth: 360, maxHeight: 90)] {
                let request = AdRequest(placementID: "home_banner", adUnitID: "unit-1", format: .banner, bannerSizing: .anchored, slot: slot, screen: screen)
                let qartveloAd = try #require(await clock.run { await qartvelo.loadAd(for: request) }?.ad)
                let fallbackAd = try #require(await clock.run { await fallback.loadAd(for: request) }?.ad)
                #expect(fallbackAd.size == qartveloAd.size, "\(screen) \(slot)")
            }
        }
    }

    @Test(arguments: [
        (SlotSize(maxWidth: 390, maxHeight: 250), AdSize(width: 390, height: 121)),
        (SlotSize(maxWidth: 390, maxHeight: 100), AdSize(width: 390, height: 60)),
        (SlotSize(maxWidth: 768, maxHeight: 250), AdSize(width: 768, height: 240)),
        (SlotSize(maxHeight: 250), AdSize(width: 390, height: 121)),
    ])
    func inlineBannerIsAnInlineAdaptiveSizeForTheSameWidthAndMaxHeight(slot: SlotSize, expected: AdSize) async throws {
        let request = AdRequest(placementID: "feed_inline", adUnitID: "unit-1", format: .banner, bannerSizing: .inline, slot: slot, screen: .phone)
        let ad = try #require(await instantAdapter().loadAd(for: request).ad)
        #expect(ad.size == expected)
        #expect(ad.size.width == (slot.maxWidth ?? AdRequest.Device.Screen.phone.width))
        #expect(ad.size.height <= (slot.maxHeight ?? 250))
    }

    @Test func aWideScreenAllowsTheLeaderboard() {
        let tablet = AdRequest.Device.Screen(width: 1024, height: 768, scale: 2)
        let size = FallbackAdapter.chooseSize(FallbackOptions().sizes(for: .banner), slot: SlotSize(maxHeight: 90), screen: tablet)
        #expect(size == AdSize(width: 728, height: 90))
    }
}

@Suite("Fallback factory")
struct FallbackFactoryTests {
    @Test func isRegisteredAsAFixedPriceKind() {
        #expect(NetworkRegistry.standard.factory(forKind: "fallback") is FallbackAdapterFactory)
        #expect(NetworkRegistry.standard.pricing(forKind: "fallback") == .fixedPrice)
        #expect(FallbackAdapterFactory().kind == "fallback")
        #expect(FallbackAdapterFactory().pricing == .fixedPrice)
    }

    @Test func readsEveryOption() throws {
        let network = MediationConfiguration.Network(id: "admob", adapter: "fallback", credentials: ["app_id": "x"], timeout: .milliseconds(900), options: [
            "fill_rate": .number(0.25), "latency_ms": .integer(120), "latency_jitter_ms": .number(7.5), "seed": .integer(-3), "creatives": .integer(4),
            "creative_sizes": .object(["banner": .array([.string("300x250"), .string("screen")])]),
        ])
        let factory = FallbackAdapterFactory()
        let adapter = try #require(try factory.makeAdapter(for: network, environment: MediationEnvironment(clock: ManualClock(), seed: 5)) as? FallbackAdapter)
        #expect(adapter.network == "admob")
        #expect(factory.pricing == .fixedPrice)
        #expect(adapter.options == FallbackOptions(
            fillRate: 0.25, latency: .milliseconds(120), latencyJitter: .microseconds(7500), seed: UInt64(bitPattern: -3), creatives: 4,
            creativeSizes: [.banner: [.points(AdSize(width: 300, height: 250)), .screen]]
        ))
    }

    @Test(arguments: [
        (["fill_rate": JSONValue.number(1.5)], "networks.admob.options.fill_rate"),
        (["fill_rate": .string("0.5")], "networks.admob.options.fill_rate"),
        (["latency_ms": .integer(-1)], "networks.admob.options.latency_ms"),
        (["latency_jitter_ms": .number(.infinity)], "networks.admob.options.latency_jitter_ms"),
        (["seed": .number(1.5)], "networks.admob.options.seed"),
        (["creatives": .integer(0)], "networks.admob.options.creatives"),
        (["fil_rate": .number(0.5)], "networks.admob.options.fil_rate"),
        (["creative_sizes": .object(["video": .array([.string("1x1")])])], "networks.admob.options.creative_sizes.video"),
        (["creative_sizes": .object(["banner": .array([.string("320by50")])])], "networks.admob.options.creative_sizes.banner[0]"),
        (["creative_sizes": .object(["banner": .array([])])], "networks.admob.options.creative_sizes.banner"),
    ])
    func badOptionsNameTheirPath(_ options: [String: JSONValue], _ path: String) {
        let network = MediationConfiguration.Network(id: "admob", adapter: "fallback", options: options)
        let error = #expect(throws: ConfigurationError.self) {
            _ = try FallbackAdapterFactory().makeAdapter(for: network, environment: MediationEnvironment(clock: ManualClock()))
        }
        #expect(error?.path == path)
    }

    @Test func rejectsAURLEndpointAndUnknownCredentials() throws {
        let url = try #require(URL(string: "https://admob.example.com"))
        let factory = FallbackAdapterFactory()
        let environment = MediationEnvironment(clock: ManualClock())
        #expect(throws: ConfigurationError(code: .invalidValue, path: "networks.admob.endpoint", message: "the fallback network has no server; use \"sandbox\"")) {
            _ = try factory.makeAdapter(for: MediationConfiguration.Network(id: "admob", adapter: "fallback", endpoint: .url(url)), environment: environment)
        }
        let error = #expect(throws: ConfigurationError.self) {
            _ = try factory.makeAdapter(for: MediationConfiguration.Network(id: "admob", adapter: "fallback", credentials: ["api_key": "k"]), environment: environment)
        }
        #expect(error?.path == "networks.admob.credentials.api_key")
        #expect(error?.code == .unknownKey)
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Nitx sandbox server and factory")
struct NitxSandboxTests {
    static func client(_ configuration: NitxSandboxServer.Configuration, clock: ManualClock = ManualClock()) -> (NitxClient, NitxSandboxServer) {
        let server = NitxSandboxServer(configuration: configuration)
        let transport = SandboxTransport(servers: ["nitx.sandbox": server], clock: clock)
        let options = NitxOptions(apiBaseURL: URL(string: "https://nitx.sandbox") ?? NitxFixtures.base)
        return (NitxClient(sourceCode: NitxFixtures.code, options: options, transport: transport, clock: clock, wallClockAnchor: NitxFixtures.wallAnchor), server)
    }

    static let formats: [(AdFormat, MediationConfiguration.Placement.BannerSizing?, SlotSize)] = [
        (.banner, .inline, SlotSize(maxWidth: 320, maxHeight: 50)),
        (.banner, .inline, SlotSize(maxWidth: 390, maxHeight: 300)),
        (.banner, .anchored, SlotSize(maxWidth: 390, maxHeight: 90)),
        (.interstitial, nil, SlotSize()),
        (.appOpen, nil, SlotSize()),
        (.native, nil, SlotSize(maxWidth: 360, maxHeight: 120)),
    ]

    @Test(arguments: [true, false])
    func everyFormatFillsInBothModes(sdkBlock: Bool) async throws {
        let (client, server) = Self.client(.init(sdkBlock: sdkBlock))
        for (format, sizing, slot) in Self.formats {
            let request = NitxFixtures.request(format, slot: slot, sizing: sizing, adUnit: "SLOT-\(format.rawValue.uppercased())")
            let result = await client.loadAd(slot: request.adUnitID, choice: NitxFixtures.choice(request), request: request)
            let ad = try #require(result.ad as? NitxLoadedAd, "\(format)")
            #expect(ad.format == format)
            #expect(slot.fits(ad.size) || format != .banner)
            #expect((ad.impressionID != nil) == sdkBlock)
        }
        let counts = server.counts
        #expect(counts.postRequests == (sdkBlock ? 6 : 0))
        #expect(counts.getRequests == (sdkBlock ? 0 : 6))
        #expect(await client.state().mode == (sdkBlock ? .post : .get))
    }

    @Test func sandboxSteersNoFillHTMLAndPathOnly() async throws {
        let (client, _) = Self.client(.init())
        func load(_ slot: String, _ format: AdFormat = .native) async -> AdLoadResult {
            let request = NitxFixtures.request(format, slot: SlotSize(maxWidth: 360, maxHeight: 300), adUnit: slot)
            return await client.loadAd(slot: slot, choice: NitxFixtures.choice(request), request: request)
        }
        guard case .noFill = await load("SLOT-NOFILL") else {
            Issue.record("expected a no-fill")
            return
        }
        guard case .failure(let error) = await load("SLOT-HTML") else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .creative)
        let pathOnly = try #require(await load("SLOT-PATHONLY").ad as? NitxLoadedAd)
        let creative = try #require(pathOnly.creative)
        #expect(creative.assets.headline == creative.name)
        #expect(creative.assets.image == creative.path)
        #expect(creative.assets.body == nil)
        let structured = try #require(await load("SLOT-FEED").ad as? NitxLoadedAd)
        #expect(structured.creative?.assets.cta == "Learn more")
    }

    @Test(arguments: [404, 405, 501])
    func sandboxPostStatusFallsBack(status: Int) async throws {
        let (client, server) = Self.client(.init(postAdsStatus: status))
        let request = NitxFixtures.request(.interstitial)
        #expect(await client.loadAd(slot: "SLOT-I", choice: NitxFixtures.choice(request), request: request).ad != nil)
        #expect(await client.loadAd(slot: "SLOT-I", choice: NitxFixtures.choice(request), request: request).ad != nil)
        #expect(server.counts.postRequests == 1)
        #expect(server.counts.getRequests == 2)
    }

    @Test func sandboxCountsEventsAndInit() async throws {
        let clock = ManualClock()
        let (client, server) = Self.client(.init(status: "pending_verification"), clock: clock)
        let request = NitxFixtures.request(.interstitial)
        let ad = try #require(await client.loadAd(slot: "SLOT-I", choice: NitxFixtures.choice(request), request: request).ad)
        ad.recordImpression()  // shown: impression and viewable
        await clock.advance(by: .seconds(2))
        #expect(server.counts.events == 2)
        #expect(server.counts.initCalls == 1)
        await client.reset()
        #expect(server.counts.forgets == 1)
    }

    @Test func sandboxAnswersDependOnlyOnTheSeed() async throws {
        func creativeIDs(seed: UInt64) async -> [String] {
            let (client, _) = Self.client(.init(seed: seed))
            var ids: [String] = []
            for _ in 0..<3 {
                let request = NitxFixtures.request(.interstitial)
                ids.append(await client.loadAd(slot: "SLOT-I", choice: NitxFixtures.choice(request), request: request).ad?.creativeID ?? "-")
            }
            return ids
        }
        #expect(await creativeIDs(seed: 7) == creativeIDs(seed: 7))
        #expect(await creativeIDs(seed: 7) != creativeIDs(seed: 8))
    }

    // MARK: Factory

    static func network(credentials: [String: String] = ["source_code": "SDK-AM-DEMOI"], options: [String: JSONValue] = [:]) -> MediationConfiguration.Network {
        MediationConfiguration.Network(id: "nitx", adapter: "nitx", credentials: credentials, endpoint: .sandbox, options: options)
    }

    @Test func registeredAsAFixedPriceKind() {
        let factory = NetworkRegistry.standard.factory(forKind: "nitx")
        #expect(factory is NitxAdapterFactory)
        #expect(factory?.kind == "nitx")
        #expect(factory?.pricing == .fixedPrice)
        #expect(NetworkRegistry.standard.pricing(forKind: "nitx") == .fixedPrice)
    }

    @Test(arguments: [
        ([String: String](), [String: JSONValue](), "networks.nitx.credentials.source_code"),
        (["source_code": "AM-123"], [:], "networks.nitx.credentials.source_code"),
        (["source_code": "SDK-AM-"], [:], "networks.nitx.credentials.source_code"),
        (["source_code": "SDK-AM-X", "api_key": "k"], [:], "networks.nitx.credentials.api_key"),
        (["source_code": "SDK-AM-X"], ["personalization": .string("true")], "networks.nitx.options.personalization"),
        (["source_code": "SDK-AM-X"], ["request_mode": .string("fast")], "networks.nitx.options.request_mode"),
        (["source_code": "SDK-AM-X"], ["bridge_tag": .integer(1)], "networks.nitx.options.bridge_tag"),
        (["source_code": "SDK-AM-X"], ["sdk_block": .integer(1)], "networks.nitx.options.sdk_block"),
        (["source_code": "SDK-AM-X"], ["app_open_min_interval_seconds": .integer(0)], "networks.nitx.options.app_open_min_interval_seconds"),
        (["source_code": "SDK-AM-X"], ["colour": .string("red")], "networks.nitx.options.colour"),
    ])
    func configurationErrorsNameThePath(credentials: [String: String], options: [String: JSONValue], path: String) {
        let error = #expect(throws: ConfigurationError.self) {
            _ = try NitxAdapterFactory().makeAdapter(for: Self.network(credentials: credentials, options: options), environment: MediationEnvironment(clock: ManualClock()))
        }
        #expect(error?.path == path)
    }

    @Test func optionsReachTheClient() async throws {
        let options: [String: JSONValue] = ["personalization": .bool(false), "request_mode": .string("get"), "bridge_tag": .string("rn-1.0.0"), "debug": .bool(true), "sdk_block": .bool(true)]
        let adapter = try #require(try NitxAdapterFactory().makeAdapter(for: Self.network(options: options), environment: MediationEnvironment(clock: ManualClock())) as? NitxAdapter)
        #expect(NitxAdapterFactory().pricing == .fixedPrice)
        #expect(adapter.client.options.sdkTag == "rn-1.0.0/ios-1.0.0")
        #expect(adapter.client.options.requestMode == .get)
        #expect(adapter.client.options.debug)
        let result = await adapter.loadAd(for: NitxFixtures.request(.interstitial, adUnit: "SLOT-I"))
        #expect(result.ad?.network == "nitx")
        let state = await adapter.client.state()
        #expect(state.personalization == false)
        #expect(state.mode == .get)
    }

    @Test(arguments: [true, false])
    func sdkBlockOptionPicksTheMode(sdkBlock: Bool) async throws {
        let adapter = try #require(try NitxAdapterFactory().makeAdapter(for: Self.network(options: ["sdk_block": .bool(sdkBlock)]), environment: MediationEnvironment(clock: ManualClock())) as? NitxAdapter)
        let result = await adapter.loadAd(for: NitxFixtures.request(.banner, slot: SlotSize(maxWidth: 320, maxHeight: 50), sizing: .inline, adUnit: "SLOT-B"))
        guard case .fill(let ad) = result else {
            Issue.record("expected a fill, got \(result)")
            return
        }
        #expect(ad.size == AdSize(width: 320, height: 50))
        #expect(await adapter.client.state().mode == (sdkBlock ? .post : .get))
    }

    @Test func rewardedThroughTheAdapterFails() async throws {
        let adapter = try NitxAdapterFactory().makeAdapter(for: Self.network(), environment: MediationEnvironment(clock: ManualClock()))
        guard case .failure(let error) = await adapter.loadAd(for: NitxFixtures.request(.rewarded)) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.message == "Rewarded ads are not available in v1")
    }
}

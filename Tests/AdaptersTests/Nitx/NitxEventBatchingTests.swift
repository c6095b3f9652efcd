import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Nitx events: 2 s batches and background flush")
struct NitxEventBatchingTests {
    static let eventsPath = "/api/sdk/events"

    static func postClient(clock: ManualClock, sdk: Bool = true) -> (NitxClient, NitxScriptedTransport) {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: sdk)],
            "POST /api/sdk/ads": [NitxFixtures.slotAnswer(format: "banner_320x50", impressionID: "imp-1"), NitxFixtures.slotAnswer(format: "banner_320x50", impressionID: "imp-2")],
            "GET /api/ad-slots/show/SLOT-A": [NitxFixtures.slotAnswer()],
            "POST \(eventsPath)": [HTTP.Response(statusCode: 204)],
            "POST /api/sdk/forget": [HTTP.Response(statusCode: 204)],
        ])
        return (NitxFixtures.client(transport: transport, clock: clock), transport)
    }

    static func load(_ client: NitxClient) async throws -> NitxLoadedAd {
        let request = NitxFixtures.request(.banner, slot: SlotSize(maxWidth: 320, maxHeight: 50), sizing: .inline)
        let result = await client.loadAd(slot: "SLOT-A", choice: NitxFixtures.choice(request), request: request)
        return try #require(result.ad as? NitxLoadedAd)
    }

    static func events(_ transport: NitxScriptedTransport) -> [[[String: Any]]] {
        transport.jsonBodies("POST", eventsPath).map { ($0["events"] as? [[String: Any]]) ?? [] }
    }

    @Test func eventsLeaveInOneBatchTwoSecondsAfterTheFirst() async throws {
        let clock = ManualClock()
        let (client, transport) = Self.postClient(clock: clock)
        let first = try await Self.load(client)
        let second = try await Self.load(client)
        first.recordRender()
        first.recordImpression()
        second.recordImpression()
        second.recordImpression()  // counted once
        await clock.advance(by: .milliseconds(1999))
        #expect(transport.requests("POST", Self.eventsPath).isEmpty)
        await clock.advance(by: .milliseconds(1))
        let batches = Self.events(transport)
        try #require(batches.count == 1)
        #expect(batches[0].map { $0["type"] as? String } == ["impression", "viewable", "impression", "viewable"])
        #expect(batches[0].map { $0["impression_id"] as? String } == ["imp-1", "imp-1", "imp-2", "imp-2"])
        #expect(batches[0].first?["slot"] as? String == "SLOT-A")
        #expect(batches[0].first?["ts"] as? Int == 1_780_272_000_000)
        #expect(transport.jsonBodies("POST", Self.eventsPath).first?["visitor_id"] as? String == "visitor-1")

        // A later event starts a new 2 s batch.
        await clock.advance(by: .milliseconds(500))
        let third = try await Self.load(client)
        third.recordImpression()
        await clock.advance(by: .milliseconds(1999))
        #expect(Self.events(transport).count == 1)
        await clock.advance(by: .milliseconds(1))
        #expect(Self.events(transport).count == 2)
        let counters = await client.state().counters
        #expect(counters.eventsQueued == 6)
        #expect(counters.eventsSent == 6)
    }

    @Test func backgroundFlushesAtOnce() async throws {
        let clock = ManualClock()
        let (client, transport) = Self.postClient(clock: clock)
        let ad = try await Self.load(client)
        ad.recordImpression()
        await client.applicationDidEnterBackground()
        #expect(clock.now == .origin)
        #expect(Self.events(transport).map(\.count) == [2])
        await clock.advance(by: .seconds(10))
        #expect(Self.events(transport).count == 1)
    }

    @Test func adapterExposesTheBackgroundFlush() async throws {
        let clock = ManualClock()
        let (client, transport) = Self.postClient(clock: clock)
        let adapter = NitxAdapter(network: "nitx", client: client)
        let result = await adapter.loadAd(for: NitxFixtures.request(.banner, slot: SlotSize(maxWidth: 320, maxHeight: 50), sizing: .inline))
        let ad = try #require(result.ad)
        ad.recordImpression()
        #expect(await clock.settle { Self.events(transport).isEmpty })
        await adapter.didEnterBackground()  // the protocol's life-cycle hook
        #expect(Self.events(transport).map(\.count) == [2])
    }

    @Test func theEngineGoingToTheBackgroundFlushesQueuedNitxEvents() async throws {
        let clock = ManualClock()
        let (_, transport) = Self.postClient(clock: clock)
        let json = """
        {
          "networks": {
            "nitx": { "adapter": "nitx", "credentials": { "source_code": "SDK-AM-DEMOI" }, "endpoint": "\(NitxFixtures.base.absoluteString)" }
          },
          "placements": {
            "feed_inline": {
              "format": "banner", "sizing": "inline", "slot": { "max_width": 320, "max_height": 50 },
              "sources": [ { "id": "feed_inline_nitx", "network": "nitx", "ad_unit_id": "SLOT-A", "ecpm": 0.9 } ]
            }
          }
        }
        """
        let configuration = try MediationConfiguration(json: json, registry: .standard)
        let engine = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: clock, transport: transport))
        let outcome = try await engine.runAuction(placementID: "feed_inline", on: clock)
        let ad = try #require(outcome.winner?.ad as? NitxLoadedAd)
        #expect(ad.impressionID == "imp-1")
        ad.recordRender()
        ad.recordImpression()
        let shownAt = clock.now
        #expect(await clock.settle { transport.requests("POST", Self.eventsPath).isEmpty }, "queued for the 2 s batch")

        await engine.setForeground(false)
        #expect(engine.isForeground == false)
        #expect(clock.now == shownAt)  // sent at once, not by the batch timer
        let batches = Self.events(transport)
        try #require(batches.count == 1)
        #expect(batches[0].map { $0["type"] as? String } == ["impression", "viewable"])
        #expect(batches[0].map { $0["impression_id"] as? String } == ["imp-1", "imp-1"])
        #expect((transport.jsonBodies("POST", Self.eventsPath).first?["visitor_id"] as? String)?.isEmpty == false)
        #expect(transport.requests.allSatisfy { $0.url.host == "api.nitx.test" })

        // Nothing is left for the batch timer to send.
        await clock.advance(by: .seconds(10))
        #expect(Self.events(transport).count == 1)
        await engine.shutdown()
    }

    @Test func getModeSendsNoEvents() async throws {
        let clock = ManualClock()
        let (client, transport) = Self.postClient(clock: clock, sdk: false)
        let ad = try await Self.load(client)
        ad.recordImpression()
        await clock.advance(by: .seconds(5))
        await client.applicationDidEnterBackground()
        #expect(transport.requests("POST", Self.eventsPath).isEmpty)
    }

    /// By default (no mode override, a config without the `sdk` block) the client reads
    /// creatives with `GET /api/ad-slots/show/{code}` and sends no tracking at all: every hook,
    /// resigning active, the background and time send nothing, and nothing is even queued.
    @Test func theDefaultGetModeSendsNothingButItsGets() async throws {
        let clock = ManualClock()
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: false)],
            "GET /api/ad-slots/show/SLOT-A": [NitxFixtures.slotAnswer(), NitxFixtures.slotAnswer(id: 43)],
        ])
        let client = NitxFixtures.client(transport: transport, clock: clock)
        #expect(client.options.requestMode == .auto)
        for _ in 0..<2 {
            let ad = try await Self.load(client)
            ad.recordRender()
            ad.recordImpression()
            ad.recordClick()
        }
        await client.applicationWillResignActive()
        await client.applicationDidEnterBackground()
        await clock.advance(by: .seconds(10))
        #expect(transport.requests.map { "\($0.method) \($0.url.path)" } == [
            "GET \(NitxFixtures.showPath)", "GET /api/ad-slots/show/SLOT-A", "GET /api/ad-slots/show/SLOT-A",
        ])
        let state = await client.state()
        #expect(state.mode == .get)
        #expect(state.counters.eventsQueued == 0)
        #expect(state.counters.eventsSent == 0)
    }

    /// A native ad's `destroy()` (Nitx document, "Native") is its release: a destroyed ad
    /// records nothing afterwards, while an ad loaded beside it still does.
    @Test func aDestroyedNativeAdRecordsNothing() async throws {
        let clock = ManualClock()
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: true)],
            "POST /api/sdk/ads": [NitxFixtures.slotAnswer(format: "native", impressionID: "imp-1"), NitxFixtures.slotAnswer(format: "native", impressionID: "imp-2")],
            "POST \(Self.eventsPath)": [HTTP.Response(statusCode: 204)],
        ])
        let client = NitxFixtures.client(transport: transport, clock: clock)
        var ads: [NitxLoadedAd] = []
        for _ in 0..<2 {
            let request = NitxFixtures.request(.native, slot: SlotSize(maxWidth: 390, maxHeight: 300))
            let result = await client.loadAd(slot: "SLOT-A", choice: NitxFixtures.choice(request), request: request)
            ads.append(try #require(result.ad as? NitxLoadedAd))
        }
        ads[0].releaseResources()
        #expect(ads[0].creative == nil)
        for ad in ads {
            ad.recordRender()
            ad.recordImpression()
        }
        await client.applicationDidEnterBackground()
        #expect(Self.events(transport).map { $0.map { $0["impression_id"] as? String } } == [["imp-2", "imp-2"]])
        #expect(await client.state().counters.eventsQueued == 2)
    }

    @Test func resetSendsPendingEventsThenForget() async throws {
        let clock = ManualClock()
        let (client, transport) = Self.postClient(clock: clock)
        let ad = try await Self.load(client)
        ad.recordImpression()
        await client.reset()
        let methods = transport.requests.filter { $0.method == "POST" }.map(\.url.path)
        #expect(methods == ["/api/sdk/ads", Self.eventsPath, "/api/sdk/forget"])
        let forget = try #require(transport.jsonBodies("POST", "/api/sdk/forget").first)
        #expect(forget["visitor_id"] as? String == "visitor-1")
        #expect(await client.state().visitorID == "visitor-2")
    }

    /// Events of an ad loaded before a reset, recorded after it, leave without a visitor id:
    /// under the new id they would link the forgotten visitor to the new one. An ad loaded
    /// after the reset sends its events under the new id, in a batch of its own.
    @Test func eventsOfAnAdLoadedBeforeAResetLeaveWithoutAVisitorID() async throws {
        let clock = ManualClock()
        let (client, transport) = Self.postClient(clock: clock)
        let before = try await Self.load(client)
        await client.reset()
        let after = try await Self.load(client)
        before.recordImpression()
        after.recordImpression()
        await client.applicationWillResignActive()
        let batches = transport.jsonBodies("POST", Self.eventsPath)
        try #require(batches.count == 2)
        let byImpression = Dictionary(uniqueKeysWithValues: batches.compactMap { batch -> (String, Any?)? in
            guard let id = (batch["events"] as? [[String: Any]])?.first?["impression_id"] as? String else { return nil }
            return (id, batch["visitor_id"])
        })
        #expect(byImpression["imp-1"].map { $0 == nil || $0 is NSNull } == true, "the earlier visitor's events carry no visitor id")
        #expect(byImpression["imp-2"] as? String == "visitor-2")
        let wire = transport.requests("POST", Self.eventsPath).map(WireRecorder.text(of:)).joined()
        #expect(!wire.contains("visitor-1"))
    }

    /// An engine with one Nitx banner placement (POST mode through `transport`).
    static func engine(clock: ManualClock, transport: NitxScriptedTransport, logger: any MediationLogger = SilentLogger(), template: RequestTemplate = RequestTemplate()) throws -> MediationEngine {
        let json = """
        {
          "networks": {
            "nitx": { "adapter": "nitx", "credentials": { "source_code": "SDK-AM-DEMOI" }, "endpoint": "\(NitxFixtures.base.absoluteString)" }
          },
          "placements": {
            "feed_inline": {
              "format": "banner", "sizing": "inline", "slot": { "max_width": 320, "max_height": 50 },
              "sources": [ { "id": "feed_inline_nitx", "network": "nitx", "ad_unit_id": "SLOT-A", "ecpm": 0.9 } ]
            }
          }
        }
        """
        let configuration = try MediationConfiguration(json: json, registry: .standard)
        return try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: clock, logger: logger, transport: transport, requestTemplate: template))
    }

    @Test func theEngineResigningActiveFlushesQueuedNitxEvents() async throws {
        let clock = ManualClock()
        let (_, transport) = Self.postClient(clock: clock)
        let engine = try Self.engine(clock: clock, transport: transport)
        let outcome = try await engine.runAuction(placementID: "feed_inline", on: clock)
        let ad = try #require(outcome.winner?.ad as? NitxLoadedAd)
        ad.recordImpression()
        let shownAt = clock.now
        #expect(await clock.settle { transport.requests("POST", Self.eventsPath).isEmpty }, "queued for the 2 s batch")
        await engine.willResignActive()
        #expect(clock.now == shownAt)  // sent at once, not by the batch timer
        #expect(engine.isForeground)   // resigning active is not the background
        #expect(Self.events(transport).map { $0.map { $0["type"] as? String } } == [["impression", "viewable"]])
        await clock.advance(by: .seconds(10))
        #expect(Self.events(transport).count == 1)
        await engine.shutdown()
    }

    /// A shown interstitial counts as both impression and viewable (Nitx document,
    /// "Interstitial"): through the engine, the host's one show report of a full-screen ad
    /// queues both events for its impression id, and nothing else reports its visibility.
    @Test func aShownInterstitialCountsAsImpressionAndViewable() async throws {
        let clock = ManualClock()
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: true)],
            "POST /api/sdk/ads": [NitxFixtures.slotAnswer(format: "interstitial", impressionID: "imp-9")],
            "POST \(Self.eventsPath)": [HTTP.Response(statusCode: 204)],
        ])
        let engine = try MediationEngine(
            configuration: MediationConfiguration(json: """
            {
              "networks": { "nitx": { "adapter": "nitx", "credentials": { "source_code": "SDK-AM-DEMOI" }, "endpoint": "\(NitxFixtures.base.absoluteString)" } },
              "placements": { "level_end": { "format": "interstitial", "sources": [ { "id": "level_end_nitx", "network": "nitx", "ad_unit_id": "SLOT-A", "ecpm": 5.2 } ] } }
            }
            """, registry: .standard),
            registry: .standard,
            environment: MediationEnvironment(clock: clock, logger: SilentLogger(), transport: transport)
        )
        let placement = try #require(engine.placement("level_end"))
        let loaded = await clock.run { await placement.load() }
        let ad = try #require(loaded?.ad?.ad as? NitxLoadedAd)
        #expect(ad.nitxFormat == .interstitial)
        let shown = await clock.perform { await placement.reportShown(ad) }
        guard case .impression = shown else { Issue.record("expected an impression, got \(shown)"); return }
        await engine.willResignActive()
        let batches = Self.events(transport)
        #expect(batches.map { $0.map { $0["type"] as? String } } == [["impression", "viewable"]])
        #expect(batches.first?.map { $0["impression_id"] as? String } == ["imp-9", "imp-9"])
        await clock.perform { await engine.shutdown() }
    }

    @Test func theEngineShutdownStopsNitxSending() async throws {
        let clock = ManualClock()
        let (_, transport) = Self.postClient(clock: clock)
        let engine = try Self.engine(clock: clock, transport: transport)
        let outcome = try await engine.runAuction(placementID: "feed_inline", on: clock)
        let ad = try #require(outcome.winner?.ad as? NitxLoadedAd)
        ad.recordRender()  // the impression is queued for the 2 s batch
        let before = transport.requests.count
        await clock.perform { await engine.shutdown() }
        // The batch timer would have fired at 2 s, and the ad handed out before shutdown keeps
        // reporting: nothing leaves.
        ad.recordImpression()
        await clock.advance(by: .seconds(10))
        #expect(transport.requests.count == before)
        #expect(Self.events(transport).isEmpty)
    }

    @Test func aShutDownClientSendsNothing() async throws {
        let clock = ManualClock()
        let (client, transport) = Self.postClient(clock: clock)
        let ad = try await Self.load(client)
        ad.recordImpression()
        await client.shutdown()
        let before = transport.requests.count
        await client.applicationWillResignActive()
        await client.applicationDidEnterBackground()
        await client.reset()
        await clock.advance(by: .seconds(10))
        let request = NitxFixtures.request(.banner, slot: SlotSize(maxWidth: 320, maxHeight: 50), sizing: .inline)
        let result = await client.loadAd(slot: "SLOT-A", choice: NitxFixtures.choice(request), request: request)
        guard case .failure(let error) = result else { Issue.record("expected a failure, got \(result)"); return }
        #expect(error.kind == .cancelled)
        #expect(error.code == NitxErrorCode.shutDown.rawValue)
        #expect(error.code == 14)
        #expect(transport.requests.count == before)
    }

    /// The network's page gives the shut-down code the code gives (it once said 12, the refused
    /// redirect's).
    @Test func theDocumentedShutDownCodeIsTheCodesOwn() throws {
        let page = RepositoryFiles.configDirectory.deletingLastPathComponent().appendingPathComponent("docs/networks/nitx.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        let shutdown = try #require(text.range(of: "**Shutdown**"))
        let paragraph = text[shutdown.lowerBound...].prefix { $0 != "#" }
        #expect(paragraph.contains("`cancelled(\(NitxErrorCode.shutDown.rawValue))`"))
        #expect(!paragraph.contains("`cancelled(\(NitxErrorCode.redirectRefused.rawValue))`"))
        #expect(text.contains("Code \(NitxErrorCode.shutDown.rawValue): the client was shut down"))
    }

    @Test func clickSendsNothing() async throws {
        let clock = ManualClock()
        let (client, transport) = Self.postClient(clock: clock)
        let ad = try await Self.load(client)
        ad.recordImpression()
        ad.recordClick()
        await client.applicationDidEnterBackground()
        #expect(Self.events(transport).map { $0.map { $0["type"] as? String } } == [["impression", "viewable"]])
        #expect(transport.requests.map { "\($0.method) \($0.url.path)" } == ["GET \(NitxFixtures.showPath)", "POST /api/sdk/ads", "POST \(Self.eventsPath)"])
    }
}

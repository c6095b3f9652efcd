import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Elo tracking")
struct EloTrackingTests {
    func loadedAd(_ transport: EloFakeTransport, clock: ManualClock = ManualClock()) async throws -> (EloAd, EloClient) {
        let client = EloFixtures.client(transport: transport, clock: clock)
        let result = await client.loadAd(for: EloFixtures.request())
        guard case .loaded(let ad, _) = result else { throw EloError(.internalState, "no fill") }
        return (ad, client)
    }

    func analytics(_ transport: EloFakeTransport) throws -> [EloWireAnalyticsEvent] {
        try transport.pings.filter { $0.url.path.hasSuffix("/v1/events") }.map {
            try JSONDecoder().decode(EloWireAnalyticsEvent.self, from: $0.body ?? Data())
        }
    }

    @Test func renderImpressionAndClickPingOnceEach() async throws {
        let transport = EloFakeTransport()
        let (ad, _) = try await loadedAd(transport)
        for _ in 0..<3 {
            ad.recordRender()
            ad.recordImpression()
            ad.recordClick()
        }
        await ad.tracker?.drain()
        let adID = ad.id
        // Render and impression are URL pings; an Elo-direct click sends nothing (Elo document).
        #expect(transport.pings.map(\.url.absoluteString) == [
            "https://t.elo.test/render?ad=\(adID)&visitor_id=id-1",
            "https://t.elo.test/imp?ad=\(adID)&visitor_id=id-1",
        ])
        #expect(transport.pings.allSatisfy { $0.method == "GET" })
    }

    @Test func eloDirectClickSendsNothing() async throws {
        let transport = EloFakeTransport()
        let (ad, _) = try await loadedAd(transport)
        ad.recordImpression()
        ad.recordClick()
        ad.recordClick()
        await ad.tracker?.drain()
        #expect(transport.pings.map(\.url.path) == ["/imp"])
    }

    /// Elo document: the ad id is "the ad opportunity: one per showing", "what the SDK's
    /// render/impression dedup keys on"; the creative id is "stable across showings, since the
    /// same creative is served to the same user many times". Two showings of one creative (two
    /// ad ids, one creative id) each send their render and impression: a dedup keyed on the
    /// creative would drop the second showing's impression, which is money.
    @Test func renderAndImpressionDedupKeysOnTheAdID() async throws {
        let transport = EloFakeTransport { request in
            guard request.url.path.hasSuffix("/v1/bid") else { return .success(HTTP.Response(statusCode: 204)) }
            // Every answer: the same creative; the ad id is the request's own (one per showing).
            return .success(EloFixtures.bidResponse(for: request, price: 1, creativeID: "cr-shared"))
        }
        let client = EloFixtures.client(transport: transport)
        var ads: [EloAd] = []
        for _ in 0..<2 {
            guard case .loaded(let ad, _) = await client.loadAd(for: EloFixtures.request()) else { Issue.record("no fill"); return }
            ads.append(ad)
        }
        #expect(ads.map(\.creativeID) == ["cr-shared", "cr-shared"])
        #expect(Set(ads.map(\.id)).count == 2)
        for ad in ads {
            ad.recordRender()
            ad.recordImpression()
            ad.recordRender()
            ad.recordImpression()
            await ad.tracker?.drain()
        }
        let pings = transport.pings.map { "\($0.url.path)?\($0.url.query?.split(separator: "&").first ?? "")" }
        #expect(pings == ["/render?ad=\(ads[0].id)", "/imp?ad=\(ads[0].id)", "/render?ad=\(ads[1].id)", "/imp?ad=\(ads[1].id)"])
    }

    /// The other way round: one ad id answered twice (with two creatives) is one opportunity,
    /// so its render and impression are sent once, whichever creative the second answer named.
    @Test func oneAdIDIsOneOpportunityWhateverItsCreative() async throws {
        let creatives = Locked(["cr-a", "cr-b"])
        let transport = EloFakeTransport { request in
            guard request.url.path.hasSuffix("/v1/bid") else { return .success(HTTP.Response(statusCode: 204)) }
            let creative = creatives.withLock { $0.removeFirst() }
            return .success(EloFixtures.bidResponse(for: request, price: 1, adID: "opp-1", creativeID: creative))
        }
        let client = EloFixtures.client(transport: transport)
        var ads: [EloAd] = []
        for _ in 0..<2 {
            guard case .loaded(let ad, _) = await client.loadAd(for: EloFixtures.request()) else { Issue.record("no fill"); return }
            ads.append(ad)
        }
        #expect(ads.map(\.creativeID) == ["cr-a", "cr-b"])
        for ad in ads {
            ad.recordRender()
            ad.recordImpression()
            await ad.tracker?.drain()
        }
        #expect(transport.pings.map(\.url.path) == ["/render", "/imp"])
    }

    @Test func shutdownStopsTrackingOfAdsLoadedBefore() async throws {
        let clock = ManualClock()
        let transport = EloFakeTransport()
        let (ad, client) = try await loadedAd(transport, clock: clock)
        await client.shutdown()
        ad.recordRender()
        ad.recordImpression()
        ad.recordClick()
        ad.recordBrowserOpened()
        await clock.advance(by: .seconds(1))
        ad.recordBrowserClosed()
        await ad.tracker?.drain()
        #expect(transport.pings.isEmpty)
    }

    @Test func theEngineShutdownSilencesEloAdsHandedOutBefore() async throws {
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let configuration = MediationConfiguration(
            networks: [MediationConfiguration.Network(id: "elo", adapter: "elo", credentials: ["publisher_id": "pub-1"], endpoint: .url(try #require(URL(string: WireRecorder.eloEndpoint))))],
            placements: [MediationConfiguration.Placement(id: "chat_strip", format: .native, slot: SlotSize(maxHeight: 100), sources: [.bidder("chat_strip_elo", network: "elo", adUnitID: "elo-chat-strip")])]
        )
        let engine = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: clock, transport: wire))
        let outcome = try await engine.runAuction(placementID: "chat_strip", on: clock)
        let handedOut = try #require(outcome.winner?.ad as? EloAd)
        handedOut.recordRender()
        await handedOut.tracker?.drain()
        #expect(wire.requests.filter { $0.url.path == "/t/render" }.count == 1)
        let before = wire.requests.count
        await clock.perform { await engine.shutdown() }
        handedOut.recordImpression()
        handedOut.recordClick()
        handedOut.recordBrowserOpened()
        await clock.advance(by: .seconds(3))
        handedOut.recordBrowserClosed()
        await handedOut.tracker?.drain()
        await clock.advance(by: .seconds(60))
        #expect(wire.requests.count == before)
    }

    @Test(.timeLimit(.minutes(10)))
    func shutdownCancelsQueuedPings() async throws {
        let clock = ManualClock()
        let never = ManualClock()
        let transport = EloFakeTransport { request in
            if request.url.path.hasSuffix("/v1/bid") { return .success(EloFixtures.bidResponse(for: request, price: 1)) }
            do { try await never.sleep(until: .origin + .seconds(1_000_000)) } catch {
                return .failure(HTTP.TransportError(kind: .cancelled, message: "cancelled"))
            }
            return .success(HTTP.Response(statusCode: 204))
        }
        let (ad, client) = try await loadedAd(transport, clock: clock)
        ad.recordRender()
        ad.recordImpression()
        #expect(await clock.settle { transport.pings.count == 1 })  // the render ping hangs; the impression waits
        await client.shutdown()
        // Drained in a task of its own on the clock's executor (so `settle` waits for it):
        // without the cancellation the render ping would never end.
        let drained = Locked(false)
        let tracker = ad.tracker
        clock.startTask {
            await tracker?.drain()
            drained.withLock { $0 = true }
        }
        #expect(await clock.settle { drained.withLock { $0 } })
        // The queued impression never left.
        #expect(transport.pings.map(\.url.path) == ["/render"])
    }

    @Test func releasedAdSendsNoTracking() async throws {
        let transport = EloFakeTransport()
        let (ad, _) = try await loadedAd(transport)
        ad.releaseResources()
        ad.releaseResources()
        #expect(ad.isReleased)
        ad.recordRender()
        ad.recordImpression()
        await ad.tracker?.drain()
        #expect(transport.pings.isEmpty)
    }

    @Test func browserCloseReportsTheDwellInMilliseconds() async throws {
        let clock = ManualClock()
        let transport = EloFakeTransport()
        let (ad, _) = try await loadedAd(transport, clock: clock)
        ad.recordBrowserOpened()
        await clock.advance(by: .milliseconds(1500))
        ad.recordBrowserClosed()
        await ad.tracker?.drain()
        let events = try analytics(transport)
        #expect(events.map(\.event) == ["browser_open", "browser_close"])
        #expect(events.map(\.dwell_ms) == [nil, 1500])
        #expect(events.allSatisfy { $0.ad_id == ad.id && $0.creative_id == "cr-7" && $0.visitor_id == "id-1" })
        #expect(transport.pings.first?.url.absoluteString == "https://api.elo.example/v1/events")
    }

    /// Browser events are analytics only, never billed (Elo document): they go to the
    /// analytics endpoint alone, never to the render or impression URLs the server counts, and
    /// they neither count nor use up the ad's one impression.
    @Test func browserEventsAreAnalyticsOnlyAndNeverBilled() async throws {
        let clock = ManualClock()
        let transport = EloFakeTransport()
        let (ad, _) = try await loadedAd(transport, clock: clock)
        ad.recordBrowserOpened()
        await clock.advance(by: .seconds(3))
        ad.recordBrowserClosed()
        await ad.tracker?.drain()
        #expect(transport.pings.map { "\($0.method) \($0.url.absoluteString)" } == [
            "POST https://api.elo.example/v1/events", "POST https://api.elo.example/v1/events",
        ])
        #expect(try analytics(transport).map(\.event) == ["browser_open", "browser_close"])
        ad.recordImpression()
        await ad.tracker?.drain()
        #expect(transport.pings.map(\.url.path) == ["/v1/events", "/v1/events", "/imp"])
    }

    @Test(arguments: [
        (Duration.seconds(24 * 3600), 86_400_000),
        (.seconds(25 * 3600), 86_400_000),
        (.seconds(24 * 3600) - .milliseconds(1), 86_399_999),
    ] as [(Duration, Int)])
    func dwellIsCappedAtTwentyFourHours(elapsed: Duration, dwell: Int) async throws {
        let clock = ManualClock()
        let transport = EloFakeTransport()
        let (ad, _) = try await loadedAd(transport, clock: clock)
        ad.recordBrowserOpened()
        await clock.advance(by: elapsed)
        ad.recordBrowserClosed()
        await ad.tracker?.drain()
        #expect(try analytics(transport).last?.dwell_ms == dwell)
    }

    @Test func secondOpenBeforeTheCloseSendsNothing() async throws {
        let clock = ManualClock()
        let transport = EloFakeTransport()
        let (ad, _) = try await loadedAd(transport, clock: clock)
        ad.recordBrowserOpened()
        await clock.advance(by: .seconds(2))
        ad.recordBrowserOpened()
        await clock.advance(by: .seconds(3))
        ad.recordBrowserClosed()
        await ad.tracker?.drain()
        let events = try analytics(transport)
        #expect(events.map(\.event) == ["browser_open", "browser_close"])
        #expect(events.last?.dwell_ms == 5000)
    }

    @Test func closeWithoutAnOpenSendsNothing() async throws {
        let transport = EloFakeTransport()
        let (ad, _) = try await loadedAd(transport)
        ad.recordBrowserClosed()
        ad.recordBrowserOpened()
        ad.recordBrowserClosed()
        ad.recordBrowserClosed()
        await ad.tracker?.drain()
        #expect(try analytics(transport).map(\.event) == ["browser_open", "browser_close"])
    }

    @Test func invalidTrackingURLIsNotPinged() async throws {
        let transport = EloFakeTransport { request in
            guard request.url.path.hasSuffix("/v1/bid"), let body = request.body,
                  let bid = try? JSONDecoder().decode(EloWireBidRequest.self, from: body) else { return .success(HTTP.Response(statusCode: 204)) }
            let json = EloFixtures.bidJSON(requestID: bid.id, price: 1).replacingOccurrences(of: "https://t.elo.test/render?ad=ad-1", with: "not a url")
            return .success(EloFixtures.json(200, json))
        }
        let (ad, _) = try await loadedAd(transport)
        ad.recordRender()
        await ad.tracker?.drain()
        #expect(transport.pings.isEmpty)
    }

}

@Suite("Elo ad")
struct EloAdTests {
    static func ad(_ id: String, format: EloAdFormat = .strip) -> EloAd {
        EloAd(id: id, creativeID: "cr", network: "elo", format: .native, eloFormat: format, size: AdSize(width: 390, height: format == .strip ? 72 : 175), timeToLive: nil, title: "t", description: nil, imageURL: nil, ctaText: nil, clickURL: nil, ctaEnabled: nil, tracking: EloWireTracking(), tracker: nil)
    }

    @Test func equalityAndHashingFollowTheID() {
        let first = Self.ad("opp-1")
        let sameShowing = Self.ad("opp-1", format: .card)
        let otherShowing = Self.ad("opp-2")
        #expect(first == sameShowing)
        #expect(first != otherShowing)
        #expect(Set([first, sameShowing, otherShowing]).count == 2)
    }

    @Test(arguments: [
        (EloAdFormat.strip, SlotSize(maxWidth: 320, maxHeight: 72), AdSize(width: 320, height: 72)),
        (.strip, SlotSize(maxWidth: 500.9, maxHeight: 191), AdSize(width: 390, height: 72)),
        (.card, SlotSize(maxWidth: nil, maxHeight: 192), AdSize(width: 390, height: 175)),
    ] as [(EloAdFormat, SlotSize, AdSize)])
    func refitsWhileTheFormatFits(format: EloAdFormat, slot: SlotSize, size: AdSize) {
        #expect(Self.ad("a", format: format).refit(to: slot) == size)
    }

    @Test(arguments: [
        (EloAdFormat.strip, SlotSize(maxWidth: 390, maxHeight: 71.9)),
        (.card, SlotSize(maxWidth: 390, maxHeight: 191.9)),
        (.strip, SlotSize(maxWidth: 0, maxHeight: 100)),
    ] as [(EloAdFormat, SlotSize)])
    func cannotRefitWhenTheFormatNoLongerFits(format: EloAdFormat, slot: SlotSize) {
        #expect(Self.ad("a", format: format).refit(to: slot) == nil)
    }

    /// Tracking is for Elo-served ads only (Elo document: the display-only `init` "sends no
    /// render, impression, click, or tap events"; browser events are for "Elo-served ads
    /// only"). Side by side on one transport: a display-only ad built from the served ad's own
    /// id and tracking URLs sends nothing and uses up nothing, then the served ad sends each of
    /// its events (so the test cannot pass because nothing at all leaves).
    @Test func displayOnlyAdSendsNothing() async throws {
        let clock = ManualClock()
        let transport = EloFakeTransport()
        let (served, _) = try await EloTrackingTests().loadedAd(transport, clock: clock)
        let tracking = EloWireTracking(
            render: ["https://t.elo.test/render?ad=\(served.id)"],
            impression: ["https://t.elo.test/imp?ad=\(served.id)"],
            click: ["https://t.elo.test/click?ad=\(served.id)"]
        )
        let displayOnly = EloAd(id: served.id, creativeID: served.creativeID, network: "elo", format: .native, eloFormat: served.eloFormat, size: served.size, timeToLive: nil, title: served.title, description: nil, imageURL: nil, ctaText: nil, clickURL: served.clickURL, ctaEnabled: nil, tracking: tracking, tracker: nil)
        #expect(displayOnly.tracker == nil)
        displayOnly.recordRender()
        displayOnly.recordImpression()
        displayOnly.recordClick()
        displayOnly.recordBrowserOpened()
        await clock.advance(by: .seconds(2))
        displayOnly.recordBrowserClosed()
        await served.tracker?.drain()
        #expect(transport.pings.isEmpty)
        served.recordRender()
        served.recordImpression()
        served.recordBrowserOpened()
        await clock.advance(by: .seconds(2))
        served.recordBrowserClosed()
        await served.tracker?.drain()
        #expect(transport.pings.map(\.url.path) == ["/render", "/imp", "/v1/events", "/v1/events"])
        displayOnly.releaseResources()
        displayOnly.releaseResources()
        #expect(displayOnly.isReleased)
    }
}

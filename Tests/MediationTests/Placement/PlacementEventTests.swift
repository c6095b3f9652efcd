import Foundation
import Mediation
import MediationTestKit
import Testing

@Suite("Placement events")
struct PlacementEventTests {
    @Test("each event is emitted once, in order, with impression-level revenue")
    func eventsOnce() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: 30))
        try await fixture.clock.perform {
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(0.1))
            let first = try #require(await placement.currentAd?.ad)
            _ = await placement.reportShown(first)
            _ = await placement.reportShown(first)
            await placement.reportClick(first)
            await placement.reportClick(first)
            await fixture.advance(to: at(30.2))
            let second = try #require(await placement.currentAd?.ad)
            _ = await placement.reportShown(second)
            await fixture.advance(to: at(40))
            await placement.destroy()
            await fixture.advance(to: at(100))

            #expect(fixture.recorder.names == [
                "auction_started", "auction_finished", "ad_loaded", "refresh_scheduled", "shown", "clicked",
                "auction_started", "auction_finished", "ad_loaded", "retired", "refresh_scheduled", "shown",
                "retired",
            ])
            #expect(fixture.recorder.events.map(\.instant) == [
                at(0), at(0.1), at(0.1), at(0.1), at(0.1), at(0.1),
                at(30.1), at(30.2), at(30.2), at(30.2), at(30.2), at(30.2),
                at(40),
            ])
            let impression = try #require(fixture.recorder.impressions.first)
            #expect(impression.network == "neta")
            #expect(impression.placementID == "home_banner")
            #expect(impression.lineItemID == "neta")
            #expect(impression.eCPM == 1.20)
            #expect(impression.revenueUSD == 0.0012)
            guard case .refreshScheduled(_, let due, _, _, _) = fixture.recorder.events[3] else {
                Issue.record("expected refresh_scheduled")
                return
            }
            #expect(due == at(30.1))
        }
    }

    @Test("the event stream delivers the same events as the handler")
    func stream() async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.levelEnd)
        try await fixture.clock.perform {
            let stream = fixture.engine.events()
            _ = try fixture.placement
            let load = try await fixture.startLoad()
            await fixture.advance(to: at(0.1))
            _ = await load.value
            var names: [String] = []
            for await event in stream {
                names.append(event.name)
                if names.count == 3 { break }
            }
            #expect(names == ["auction_started", "auction_finished", "ad_loaded"])
            #expect(names == fixture.recorder.names)
        }
    }

    @Test("events carry no chat content or user data")
    func noUserData() async throws {
        let secrets = ["XYZZY-chat-secret", "IDFA-SECRET-1234", "IDFV-SECRET-5678", "SecretScreenName", "secret-context-object", "41.7151"]
        let context = AdRequest.Context(
            messages: [AdRequest.Context.Message(role: .user, content: "my XYZZY-chat-secret diagnosis")],
            contextObjects: [AdRequest.Context.Object(type: "product", description: "secret-context-object")],
            screenName: "SecretScreenName"
        )
        let device = AdRequest.Device(location: AdRequest.Device.Location(latitude: 41.7151, longitude: 44.8271), advertisingID: "IDFA-SECRET-1234", vendorID: "IDFV-SECRET-5678", trackingAuthorized: true)
        let fixture = try PlacementFixture(
            placement: PlacementFixture.homeBanner(refreshSeconds: 30),
            bid: [.after(ms(3400), .bid(5))],
            hostContext: context,
            requestTemplate: RequestTemplate(device: device)
        )
        try await fixture.clock.perform {
            let renderer = try fixture.renderEachNewAd()
            defer { renderer.cancel() }
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(100))
            if let ad = await placement.currentAd?.ad { await placement.reportClick(ad) }
            await placement.destroy()

            // The data did reach the networks, so the check below can fail.
            let request = try #require(fixture.netA.requests.first)
            #expect(request.context.messages.first?.content.contains("XYZZY-chat-secret") == true)
            #expect(request.device.advertisingID == "IDFA-SECRET-1234")

            let events = fixture.recorder.events
            #expect(events.count > 10)
            let names = Set(events.map(\.name))
            #expect(names.isSuperset(of: ["auction_started", "auction_finished", "ad_loaded", "shown", "clicked", "retired", "refresh_scheduled", "late_answer"]))
            for event in events {
                var dumped = ""
                dump(event, to: &dumped)
                let texts = [dumped, String(describing: event), String(reflecting: event)]
                for secret in secrets {
                    #expect(!texts.contains { $0.contains(secret) }, "\(event.name) carries \(secret)")
                }
            }
            for line in fixture.logger.lines {
                for secret in secrets { #expect(!line.message.contains(secret)) }
            }
        }
    }

    @Test("a one-shot auction reports started, finished and its late answers; the winner is the caller's")
    func oneShot() async throws {
        let fixture = try PlacementFixture(
            placement: PlacementFixture.levelEnd,
            bid: [.after(ms(3400), .bid(5.00))],
            netA: [.after(ms(200), .fill)],
            netB: [.after(ms(300), .noFill)]
        )
        try await fixture.clock.perform {
            let run = fixture.clock.startTask { await fixture.engine.runAuction(placementID: "level_end") }
            #expect(await fixture.clock.settle { fixture.requestCount == 3 })
            await fixture.advance(to: at(3.0))
            let outcome = try #require(await run.value)
            #expect(outcome.winner?.lineItem.id == "neta")
            await fixture.advance(to: at(3.4))
            #expect(fixture.recorder.names == ["auction_started", "auction_finished", "late_answer"])
            #expect(fixture.recorder.events.map(\.instant) == [at(0), at(3.0), at(3.4)])
            #expect(try #require(fixture.bid.ads.first).releaseCount == 1)
            #expect(try #require(fixture.netA.ads.first).releaseCount == 0)
            #expect(await fixture.engine.runAuction(placementID: "nope") == nil)
        }
    }
}

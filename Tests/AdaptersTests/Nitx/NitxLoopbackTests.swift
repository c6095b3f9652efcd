import Foundation
import Mediation
import Testing
@testable import Adapters

/// Real HTTP on 127.0.0.1 (the loopback server), both request modes.
@Suite("Nitx over loopback HTTP", .serialized)
struct NitxLoopbackTests {
    static let config = #"{"code":"SDK-AM-DEMOI","bundle_id":"com.example.app","status":"active","sdk":{"ads_endpoint":"/api/sdk/ads","events_endpoint":"/api/sdk/events","forget_endpoint":"/api/sdk/forget"}}"#
    static let configWithoutSDK = #"{"code":"SDK-AM-DEMOI","bundle_id":"com.example.app","status":"active"}"#
    static let slot = #"{"slot":{"code":"SLOT-A","format":"banner_320x50"},"ad":{"id":42,"name":"Summer sale","type":"image","path":"/creatives/42.png","click_url":"/api/clicks/42"}}"#
    static let postSlot = #"{"slot":{"code":"SLOT-A","format":"banner_320x50"},"ad":{"id":43,"name":"Summer sale","type":"image","path":"/creatives/43.png"},"impression_id":"imp-9"}"#

    /// Real HTTP answers in wall-clock time, so the client runs on the system clock.
    static func client(_ server: LoopbackServer, clock: SystemClock = SystemClock()) -> NitxClient {
        NitxClient(
            sourceCode: NitxFixtures.code,
            options: NitxOptions(apiBaseURL: server.baseURL),
            transport: HTTP.SystemTransport(),
            clock: clock,
            wallClockAnchor: NitxFixtures.wallAnchor,
            makeVisitorID: { "visitor-loop" }
        )
    }

    static func load(_ client: NitxClient) async -> AdLoadResult {
        let request = NitxFixtures.request(.banner, slot: SlotSize(maxWidth: 320, maxHeight: 50), sizing: .inline)
        return await client.loadAd(slot: "SLOT-A", choice: NitxFixtures.choice(request), request: request)
    }

    @Test func getMode() async throws {
        let server = try await LoopbackServer(single: [
            "GET /api/ad-mobiles/show/SDK-AM-DEMOI": .json(Self.configWithoutSDK),
            "GET /api/ad-slots/show/SLOT-A": .json(Self.slot),
        ])
        defer { server.stop() }
        let client = Self.client(server)
        let ad = try #require(await Self.load(client).ad as? NitxLoadedAd)
        #expect(ad.creativeID == "42")
        #expect(ad.creative?.url?.absoluteString == "\(server.baseURL.absoluteString)/creatives/42.png")
        let received = try await server.receivedRequests()
        #expect(received.map { "\($0.method) \($0.path)" } == ["GET /api/ad-mobiles/show/SDK-AM-DEMOI", "GET /api/ad-slots/show/SLOT-A"])
        #expect(received.last?.headers["user-agent"] == "NitxPublisher/ios-1.0.0")
    }

    @Test func postModeWithEventsAndForget() async throws {
        let server = try await LoopbackServer(single: [
            "GET /api/ad-mobiles/show/SDK-AM-DEMOI": .json(Self.config),
            "POST /api/sdk/ads": .json(Self.postSlot),
            "POST /api/sdk/events": .init(status: 204),
            "POST /api/sdk/forget": .init(status: 204),
        ])
        defer { server.stop() }
        let client = Self.client(server)
        let ad = try #require(await Self.load(client).ad as? NitxLoadedAd)
        #expect(ad.impressionID == "imp-9")
        ad.recordImpression()
        await client.applicationDidEnterBackground()
        await client.reset()
        let received = try await server.receivedRequests()
        #expect(received.map { "\($0.method) \($0.path)" } == [
            "GET /api/ad-mobiles/show/SDK-AM-DEMOI", "POST /api/sdk/ads", "POST /api/sdk/events", "POST /api/sdk/forget",
        ])
        let adsBody = try #require(received.first { $0.path == "/api/sdk/ads" }?.body)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(adsBody.utf8)) as? [String: Any])
        #expect((object["visitor"] as? [String: Any])?["id"] as? String == "visitor-loop")
        #expect((object["context"] as? [String: Any])?["sdk"] as? String == "ios-1.0.0")
        let events = try #require(received.first { $0.path == "/api/sdk/events" }?.body)
        #expect(events.contains(#""type":"impression""#))
        #expect(events.contains(#""type":"viewable""#))
        #expect(received.first { $0.path == "/api/sdk/forget" }?.body == #"{"visitor_id":"visitor-loop"}"#)
    }

    @Test(arguments: [404, 405, 501])
    func postFallsBackToGet(status: Int) async throws {
        let server = try await LoopbackServer(single: [
            "GET /api/ad-mobiles/show/SDK-AM-DEMOI": .json(Self.config),
            "POST /api/sdk/ads": .json(#"{"error":"gone"}"#, status: status),
            "GET /api/ad-slots/show/SLOT-A": .json(Self.slot),
        ])
        defer { server.stop() }
        let client = Self.client(server)
        #expect(await Self.load(client).ad?.creativeID == "42")
        #expect(await Self.load(client).ad?.creativeID == "42")
        let received = try await server.receivedRequests()
        #expect(received.map { "\($0.method) \($0.path)" } == [
            "GET /api/ad-mobiles/show/SDK-AM-DEMOI", "POST /api/sdk/ads", "GET /api/ad-slots/show/SLOT-A", "GET /api/ad-slots/show/SLOT-A",
        ])
    }

    /// Engine rule R17: before, the slot request followed a redirect to another port and the
    /// other server's ad filled; now it fails with code 12 and the redirect's status.
    @Test(arguments: [302, 307])
    func aRedirectToAnotherOriginIsRefused(status: Int) async throws {
        let other = try await LoopbackServer(single: ["GET /api/ad-slots/show/SLOT-A": .json(Self.slot)])
        defer { other.stop() }
        let server = try await LoopbackServer(single: [
            "GET /api/ad-mobiles/show/SDK-AM-DEMOI": .json(Self.configWithoutSDK),
            "GET /api/ad-slots/show/SLOT-A": .redirect(status, to: "\(other.baseURL.absoluteString)/api/ad-slots/show/SLOT-A"),
        ])
        defer { server.stop() }
        let result = await Self.load(Self.client(server))
        guard case .failure(let error) = result else { Issue.record("expected a failure, got \(result)"); return }
        #expect(error == AdLoadResult.Error(
            kind: .server,
            code: NitxErrorCode.redirectRefused.rawValue,
            message: "redirectRefused: HTTP \(status) redirect to http://127.0.0.1:\(other.port) refused: it leaves http://127.0.0.1:\(server.port)",
            httpStatus: status
        ))
        #expect(try await other.receivedRequests().isEmpty)
    }

    @Test func offOriginPathIsIgnored() async throws {
        let other = try await LoopbackServer(single: ["POST /api/sdk/ads": .json(Self.postSlot)])
        defer { other.stop() }
        let config = #"{"code":"SDK-AM-DEMOI","status":"active","sdk":{"ads_endpoint":"\#(other.baseURL.absoluteString)/api/sdk/ads","events_endpoint":"/api/sdk/events"}}"#
        let server = try await LoopbackServer(single: [
            "GET /api/ad-mobiles/show/SDK-AM-DEMOI": .json(config),
            "GET /api/ad-slots/show/SLOT-A": .json(Self.slot),
        ])
        defer { server.stop() }
        let client = Self.client(server)
        #expect(await Self.load(client).ad?.creativeID == "42")
        #expect(try await other.receivedRequests().isEmpty)
        #expect(try await server.receivedRequests().map(\.method) == ["GET", "GET"])
    }
}

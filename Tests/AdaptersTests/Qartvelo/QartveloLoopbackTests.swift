import Foundation
import Mediation
import Testing
@testable import Adapters

/// Real HTTP against the loopback server, one test per request kind.
@Suite("Qartvelo over loopback HTTP", .serialized)
struct QartveloLoopbackTests {
    static let imageAnswer = #"{"id":"qv-1","ad":{"creative_id":"cr-lb","type":"image","w":960,"h":150,"density":3,"image_url":"https://cdn.qartvelo.test/i.png","click_url":"https://advertiser.example/"},"banner_refresh_seconds":15}"#

    /// One long-lived session for the suite (FoundationNetworking has faults with many sessions).
    static let transport = URLSessionTransport()

    static func adapter(_ server: LoopbackServer, adaptive: Bool = true) -> QartveloAdapter {
        QartveloAdapter(appID: "app-123", baseURL: server.baseURL, adaptive: adaptive, transport: transport, clock: ManualClock(), tracker: QartveloRecordingTracker())
    }

    static func body(_ server: LoopbackServer) async throws -> [String: Any] {
        let received = try await server.receivedRequests()
        #expect(received.map(\.path) == ["/v1/banner"])
        #expect(received.first?.method == "POST")
        #expect(received.first?.headers["content-type"] == "application/json")
        let text = try #require(received.first?.body)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func anchoredAdaptiveRequest() async throws {
        let server = try await LoopbackServer(single: ["POST /v1/banner": .json(Self.imageAnswer)])
        defer { server.stop() }
        let result = await Self.adapter(server).loadAd(for: QartveloFixtures.request(width: 390, screen: .phone))
        let ad = try #require(result.qartveloAd)
        #expect(ad.size == AdSize(width: 390, height: 60))
        #expect(ad.serverRefreshSeconds == 15)
        let body = try await Self.body(server)
        #expect(body["screen_width"] as? Int == 1170)
        #expect(body["banner_height"] as? Int == 180)
        #expect(body["banner_mode"] == nil)
        #expect(body["banner_max_height"] == nil)
        #expect(body["placement_id"] as? String == "qv-unit-1")
    }

    @Test func anchoredWithAdaptiveSizingOffRequest() async throws {
        let server = try await LoopbackServer(single: ["POST /v1/banner": .json(Self.imageAnswer)])
        defer { server.stop() }
        let result = await Self.adapter(server, adaptive: false).loadAd(for: QartveloFixtures.request(width: 768, screen: ScreenInfo(width: 768, height: 1024, scale: 2)))
        let ad = try #require(result.qartveloAd)
        #expect(ad.size == AdSize(width: 320, height: 50))
        let body = try await Self.body(server)
        #expect(body["screen_width"] as? Int == 1536)
        #expect(body.keys.contains("banner_height") == false)
        #expect(body.keys.contains("banner_mode") == false)
    }

    @Test func inlineRequest() async throws {
        let answer = #"{"ad":{"creative_id":"cr-rect","type":"image","w":300,"h":250,"image_url":"https://cdn.qartvelo.test/r.png"},"banner_refresh_seconds":60}"#
        let server = try await LoopbackServer(single: ["POST /v1/banner": .json(answer)])
        defer { server.stop() }
        let result = await Self.adapter(server).loadAd(for: QartveloFixtures.request(sizing: .inline, width: 390, screen: .phone))
        let ad = try #require(result.qartveloAd)
        #expect(ad.size == AdSize(width: 300, height: 250))
        let body = try await Self.body(server)
        #expect(body["banner_mode"] as? String == "inline")
        #expect(body["screen_width"] as? Int == 1170)
        #expect(body["banner_max_height"] as? Int == 750)
        #expect(body.keys.contains("banner_height") == false)
    }

    @Test func html5RequestDownloadsTheBundleAhead() async throws {
        let server = try await LoopbackServer(single: [
            "POST /v1/banner": .json(#"{"ad":{"creative_id":"cr-h5","type":"html5","w":320,"h":50,"bundle_url":"BASE/v1/bundles/cr-h5","bundle_size":12}}"#),
            "GET /v1/bundles/cr-h5": LoopbackServer.Response(status: 200, body: "<html></html>", headers: ["Content-Type": "application/zip"]),
        ])
        defer { server.stop() }
        // The bundle URL points back at this server.
        let transport = QartveloBaseRewritingTransport(base: server.baseURL.absoluteString)
        let adapter = QartveloAdapter(appID: "app-123", baseURL: server.baseURL, transport: transport, clock: ManualClock(), tracker: QartveloRecordingTracker())
        let ad = try #require(await adapter.loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        #expect(ad.html5Bundle?.data == Data("<html></html>".utf8))
        #expect(try await server.receivedRequests().map(\.path) == ["/v1/banner", "/v1/bundles/cr-h5"])
    }

    @Test func noFillAndServerErrorOverHTTP() async throws {
        let server = try await LoopbackServer(routes: ["POST /v1/banner": [LoopbackServer.Response(status: 204), LoopbackServer.Response(status: 503)]])
        defer { server.stop() }
        let adapter = Self.adapter(server)
        guard case .noFill = await adapter.loadAd(for: QartveloFixtures.request(width: 390)) else {
            Issue.record("expected no fill")
            return
        }
        let failure = await adapter.loadAd(for: QartveloFixtures.request(width: 390))
        #expect(failure.qartveloError?.kind == .server)
    }

    @Test func connectionRefusedIsANetworkFailure() async throws {
        let port = try await LoopbackServer.closedPort()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let adapter = QartveloAdapter(appID: "app-123", baseURL: url, transport: Self.transport, clock: ManualClock())
        let result = await adapter.loadAd(for: QartveloFixtures.request(width: 390))
        #expect(result.qartveloError?.kind == .network)
    }
}

/// URLSession transport that replaces `BASE` in response bodies with the loopback base URL,
/// so a scripted answer can point at the same server.
struct QartveloBaseRewritingTransport: HTTPTransport {
    var base: String
    var inner: URLSessionTransport = QartveloLoopbackTests.transport

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        var response = try await inner.send(request)
        response.body = Data(String(decoding: response.body, as: UTF8.self).replacingOccurrences(of: "BASE", with: base).utf8)
        return response
    }
}

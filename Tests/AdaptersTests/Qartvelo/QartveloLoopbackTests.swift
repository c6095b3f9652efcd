import Foundation
import Mediation
import Testing
@testable import Adapters

/// Real HTTP against one loopback server (one python process for the whole suite, to keep
/// process launches down): every request kind, an HTML5 bundle downloaded ahead, no fill and a
/// server error.
@Suite("Qartvelo over loopback HTTP", .serialized)
struct QartveloLoopbackTests {
    static let imageAnswer = #"{"id":"qv-1","ad":{"creative_id":"cr-lb","type":"image","w":960,"h":150,"density":3,"image_url":"https://cdn.qartvelo.test/i.png","click_url":"https://advertiser.example/"},"banner_refresh_seconds":15}"#
    static let rectangleAnswer = #"{"ad":{"creative_id":"cr-rect","type":"image","w":300,"h":250,"image_url":"https://cdn.qartvelo.test/r.png"},"banner_refresh_seconds":60}"#
    static let html5Answer = #"{"ad":{"creative_id":"cr-h5","type":"html5","w":320,"h":50,"bundle_url":"BASE/v1/bundles/cr-h5","bundle_size":13}}"#

    /// The body of the last request the server received, after checking it was a JSON POST.
    static func lastBody(_ server: LoopbackServer, count: Int) async throws -> [String: Any] {
        let received = try await server.receivedRequests()
        #expect(received.count == count)
        let last = try #require(received.last)
        #expect(last.method == "POST")
        #expect(last.path == "/v1/banner")
        #expect(last.headers["content-type"] == "application/json")
        return try #require(try JSONSerialization.jsonObject(with: Data(last.body.utf8)) as? [String: Any])
    }

    @Test func everyRequestKindOverHTTP() async throws {
        let server = try await LoopbackServer(routes: [
            "POST /v1/banner": [
                .json(Self.imageAnswer), .json(Self.imageAnswer), .json(Self.rectangleAnswer), .json(Self.html5Answer),
                LoopbackServer.Response(status: 204), LoopbackServer.Response(status: 503),
            ],
            "GET /v1/bundles/cr-h5": [LoopbackServer.Response(status: 200, body: "<html></html>", headers: ["Content-Type": "application/zip"])],
        ])
        defer { server.stop() }
        // One long-lived session; bundle URLs in answers point back at this server.
        let transport = QartveloBaseRewritingTransport(base: server.baseURL.absoluteString)
        let adaptive = QartveloAdapter(appID: "app-123", baseURL: server.baseURL, adaptive: true, transport: transport, clock: SystemClock(), tracker: QartveloRecordingTracker())
        let fixed = QartveloAdapter(appID: "app-123", baseURL: server.baseURL, adaptive: false, transport: transport, clock: SystemClock(), tracker: QartveloRecordingTracker())

        // 1. Anchored adaptive: screen_width and banner_height in pixels.
        let anchored = try #require(await adaptive.loadAd(for: QartveloFixtures.request(width: 390, screen: .phone)).qartveloAd)
        #expect(anchored.size == AdSize(width: 390, height: 60))
        #expect(anchored.serverRefreshSeconds == 15)
        var body = try await Self.lastBody(server, count: 1)
        #expect(body["screen_width"] as? Int == 1170)
        #expect(body["banner_height"] as? Int == 180)
        #expect(body["banner_mode"] == nil)
        #expect(body["banner_max_height"] == nil)
        #expect(body["placement_id"] as? String == "qv-unit-1")

        // 2. Anchored with adaptive sizing off: no banner_height.
        let creativeSized = try #require(await fixed.loadAd(for: QartveloFixtures.request(width: 768, screen: AdRequest.Device.Screen(width: 768, height: 1024, scale: 2))).qartveloAd)
        #expect(creativeSized.size == AdSize(width: 320, height: 50))
        body = try await Self.lastBody(server, count: 2)
        #expect(body["screen_width"] as? Int == 1536)
        #expect(body.keys.contains("banner_height") == false)
        #expect(body.keys.contains("banner_mode") == false)

        // 3. Inline: banner_mode and banner_max_height in pixels, no banner_height.
        let inline = try #require(await adaptive.loadAd(for: QartveloFixtures.request(sizing: .inline, width: 390, screen: .phone)).qartveloAd)
        #expect(inline.size == AdSize(width: 300, height: 250))
        body = try await Self.lastBody(server, count: 3)
        #expect(body["banner_mode"] as? String == "inline")
        #expect(body["screen_width"] as? Int == 1170)
        #expect(body["banner_max_height"] as? Int == 750)
        #expect(body.keys.contains("banner_height") == false)

        // 4. HTML5: the bundle is downloaded ahead from the same server.
        let html5 = try #require(await adaptive.loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        #expect(html5.html5Bundle?.data == Data("<html></html>".utf8))
        #expect(try await server.receivedRequests().map(\.path).suffix(2) == ["/v1/banner", "/v1/bundles/cr-h5"])

        // 5. 204 is no fill; 6. 503 is a server failure.
        guard case .noFill(let reason) = await adaptive.loadAd(for: QartveloFixtures.request(width: 390)) else {
            Issue.record("expected no fill")
            return
        }
        #expect(reason == .noInventory)
        let failure = await adaptive.loadAd(for: QartveloFixtures.request(width: 390))
        #expect(failure.qartveloError?.kind == .server)
        #expect(failure.qartveloError?.code == QartveloErrorCode.serverStatus.rawValue)
    }
}

/// Engine rule R17 over real HTTP: before, a redirect of the banner request to another port
/// was followed and the other server's ad filled.
@Suite("Qartvelo redirects over loopback HTTP", .serialized)
struct QartveloRedirectTests {
    @Test(arguments: [302, 307])
    func aRedirectToAnotherOriginIsRefusedWithItsStatus(status: Int) async throws {
        let other = try await LoopbackServer(single: [
            "POST /v1/banner": .json(QartveloLoopbackTests.imageAnswer),
            "GET /v1/banner": .json(QartveloLoopbackTests.imageAnswer),
        ])
        defer { other.stop() }
        let server = try await LoopbackServer(single: ["POST /v1/banner": .redirect(status, to: "\(other.baseURL.absoluteString)/v1/banner")])
        defer { server.stop() }
        let adapter = QartveloAdapter(appID: "app-123", baseURL: server.baseURL, transport: QartveloBaseRewritingTransport.session, clock: SystemClock(), tracker: QartveloRecordingTracker())
        let result = await adapter.loadAd(for: QartveloFixtures.request(width: 390))
        #expect(result.qartveloError == AdLoadResult.Error(
            kind: .server,
            code: QartveloErrorCode.redirectRefused.rawValue,
            message: "redirectRefused: HTTP \(status) redirect to http://127.0.0.1:\(other.port) refused: it leaves http://127.0.0.1:\(server.port)",
            httpStatus: status
        ))
        #expect(try await other.receivedRequests().isEmpty)
    }
}

/// The suite's one URLSession transport, replacing `BASE` in response bodies with the loopback
/// base URL so a scripted answer can point at the same server.
struct QartveloBaseRewritingTransport: HTTP.Transport {
    /// One long-lived session for every Qartvelo loopback test (FoundationNetworking has faults
    /// with many sessions).
    static let session = HTTP.SystemTransport()

    var base: String

    func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
        var response = try await Self.session.send(request)
        response.body = Data(String(decoding: response.body, as: UTF8.self).replacingOccurrences(of: "BASE", with: base).utf8)
        return response
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Engine rules R16 and R17 for Qartvelo: every value of an answer is bounded with
/// `NetworkValueBounds`, failures carry their HTTP status, and the adapter fetches nothing off
/// its origin but http(s) URLs from its answers, never a sandbox host.
@Suite("Qartvelo: bounded answers and origins", .serialized)
struct QartveloBoundsTests {
    static func load(_ response: HTTP.Response, other: HTTP.Response = HTTP.Response(statusCode: 404)) async -> (AdLoadResult, QartveloScriptedTransport) {
        let transport = QartveloScriptedTransport(banner: response, other: other)
        let adapter = QartveloFixtures.adapter(transport: transport, tracker: QartveloRecordingTracker())
        return (await adapter.loadAd(for: QartveloFixtures.request(width: 390)), transport)
    }

    static func body(_ text: String) -> HTTP.Response {
        .json(Data(text.utf8))
    }

    @Test(arguments: [
        (960, 150, 1e-300),
        (960, 150, 0.4),
        (960, 150, 8.5),
        (Int.max, 150, 3.0),
        (960, Int.max, 1.0),
        (40_000, 150, 3.0),
        (-960, 150, 3.0),
    ])
    func absurdSizesAndDensitiesAreInvalid(w: Int, h: Int, density: Double) async {
        let (result, _) = await Self.load(QartveloFixtures.answer(w: w, h: h, density: density))
        #expect(result.qartveloError?.kind == .invalidResponse, "\(w)x\(h)@\(density)")
        #expect(result.qartveloError?.code == QartveloErrorCode.invalidAd.rawValue)
    }

    @Test func theLargestArtworkStillLoads() async throws {
        let (result, _) = await Self.load(QartveloFixtures.answer(w: 30_000, h: 4_000, density: 3))
        let ad = try #require(result.qartveloAd)
        #expect(ad.creativePoints == AdSize(width: 10_000, height: 4_000.0 / 3))
    }

    @Test(arguments: [(Int.max, 86_400), (86_401, 86_400), (3600, 3600)])
    func theTTLIsCutToADay(ttl: Int, seconds: Int) async throws {
        let (result, _) = await Self.load(QartveloFixtures.answer(extra: #","ttl_seconds":\#(ttl)"#))
        #expect(try #require(result.qartveloAd).timeToLive == .seconds(seconds))
    }

    @Test(arguments: [(Int.max, 86_400), (86_401, 86_400), (86_400, 86_400), (15, 15), (60, 60)])
    func theRefreshIsCutToADayAndLowValuesReachThePlacement(refresh: Int, expected: Int) async throws {
        let logger = RecordingLogger()
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer(refresh: refresh))
        let adapter = QartveloFixtures.adapter(transport: transport, tracker: QartveloRecordingTracker(), logger: logger)
        let ad = try #require(await adapter.loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        #expect(ad.serverRefreshSeconds == expected)
        #expect(logger.warnings == (refresh > 86_400 ? ["banner_refresh_seconds \(refresh) cut to 86400"] : []))
    }

    @Test func aHugeNoFillReasonIsCut() async {
        let reason = String(repeating: "r", count: 50_000)
        let (result, _) = await Self.load(Self.body(#"{"id":"qv-1","nofill_reason":"\#(reason)"}"#))
        guard case .noFill(let noFill) = result else { Issue.record("expected no fill, got \(result)"); return }
        #expect(noFill.code.count == NetworkValueBounds.maximumIdentifierLength)
        #expect(noFill.message == nil)
    }

    @Test func aHugeCreativeIDIsCut() async throws {
        let id = String(repeating: "c", count: 5000)
        let body = String(decoding: QartveloFixtures.answer().body, as: UTF8.self).replacingOccurrences(of: #""creative_id":"cr-1""#, with: #""creative_id":"\#(id)""#)
        let ad = try #require(await Self.load(Self.body(body)).0.qartveloAd)
        #expect(ad.creativeID.count == NetworkValueBounds.maximumIdentifierLength)
        #expect(ad.id.count == NetworkValueBounds.maximumIdentifierLength)
        #expect(ad.id.hasPrefix("qv-1-ccc"))
    }

    @Test(arguments: [
        #""image_url":"javascript:alert(1)""#,
        #""image_url":"https://cdn.qartvelo.test/LONG""#,
        #""image_url":"https://cdn.qartvelo.test/i.png","impression_url":"file:///etc/passwd""#,
        #""image_url":"https://cdn.qartvelo.test/i.png","click_url":"https://user:pw@advertiser.example/""#,
    ])
    func badURLsMakeTheAdInvalid(urls: String) async {
        let urls = urls.replacingOccurrences(of: "LONG", with: String(repeating: "l", count: 3000))
        let (result, _) = await Self.load(Self.body(#"{"ad":{"creative_id":"c","type":"image","w":320,"h":50,\#(urls)}}"#))
        #expect(result.qartveloError?.code == QartveloErrorCode.invalidAd.rawValue)
    }

    @Test func aBundleOnASandboxHostIsNeverFetched() async {
        let (result, transport) = await Self.load(
            Self.body(#"{"ad":{"creative_id":"c","type":"html5","w":320,"h":50,"bundle_url":"https://nitx.sandbox/bundle"}}"#),
            other: HTTP.Response(statusCode: 200, body: Data("<html>".utf8))
        )
        #expect(result.qartveloError == AdLoadResult.Error(kind: .invalidResponse, code: QartveloErrorCode.invalidAd.rawValue, message: "bundle_url is not a URL the adapter may fetch"))
        #expect(transport.sent.map(\.method) == ["POST"])
    }

    @Test func aBundleOnACDNIsFetched() async throws {
        let (result, transport) = await Self.load(
            QartveloFixtures.answer(type: "html5", w: 320, h: 50, density: 1),
            other: HTTP.Response(statusCode: 200, body: Data("<html>".utf8))
        )
        #expect(try #require(result.qartveloAd).html5Bundle?.data == Data("<html>".utf8))
        #expect(transport.sent.map(\.url.absoluteString) == ["https://api.qartvelo.test/v1/banner", "https://cdn.qartvelo.test/b/1"])
    }

    @Test func trackingNeverGoesToASandboxHost() async throws {
        let clock = ManualClock()
        let body = String(decoding: QartveloFixtures.answer().body, as: UTF8.self)
            .replacingOccurrences(of: "https://t.qartvelo.test/imp", with: "https://sandbox.elo.test/t/impression")
        let transport = QartveloScriptedTransport(banner: Self.body(body), other: HTTP.Response(statusCode: 204))
        // The adapter's own tracker: pings go through its transport.
        let adapter = QartveloFixtures.adapter(transport: transport, clock: clock)
        let ad = try #require(await adapter.loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        ad.recordImpression()
        ad.recordClick()
        await clock.runUntilIdle()
        #expect(transport.sent.map(\.url.absoluteString) == ["https://api.qartvelo.test/v1/banner", "https://t.qartvelo.test/click"])
    }

    @Test(arguments: [(500, 21, AdLoadResult.Error.Kind.server), (503, 21, .server), (401, 20, .configuration), (403, 20, .configuration)])
    func errorStatusesCarryTheirStatus(status: Int, code: Int, kind: AdLoadResult.Error.Kind) async {
        let (result, _) = await Self.load(HTTP.Response(statusCode: status))
        #expect(result.qartveloError?.httpStatus == status)
        #expect(result.qartveloError?.code == code)
        #expect(result.qartveloError?.kind == kind)
    }

    @Test func aRefusedRedirectAndAnOversizedBodyKeepTheirStatus() async {
        for (error, code, kind) in [
            (HTTP.TransportError(kind: .redirectRefused, message: "HTTP 302 redirect to http://127.0.0.1:9 refused: it leaves https://api.qartvelo.test:443", status: 302), QartveloErrorCode.redirectRefused.rawValue, AdLoadResult.Error.Kind.server),
            (HTTP.TransportError(kind: .responseTooLarge, message: "response body of 9000000 bytes exceeds the 8388608-byte limit", status: 200), QartveloErrorCode.responseTooLarge.rawValue, .invalidResponse),
        ] {
            let adapter = QartveloFixtures.adapter(transport: QartveloScriptedTransport { _ in .failure(error) }, tracker: QartveloRecordingTracker())
            let result = await adapter.loadAd(for: QartveloFixtures.request(width: 390))
            #expect(result.qartveloError == AdLoadResult.Error(kind: kind, code: code, message: "\(error.kind.rawValue): \(error.message)", httpStatus: error.status))
        }
    }

    @Test func theBannerRequestNeverLeavesTheConfiguredOrigin() async {
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer())
        let adapter = QartveloAdapter(appID: "app", baseURL: URL(fileURLWithPath: "/tmp"), transport: transport, clock: ManualClock(), tracker: QartveloRecordingTracker())
        let result = await adapter.loadAd(for: QartveloFixtures.request(width: 390))
        #expect(result.qartveloError?.code == QartveloErrorCode.invalidRequest.rawValue)
        #expect(transport.sent.isEmpty)
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Qartvelo adapter")
struct QartveloAdapterTests {
    @Test func pricingIsFixedAndAnAdIsAFill() async throws {
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer())
        let adapter = QartveloFixtures.adapter(transport: transport)
        #expect(QartveloAdapterFactory().pricing == .fixedPrice)  // the factory states it for every Qartvelo network
        #expect(adapter.network == "qartvelo")
        let result = await adapter.loadAd(for: QartveloFixtures.request(width: 390))
        let ad = try #require(result.qartveloAd)
        #expect(ad.creativeID == "cr-1")
        #expect(ad.format == .banner)
        #expect(ad.size == AdSize(width: 390, height: 60))
        #expect(ad.creativePoints == AdSize(width: 320, height: 50))
        #expect(ad.serverRefreshSeconds == 60)
        #expect(ad.timeToLive == nil)
        #expect(transport.sent.count == 1)
    }

    @Test func idsAreUniquePerShowing() async throws {
        let adapter = QartveloFixtures.adapter(transport: QartveloScriptedTransport(banner: QartveloFixtures.answer()))
        let first = try #require(await adapter.loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        let second = try #require(await adapter.loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        #expect(first.creativeID == second.creativeID)
        #expect(first.id != second.id)
    }

    @Test func inlineAdIsTheFitOfTheCreative() async throws {
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer(w: 300, h: 250, density: 1))
        let ad = try #require(await QartveloFixtures.adapter(transport: transport).loadAd(for: QartveloFixtures.request(sizing: .inline, width: 390)).qartveloAd)
        #expect(ad.size == AdSize(width: 300, height: 250))
        #expect(ad.frame.creativeOriginX == 45)
        #expect(ad.layout == .inline(maxHeight: 250))
    }

    @Test func adaptiveOffTakesTheCreativesOwnSize() async throws {
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer(w: 960, h: 150, density: 3))
        let ad = try #require(await QartveloFixtures.adapter(transport: transport, adaptive: false).loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        #expect(ad.size == AdSize(width: 320, height: 50))
    }

    @Test func fifteenSecondServerRefreshReachesTheAdUnraised() async throws {
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer(refresh: 15))
        let ad = try #require(await QartveloFixtures.adapter(transport: transport).loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        #expect(ad.serverRefreshSeconds == 15)
    }

    @Test func noRefreshInTheAnswerKeepsThePlacementsOwn() async throws {
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer(refresh: nil))
        let ad = try #require(await QartveloFixtures.adapter(transport: transport).loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        #expect(ad.serverRefreshSeconds == nil)
    }

    @Test func nonPositiveRefreshIsDroppedWithAWarning() async throws {
        let logger = RecordingLogger()
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer(refresh: 0))
        let ad = try #require(await QartveloFixtures.adapter(transport: transport, logger: logger).loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        #expect(ad.serverRefreshSeconds == nil)
        #expect(logger.warnings == ["ignored banner_refresh_seconds 0 (not positive)"])
    }

    @Test func ttlFromTheAnswer() async throws {
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer(extra: #","ttl_seconds":900"#))
        let ad = try #require(await QartveloFixtures.adapter(transport: transport).loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        #expect(ad.timeToLive == .seconds(900))
    }

    @Test func status204IsNoFill() async {
        let result = await QartveloFixtures.adapter(transport: QartveloScriptedTransport(banner: HTTP.Response(statusCode: 204))).loadAd(for: QartveloFixtures.request(width: 390))
        guard case .noFill(let reason) = result else {
            Issue.record("expected no fill, got \(result)")
            return
        }
        #expect(reason == .noInventory)
    }

    @Test func answerWithoutAnAdIsNoFillWithItsReason() async {
        let body = Data(#"{"id":"qv-1","nofill_reason":"frequency_cap"}"#.utf8)
        let result = await QartveloFixtures.adapter(transport: QartveloScriptedTransport(banner: .json(body))).loadAd(for: QartveloFixtures.request(width: 390))
        guard case .noFill(let reason) = result else {
            Issue.record("expected no fill, got \(result)")
            return
        }
        #expect(reason.code == "frequency_cap")
    }

    @Test(arguments: [
        (500, AdLoadResult.Error.Kind.server, QartveloErrorCode.serverStatus.rawValue),
        (400, .server, QartveloErrorCode.serverStatus.rawValue),
        (401, .configuration, QartveloErrorCode.unauthorized.rawValue),
        (403, .configuration, QartveloErrorCode.unauthorized.rawValue),
    ])
    func errorStatuses(_ status: Int, _ kind: AdLoadResult.Error.Kind, _ code: Int) async {
        let result = await QartveloFixtures.adapter(transport: QartveloScriptedTransport(banner: HTTP.Response(statusCode: status))).loadAd(for: QartveloFixtures.request(width: 390))
        #expect(result.qartveloError?.kind == kind)
        #expect(result.qartveloError?.code == code)
    }

    @Test(arguments: [
        ("not json", QartveloErrorCode.malformedResponse.rawValue),
        (#"{"ad":{"creative_id":"c","type":"image"}}"#, QartveloErrorCode.malformedResponse.rawValue),
        (#"{"ad":{"creative_id":"c","type":"image","w":0,"h":50,"image_url":"https://x.test/i.png"}}"#, QartveloErrorCode.invalidAd.rawValue),
        (#"{"ad":{"creative_id":"c","type":"image","w":320,"h":-1,"image_url":"https://x.test/i.png"}}"#, QartveloErrorCode.invalidAd.rawValue),
        (#"{"ad":{"creative_id":"c","type":"video","w":320,"h":50,"image_url":"https://x.test/i.png"}}"#, QartveloErrorCode.invalidAd.rawValue),
        (#"{"ad":{"creative_id":"c","type":"image","w":320,"h":50}}"#, QartveloErrorCode.invalidAd.rawValue),
        (#"{"ad":{"creative_id":"c","type":"html5","w":320,"h":50}}"#, QartveloErrorCode.invalidAd.rawValue),
        (#"{"ad":{"creative_id":"c","type":"image","w":320,"h":50,"density":0,"image_url":"https://x.test/i.png"}}"#, QartveloErrorCode.invalidAd.rawValue),
    ])
    func malformedAnswersAreInvalidResponses(_ body: String, _ code: Int) async {
        let result = await QartveloFixtures.adapter(transport: QartveloScriptedTransport(banner: .json(Data(body.utf8)))).loadAd(for: QartveloFixtures.request(width: 390))
        #expect(result.qartveloError?.kind == .invalidResponse)
        #expect(result.qartveloError?.code == code)
    }

    @Test(arguments: [
        (HTTP.TransportError.Kind.connection, AdLoadResult.Error.Kind.network, QartveloErrorCode.network.rawValue),
        (.cancelled, .cancelled, QartveloErrorCode.cancelled.rawValue),
        (.timedOut, .timeout, QartveloErrorCode.timedOut.rawValue),
    ])
    func transportErrors(_ transportKind: HTTP.TransportError.Kind, _ kind: AdLoadResult.Error.Kind, _ code: Int) async {
        let transport = QartveloScriptedTransport { _ in .failure(HTTP.TransportError(kind: transportKind, message: "x")) }
        let result = await QartveloFixtures.adapter(transport: transport).loadAd(for: QartveloFixtures.request(width: 390))
        #expect(result.qartveloError?.kind == kind)
        #expect(result.qartveloError?.code == code)
    }

    @Test func otherFormatsFailUnsupportedWithoutARequest() async {
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer())
        let result = await QartveloFixtures.adapter(transport: transport).loadAd(for: QartveloFixtures.request(format: .interstitial, sizing: nil))
        #expect(result.qartveloError?.kind == .unsupported)
        #expect(result.qartveloError?.code == QartveloErrorCode.unsupportedFormat.rawValue)
        #expect(transport.sent.isEmpty)
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Nitx client: start and request modes")
struct NitxClientModeTests {
    static let getPath = "/api/ad-slots/show/SLOT-A"
    static let adsPath = "/api/sdk/ads"

    static func load(_ client: NitxClient, _ format: AdFormat = .banner, sizing: MediationConfiguration.Placement.BannerSizing? = .inline, slot: SlotSize = SlotSize(maxWidth: 320, maxHeight: 50)) async -> AdLoadResult {
        let request = NitxFixtures.request(format, slot: slot, sizing: sizing)
        return await client.loadAd(slot: "SLOT-A", choice: NitxFixtures.choice(request), request: request)
    }

    @Test func configLoadsOnceAndWarnsWhenTheBundleIDDiffers() async {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(bundleID: "com.other.app", sdk: false)],
            "GET \(Self.getPath)": [NitxFixtures.slotAnswer()],
        ])
        let logger = RecordingLogger()
        let client = NitxFixtures.client(transport: transport, logger: logger)
        _ = await Self.load(client)
        _ = await Self.load(client)
        #expect(transport.requests("GET", NitxFixtures.showPath).count == 1)
        #expect(transport.requests("GET", NitxFixtures.initPath).isEmpty)
        #expect(logger.warnings == ["Nitx source SDK-AM-DEMOI is registered for bundle id com.other.app, but the app's is com.example.app"])
    }

    @Test func sameBundleIDGivesNoWarning() async {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: false)],
            "GET \(Self.getPath)": [NitxFixtures.slotAnswer()],
        ])
        let logger = RecordingLogger()
        _ = await Self.load(NitxFixtures.client(transport: transport, logger: logger))
        #expect(logger.warnings.isEmpty)
    }

    @Test func initIsCalledOncePerProcessWhilePendingVerification() async {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(status: "pending_verification", sdk: false)],
            "GET \(NitxFixtures.initPath)": [NitxFixtures.json(#"{"status":"pending_verification"}"#)],
            "GET \(Self.getPath)": [NitxFixtures.slotAnswer()],
        ])
        let client = NitxFixtures.client(transport: transport)
        for _ in 0..<3 { _ = await Self.load(client) }
        #expect(transport.requests("GET", NitxFixtures.initPath).count == 1)
        let state = await client.state()
        #expect(state.sourceStatus == "pending_verification")
        #expect(state.counters.initCalls == 1)
    }

    @Test func aFailedConfigLoadUsesGetAndIsRetried() async {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.json("{}", status: 503), NitxFixtures.config()],
            "GET \(Self.getPath)": [NitxFixtures.slotAnswer()],
            "POST \(Self.adsPath)": [NitxFixtures.slotAnswer(format: "banner_320x50", impressionID: "imp-1")],
        ])
        let client = NitxFixtures.client(transport: transport)
        _ = await Self.load(client)
        #expect(transport.requests("GET", Self.getPath).count == 1)
        _ = await Self.load(client)
        #expect(transport.requests("GET", NitxFixtures.showPath).count == 2)
        #expect(transport.requests("POST", Self.adsPath).count == 1)
    }

    @Test func getPerSlotByDefault() async throws {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: false)],
            "GET \(Self.getPath)": [NitxFixtures.slotAnswer()],
        ])
        let client = NitxFixtures.client(transport: transport)
        let result = await Self.load(client)
        let ad = try #require(result.ad as? NitxLoadedAd)
        guard case .fill = result else {
            Issue.record("a Nitx answer is a fill (no price)")
            return
        }
        #expect(ad.creativeID == "42")
        #expect(ad.size == AdSize(width: 320, height: 50))
        #expect(ad.impressionID == nil)
        let get = try #require(transport.requests("GET", Self.getPath).first)
        #expect(get.url.absoluteString == "https://api.nitx.test/api/ad-slots/show/SLOT-A")
        #expect(get.body == nil)
        #expect(await client.state().mode == .get)
    }

    @Test(arguments: [true, false])
    func debugLogsRequestsAndModeOnlyWhenOn(debug: Bool) async throws {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: false)],
            "GET \(Self.getPath)": [NitxFixtures.slotAnswer()],
        ])
        let logger = RecordingLogger()
        let client = NitxFixtures.client(transport: transport, options: NitxOptions(apiBaseURL: NitxFixtures.base, debug: debug), logger: logger)
        _ = try #require(await Self.load(client).ad)
        let debugLines = logger.lines.filter { $0.level == .debug }
        if debug {
            #expect(debugLines.map(\.message) == [
                "Nitx GET /api/ad-mobiles/show/SDK-AM-DEMOI",
                "Nitx source SDK-AM-DEMOI status active, mode get",
                "Nitx GET /api/ad-slots/show/SLOT-A",
            ])
            #expect(debugLines.allSatisfy { $0.source == "nitx" })
        } else {
            #expect(debugLines.isEmpty)
        }
        let visitor = try #require(await client.state().visitorID)
        #expect(logger.lines.allSatisfy { !$0.message.contains(visitor) })
    }

    @Test func postWithTheSdkBlock() async throws {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config()],
            "POST \(Self.adsPath)": [NitxFixtures.slotAnswer(format: "banner_320x50", impressionID: "imp-1")],
        ])
        let client = NitxFixtures.client(transport: transport)
        let result = await Self.load(client)
        let ad = try #require(result.ad as? NitxLoadedAd)
        #expect(ad.impressionID == "imp-1")
        #expect(transport.requests("GET", Self.getPath).isEmpty)
        let body = try #require(transport.jsonBodies("POST", Self.adsPath).first)
        #expect(body["slot"] as? String == "SLOT-A")
        #expect(body["format"] as? String == "banner_320x50")
        let visitor = try #require(body["visitor"] as? [String: Any])
        #expect(visitor["id"] as? String == "visitor-1")
        #expect(visitor["consent"] is NSNull)
        #expect(visitor["profile"] is NSNull)
        let context = try #require(body["context"] as? [String: Any])
        #expect(context["sdk"] as? String == "ios-1.0.0")
        #expect((context["app"] as? [String: Any])?["screen"] as? String == nil)  // the request names no screen
        #expect(await client.state().mode == .post)
    }

    @Test(arguments: [404, 405, 501])
    func postFallsBackToGetForTheRestOfTheProcess(status: Int) async throws {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config()],
            "POST \(Self.adsPath)": [NitxFixtures.json(#"{"error":"no"}"#, status: status)],
            "GET \(Self.getPath)": [NitxFixtures.slotAnswer()],
        ])
        let logger = RecordingLogger()
        let client = NitxFixtures.client(transport: transport, logger: logger)
        let first = await Self.load(client)
        #expect(first.ad != nil)
        _ = await Self.load(client)
        _ = await Self.load(client)
        #expect(transport.requests("POST", Self.adsPath).count == 1)
        #expect(transport.requests("GET", Self.getPath).count == 3)
        let state = await client.state()
        #expect(state.fellBackToGet)
        #expect(state.mode == .get)
        #expect(logger.warnings == ["Nitx POST ads endpoint answered HTTP \(status): using GET for the rest of the process"])
    }

    @Test(arguments: [400, 500, 503])
    func otherPostErrorsDoNotFallBack(status: Int) async {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config()],
            "POST \(Self.adsPath)": [NitxFixtures.json("{}", status: status)],
        ])
        let client = NitxFixtures.client(transport: transport)
        guard case .failure(let error) = await Self.load(client) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .server)
        _ = await Self.load(client)
        #expect(transport.requests("POST", Self.adsPath).count == 2)
        #expect(transport.requests("GET", Self.getPath).isEmpty)
    }

    @Test func postOverrideNeverFallsBack() async {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config()],
            "POST \(Self.adsPath)": [NitxFixtures.json("{}", status: 404)],
        ])
        let client = NitxFixtures.client(transport: transport, options: NitxOptions(apiBaseURL: NitxFixtures.base, requestMode: .post))
        guard case .failure(let error) = await Self.load(client) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .server)
        #expect(transport.requests("GET", Self.getPath).isEmpty)
        #expect(await client.state().fellBackToGet == false)
    }

    @Test func getOverrideIgnoresTheSdkBlock() async {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config()],
            "GET \(Self.getPath)": [NitxFixtures.slotAnswer()],
        ])
        let client = NitxFixtures.client(transport: transport, options: NitxOptions(apiBaseURL: NitxFixtures.base, requestMode: .get))
        #expect(await Self.load(client).ad != nil)
        #expect(transport.requests("POST", Self.adsPath).isEmpty)
    }

    @Test func offOriginAdsEndpointIsIgnored() async {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(ads: "https://evil.example/api/sdk/ads")],
            "GET \(Self.getPath)": [NitxFixtures.slotAnswer()],
        ])
        let logger = RecordingLogger()
        let client = NitxFixtures.client(transport: transport, logger: logger)
        #expect(await Self.load(client).ad != nil)
        #expect(transport.requests.allSatisfy { $0.url.host == "api.nitx.test" })
        #expect(transport.requests.filter { $0.method == "POST" }.isEmpty)
        #expect(logger.warnings == ["Nitx sdk.ads_endpoint is off the API's origin and is ignored"])
    }

    @Test func rewardedAlwaysFailsWithoutARequest() async {
        let transport = NitxScriptedTransport([:])
        let client = NitxFixtures.client(transport: transport)
        let result = await Self.load(client, .rewarded, sizing: nil, slot: SlotSize())
        guard case .failure(let error) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.message == "Rewarded ads are not available in v1")
        #expect(error.kind == .unsupported)
        #expect(transport.requests.isEmpty)
    }

    @Test func htmlCreativeIsACreativeFailure() async {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: false)],
            "GET \(Self.getPath)": [NitxFixtures.slotAnswer(type: "html")],
        ])
        guard case .failure(let error) = await Self.load(NitxFixtures.client(transport: transport)) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .creative)
    }

    @Test func connectionRefusedIsANetworkFailure() async {
        struct Refusing: HTTP.Transport {
            func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
                throw HTTP.TransportError(kind: .connection, message: "refused")
            }
        }
        let client = NitxClient(sourceCode: NitxFixtures.code, options: NitxOptions(apiBaseURL: NitxFixtures.base), transport: Refusing(), clock: ManualClock())
        guard case .failure(let error) = await Self.load(client) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .network)
        #expect(error.code == 1)
    }

    @Test func stateCountsRequestsAndOutcomes() async {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: false)],
            "GET \(Self.getPath)": [NitxFixtures.slotAnswer(), HTTP.Response(statusCode: 204), NitxFixtures.json("oops")],
        ])
        let client = NitxFixtures.client(transport: transport)
        for _ in 0..<3 { _ = await Self.load(client) }
        _ = await Self.load(client, .rewarded, sizing: nil, slot: SlotSize())
        let counters = await client.state().counters
        #expect(counters.adRequests == 4)
        #expect(counters.getRequests == 3)
        #expect(counters.fills == 1)
        #expect(counters.noFills == 1)
        #expect(counters.failures == 2)
        #expect(counters.configLoads == 1)
    }

    /// `state()` reports each of what the document lists, read from the client as it is:
    /// counters, mode, consent, visitor id and profile keys; a withdrawal shows at once.
    @Test func stateReportsModeConsentVisitorAndProfileKeys() async throws {
        let profile = #"{"hashes":{"email":"\#(NitxConsentTests.emailHash)"}}"#
        let storage = NitxRecords([.visitorID: "visitor-7", .consent: "granted", .profile: profile])
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: true)],
            "POST /api/sdk/ads": [NitxFixtures.slotAnswer(format: "banner_320x50", impressionID: "imp-1")],
        ])
        let client = NitxFixtures.client(transport: transport, storage: storage)
        let before = await client.state()
        #expect(before.visitorID == "visitor-7")
        #expect(before.consent == true)
        #expect(before.profileKeys == ["email"])
        #expect(before.counters.adRequests == 0)
        _ = try #require(await Self.load(client).ad)
        let started = await client.state()
        #expect(started.mode == .post)
        #expect(started.started)
        #expect(started.counters.adRequests == 1)
        #expect(started.counters.postRequests == 1)
        #expect(started.counters.fills == 1)
        client.hostPrivacyDidChange(AdRequest.Privacy(userConsent: false))
        let withdrawn = await client.state()
        #expect(withdrawn.consent == false)
        #expect(withdrawn.profileKeys.isEmpty)
        #expect(withdrawn.visitorID == "visitor-7")
    }

    @Test func aLineItemWithoutSlotCodeIsAConfigurationFailure() async {
        let transport = NitxScriptedTransport([:])
        let client = NitxFixtures.client(transport: transport)
        let request = NitxFixtures.request(.interstitial, adUnit: "")
        guard case .failure(let error) = await client.loadAd(slot: "", choice: NitxFixtures.choice(request), request: request) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .configuration)
        #expect(error.code == 11)
        #expect(transport.requests.isEmpty)
    }

    @Test func adIDsAreUniquePerShowing() async throws {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: false)],
            "GET \(Self.getPath)": [NitxFixtures.slotAnswer()],
        ])
        let client = NitxFixtures.client(transport: transport)
        let first = try #require(await Self.load(client).ad)
        let second = try #require(await Self.load(client).ad)
        #expect(first.creativeID == second.creativeID)
        #expect(first.id == "nitx-1-42")
        #expect(second.id == "nitx-2-42")
    }

    @Test func releaseIsIdempotentAndDropsTheCreative() async throws {
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: false)],
            "GET \(Self.getPath)": [NitxFixtures.slotAnswer()],
        ])
        let ad = try #require(await Self.load(NitxFixtures.client(transport: transport)).ad as? NitxLoadedAd)
        #expect(ad.creative != nil)
        ad.releaseResources()
        ad.releaseResources()
        #expect(ad.isReleased)
        #expect(ad.creative == nil)
    }
}

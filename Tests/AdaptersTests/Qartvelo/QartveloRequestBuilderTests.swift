import Foundation
import Mediation
import Testing
@testable import Adapters

@Suite("Qartvelo request builder")
struct QartveloRequestBuilderTests {
    static let builder = QartveloRequestBuilder(appID: "app-123", baseURL: QartveloFixtures.baseURL, adaptive: true)
    static let fixedBuilder = QartveloRequestBuilder(appID: "app-123", baseURL: QartveloFixtures.baseURL, adaptive: false)

    static func plan(_ builder: QartveloRequestBuilder, _ request: AdRequest) throws -> QartveloRequestPlan {
        try builder.plan(for: request, requestID: "qv-1", now: .origin).get()
    }

    struct AnchoredCase: Sendable, CustomTestStringConvertible {
        var width: Double
        var screen: AdRequest.Device.Screen
        var screenWidth: Int
        var bannerHeight: Int
        var testDescription: String { "\(width) pt at @\(screen.scale) -> \(screenWidth) x \(bannerHeight) px" }
    }

    /// Anchored adaptive: screen_width and banner_height in pixels (points x scale).
    static let anchoredCases: [AnchoredCase] = [
        AnchoredCase(width: 320, screen: AdRequest.Device.Screen(width: 320, height: 568, scale: 2), screenWidth: 640, bannerHeight: 100),
        AnchoredCase(width: 390, screen: AdRequest.Device.Screen(width: 390, height: 844, scale: 3), screenWidth: 1170, bannerHeight: 180),
        AnchoredCase(width: 390, screen: AdRequest.Device.Screen(width: 390, height: 350, scale: 2), screenWidth: 780, bannerHeight: 104),
        AnchoredCase(width: 768, screen: AdRequest.Device.Screen(width: 768, height: 1024, scale: 2), screenWidth: 1536, bannerHeight: 180),
        AnchoredCase(width: 768, screen: AdRequest.Device.Screen(width: 768, height: 500, scale: 1), screenWidth: 768, bannerHeight: 75),
        AnchoredCase(width: 1024, screen: AdRequest.Device.Screen(width: 1024, height: 1366, scale: 2), screenWidth: 2048, bannerHeight: 180),
        AnchoredCase(width: 1024, screen: AdRequest.Device.Screen(width: 1024, height: 400, scale: 3), screenWidth: 3072, bannerHeight: 180),
    ]

    @Test(arguments: anchoredCases)
    func anchoredAdaptiveSendsScreenWidthAndBannerHeightInPixels(_ testCase: AnchoredCase) throws {
        let plan = try Self.plan(Self.builder, QartveloFixtures.request(width: testCase.width, screen: testCase.screen))
        #expect(plan.layout == .anchoredAdaptive)
        #expect(plan.body.screenWidth == testCase.screenWidth)
        #expect(plan.body.bannerHeight == testCase.bannerHeight)
        let json = QartveloFixtures.json(plan.http)
        #expect(json["screen_width"] as? Int == testCase.screenWidth)
        #expect(json["banner_height"] as? Int == testCase.bannerHeight)
        #expect(json["banner_mode"] == nil)
        #expect(json["banner_max_height"] == nil)
    }

    @Test func anchoredWithoutAContainerWidthUsesTheScreenWidth() throws {
        let plan = try Self.plan(Self.builder, QartveloFixtures.request(width: nil, screen: .phone))
        #expect(plan.width == 390)
        #expect(plan.body.screenWidth == 1170)
        #expect(plan.body.bannerHeight == 180)
    }

    @Test func bannerWithoutSizingIsAnchored() throws {
        let plan = try Self.plan(Self.builder, QartveloFixtures.request(sizing: nil, width: 390))
        #expect(plan.layout == .anchoredAdaptive)
        #expect(plan.body.bannerHeight == 180)
    }

    @Test(arguments: [(390.0, 3.0, 1170), (320.0, 2.0, 640), (768.0, 2.0, 1536), (1024.0, 1.0, 1024)])
    func adaptiveOffSendsNoBannerHeight(_ width: Double, _ scale: Double, _ pixels: Int) throws {
        let plan = try Self.plan(Self.fixedBuilder, QartveloFixtures.request(width: width, screen: AdRequest.Device.Screen(width: width, height: 900, scale: scale)))
        #expect(plan.layout == .anchoredCreativeSize)
        let json = QartveloFixtures.json(plan.http)
        #expect(json["screen_width"] as? Int == pixels)
        #expect(json.keys.contains("banner_height") == false)
        #expect(json.keys.contains("banner_mode") == false)
        #expect(json.keys.contains("banner_max_height") == false)
    }

    @Test(arguments: [
        (390.0, nil as Double?, 3.0, 1170, 750),
        (390.0, 100.0, 3.0, 1170, 300),
        (320.0, 32.0, 2.0, 640, 64),
        (768.0, 250.0, 2.0, 1536, 500),
        (1024.0, 90.0, 1.0, 1024, 90),
    ])
    func inlineSendsModeAndMaxHeightInPixelsAndNoBannerHeight(_ width: Double, _ maxHeight: Double?, _ scale: Double, _ screenWidth: Int, _ maxPixels: Int) throws {
        // Inline sizing wins over the adaptive option.
        for builder in [Self.builder, Self.fixedBuilder] {
            let plan = try Self.plan(builder, QartveloFixtures.request(sizing: .inline, width: width, maxHeight: maxHeight, screen: AdRequest.Device.Screen(width: width, height: 900, scale: scale)))
            #expect(plan.layout == .inline(maxHeight: maxHeight ?? 250))
            let json = QartveloFixtures.json(plan.http)
            #expect(json["banner_mode"] as? String == "inline")
            #expect(json["screen_width"] as? Int == screenWidth)
            #expect(json["banner_max_height"] as? Int == maxPixels)
            #expect(json.keys.contains("banner_height") == false)
        }
    }

    @Test func inlineMaxHeightUnder32IsAConfigurationFailure() {
        let result = Self.builder.plan(for: QartveloFixtures.request(sizing: .inline, width: 390, maxHeight: 31), requestID: "qv-1", now: .origin)
        guard case .failure(let error) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .configuration)
        #expect(error.code == QartveloErrorCode.invalidInlineMaxHeight.rawValue)
    }

    @Test(arguments: [AdFormat.interstitial, .appOpen, .native, .rewarded])
    func otherFormatsAreUnsupported(_ format: AdFormat) {
        let result = Self.builder.plan(for: QartveloFixtures.request(format: format, sizing: nil), requestID: "qv-1", now: .origin)
        guard case .failure(let error) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .unsupported)
        #expect(error.code == QartveloErrorCode.unsupportedFormat.rawValue)
    }

    @Test func bodyCarriesPlacementAppDeviceRegsAndTmax() throws {
        var request = QartveloFixtures.request(width: 390)
        request.deadline = .origin + .milliseconds(2500)
        request.device = AdRequest.Device(connectionType: .cellular5G, advertisingID: "IDFA-1", trackingAuthorized: true)
        request.privacy = AdRequest.Privacy(gdprApplies: true, tcfConsentString: "CP-TCF", usPrivacyString: "1YNN", gppString: "DBA", gppSectionIDs: [7], limitAdTracking: false)
        let plan = try Self.builder.plan(for: request, requestID: "qv-9", now: .origin + .milliseconds(500)).get()
        #expect(plan.http.method == "POST")
        #expect(plan.http.url.absoluteString == "https://api.qartvelo.test/v1/banner")
        #expect(plan.http.headers["Content-Type"] == "application/json")
        let json = QartveloFixtures.json(plan.http)
        #expect(json["id"] as? String == "qv-9")
        #expect(json["placement_id"] as? String == "qv-unit-1")
        #expect(json["tmax"] as? Int == 2000)
        #expect(json["creative_types"] as? [String] == ["image", "html5"])
        let app = try #require(json["app"] as? [String: Any])
        #expect(app["id"] as? String == "app-123")
        #expect(app["bundle"] as? String == "com.example.app")
        let device = try #require(json["device"] as? [String: Any])
        #expect(device["w"] as? Int == 1170)
        #expect(device["h"] as? Int == 2532)
        #expect(device["pxratio"] as? Double == 3)
        #expect(device["devicetype"] as? Int == 4)
        #expect(device["connectiontype"] as? Int == 7)
        #expect(device["lmt"] as? Int == 0)
        // GDPR applies: user data is restricted, so no advertising id even when authorized.
        #expect(device["ifa"] == nil)
        let regs = try #require(json["regs"] as? [String: Any])
        #expect(regs["coppa"] as? Int == 0)
        #expect(regs["gdpr"] as? Int == 1)
        #expect(regs["us_privacy"] as? String == "1YNN")
        #expect(regs["gpp"] as? String == "DBA")
        #expect(regs["gpp_sid"] as? [Int] == [7])
        let user = try #require(json["user"] as? [String: Any])
        #expect(user["consent"] as? String == "CP-TCF")
    }

    @Test func advertisingIDOnlyWhenAuthorizedUnlimitedAndUnrestricted() throws {
        var request = QartveloFixtures.request(width: 390)
        request.device = AdRequest.Device(advertisingID: "IDFA-1", trackingAuthorized: true)
        request.privacy = AdRequest.Privacy(limitAdTracking: false)
        let allowed = QartveloFixtures.json(try Self.plan(Self.builder, request).http)
        #expect((allowed["device"] as? [String: Any])?["ifa"] as? String == "IDFA-1")
        let regs = allowed["regs"] as? [String: Any]
        #expect(regs?["gdpr"] == nil)  // unknown: omitted
        #expect(allowed["user"] == nil)

        request.privacy = AdRequest.Privacy(limitAdTracking: true)
        let limited = QartveloFixtures.json(try Self.plan(Self.builder, request).http)
        #expect((limited["device"] as? [String: Any])?["ifa"] == nil)
        #expect((limited["device"] as? [String: Any])?["lmt"] as? Int == 1)
    }

    @Test func placementIDFallsBackToThePlacementWhenNoAdUnit() throws {
        var request = QartveloFixtures.request(width: 390)
        request.adUnitID = ""
        #expect(try Self.plan(Self.builder, request).body.placementID == "home_banner")
    }
}

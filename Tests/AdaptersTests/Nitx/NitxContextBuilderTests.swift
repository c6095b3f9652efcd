import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Nitx context block")
struct NitxContextBuilderTests {
    static let device = AdRequest.Device(
        osName: "iOS", osVersion: "17.4", kind: .tablet, language: "ar", timeZone: "Asia/Riyadh",
        country: "SAU", location: AdRequest.Device.Location(latitude: 24.7136, longitude: 46.6753),
        advertisingID: "6D92078A-8246-4BA4-AE5B-76104861E7DC", vendorID: "IDFV-1", trackingAuthorized: true
    )

    /// A request whose privacy signals allow tracking (ATT authorized is in `device`; the OS does
    /// not limit ad tracking) unless `privacy` says otherwise.
    static func request(device: AdRequest.Device = device, screen: String? = nil, privacy: AdRequest.Privacy = AdRequest.Privacy(limitAdTracking: false)) -> AdRequest {
        AdRequest(
            placementID: "p", adUnitID: "SLOT-A", format: .banner,
            screen: AdRequest.Device.Screen(width: 820, height: 1180, scale: 2),
            context: AdRequest.Context(screenName: screen), device: device,
            app: RequestTemplate.App(bundleID: "com.example.chat", version: "2.4.0", build: "812"),
            privacy: privacy
        )
    }

    @Test func carriesTheSeedsFields() throws {
        let context = NitxContextBuilder.context(for: Self.request(screen: "HomeFeed"), sdkTag: "ios-1.0.0")
        #expect(context.app == NitxWireAppContext(bundleID: "com.example.chat", version: "2.4.0", build: "812", screen: "HomeFeed"))
        #expect(context.os == NitxWireOSContext(name: "iOS", version: "17.4"))
        #expect(context.device == NitxWireDeviceContext(type: "tablet", screenWidth: 820, screenHeight: 1180, screenScale: 2))
        #expect(context.language == "ar")
        #expect(context.timeZone == "Asia/Riyadh")
        #expect(context.sdk == "ios-1.0.0")
        #expect(context.adID == "6D92078A-8246-4BA4-AE5B-76104861E7DC")
    }

    @Test func theRequestsScreenNameIsSent() {
        let context = NitxContextBuilder.context(for: Self.request(screen: "Chat"), sdkTag: "ios-1.0.0")
        #expect(context.app.screen == "Chat")
    }

    @Test func adIDOnlyWhenTrackingIsAuthorized() {
        var device = Self.device
        device.trackingAuthorized = false
        #expect(NitxContextBuilder.context(for: Self.request(device: device), sdkTag: "ios-1.0.0").adID == nil)
        device.trackingAuthorized = true
        device.advertisingID = NitxContextBuilder.zeroAdvertisingID
        #expect(NitxContextBuilder.context(for: Self.request(device: device), sdkTag: "ios-1.0.0").adID == nil)
    }

    @Test(arguments: [
        AdRequest.Privacy(limitAdTracking: true),
        AdRequest.Privacy(coppa: true, limitAdTracking: false),
        AdRequest.Privacy(underAgeOfConsent: true, limitAdTracking: false),
        AdRequest.Privacy(userConsent: false, limitAdTracking: false),
    ])
    func adIDIsWithheldWhenThePrivacySignalsForbidIt(privacy: AdRequest.Privacy) {
        #expect(NitxContextBuilder.context(for: Self.request(privacy: privacy), sdkTag: "ios-1.0.0").adID == nil)
    }

    @Test(arguments: [(nil as String?, "ios-1.0.0"), ("rn-1.0.0", "rn-1.0.0/ios-1.0.0"), ("", "ios-1.0.0"), ("flutter-2.1.0", "flutter-2.1.0/ios-1.0.0")])
    func sdkTag(bridge: String?, expected: String) {
        #expect(NitxOptions(bridge: bridge).sdkTag == expected)
    }

    /// Never the IP address, the user agent, a location, or the vendor id; ad_id is null without ATT.
    @Test func neverSendsIPUserAgentOrLocation() throws {
        var device = Self.device
        device.trackingAuthorized = false
        let context = NitxContextBuilder.context(for: Self.request(device: device), sdkTag: "ios-1.0.0")
        let data = try JSONEncoder().encode(context)
        let text = String(decoding: data, as: UTF8.self)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["app", "os", "device", "language", "time_zone", "sdk", "ad_id"])
        #expect(object["ad_id"] is NSNull)
        let keys = Self.allKeys(object)
        for forbidden in ["ip", "ua", "user_agent", "geo", "lat", "lon", "location", "idfv", "country"] {
            #expect(!keys.contains(forbidden), "found key \(forbidden)")
        }
        for value in ["24.7136", "46.6753", "IDFV-1", "SAU", "6D92078A"] {
            #expect(!text.contains(value), "found \(value)")
        }
    }

    static func allKeys(_ object: [String: Any]) -> Set<String> {
        var keys = Set(object.keys)
        for value in object.values {
            if let nested = value as? [String: Any] { keys.formUnion(allKeys(nested)) }
        }
        return keys
    }
    /// Nitx reads the tracking authorisation at start and after consent changes (Nitx document,
    /// "App Tracking Transparency"): the engine reads it from the host's signals with every
    /// request, so the first request and each one after a change of authorisation or consent
    /// carry the advertising id exactly when it is allowed then, never a value kept from before.
    @Test func trackingAuthorizationIsReadAtStartAndAfterEachChange() async throws {
        let clock = ManualClock()
        let answers = (1...4).map { NitxFixtures.slotAnswer(format: "banner_320x50", impressionID: "imp-\($0)") }
        let transport = NitxScriptedTransport([
            "GET \(NitxFixtures.showPath)": [NitxFixtures.config(sdk: true)],
            "POST /api/sdk/ads": answers,
        ])
        func template(authorized: Bool, consent: Bool?) -> RequestTemplate {
            var device = Self.device
            device.trackingAuthorized = authorized
            return RequestTemplate(device: device, privacy: AdRequest.Privacy(userConsent: consent, limitAdTracking: false))
        }
        let engine = try NitxEventBatchingTests.engine(clock: clock, transport: transport, template: template(authorized: true, consent: nil))
        let steps: [(RequestTemplate?, String?)] = [
            (nil, Self.device.advertisingID),                                    // at start: authorized
            (template(authorized: false, consent: nil), nil),                   // revoked in Settings
            (template(authorized: true, consent: true), Self.device.advertisingID), // after the consent prompt
            (template(authorized: true, consent: false), nil),                  // consent withdrawn
        ]
        for (index, (change, expected)) in steps.enumerated() {
            if let change { engine.updateRequestTemplate(change) }
            _ = try await engine.runAuction(placementID: "feed_inline", on: clock)
            let bodies = transport.jsonBodies("POST", "/api/sdk/ads")
            try #require(bodies.count == index + 1)
            let context = try #require(bodies[index]["context"] as? [String: Any])
            #expect(context["ad_id"] as? String == expected, "request \(index + 1)")
        }
        await clock.perform { await engine.shutdown() }
    }
}

import Foundation
import Mediation
import Testing
@testable import Adapters

@Suite("Elo request builder and message rules")
struct EloRequestBuilderTests {
    let now = EloFixtures.now

    func build(
        _ request: AdRequest = EloFixtures.request(),
        configuration: EloConfiguration = EloFixtures.configuration,
        shareGeo: Bool = true
    ) -> (request: EloWireBidRequest, warnings: [String]) {
        EloRequestBuilder.build(EloRequestBuilder.Input(
            configuration: configuration,
            request: request,
            adUnitID: "unit-chat",
            requestID: "req-1",
            sessionID: "session-1",
            visitorID: "visitor-1",
            shareGeoLocation: shareGeo,
            now: now,
            tmaxMilliseconds: 2750,
            maxWidth: EloAdFormat.wholePoints(request.slot.maxWidth),
            maxHeight: EloAdFormat.wholePoints(request.slot.maxHeight)
        ))
    }

    // MARK: Messages

    @Test func onlyTheLatestThirtyMessagesAreForwarded() {
        let messages = (0..<35).map { AdRequest.Context.Message(role: $0.isMultiple(of: 2) ? .user : .assistant, content: "message \($0)") }
        let (wire, warnings) = EloMessageRules.wireMessages(messages, now: now)
        #expect(wire.count == 30)
        #expect(wire.first?.content == "message 5")
        #expect(wire.last?.content == "message 34")
        #expect(warnings.isEmpty)
    }

    @Test func rolesAreSentAsTheirNames() {
        let messages = [
            AdRequest.Context.Message(role: .summary, content: "s"),
            AdRequest.Context.Message(role: .user, content: "u"),
            AdRequest.Context.Message(role: .assistant, content: "a"),
        ]
        #expect(EloMessageRules.wireMessages(messages, now: now).messages.map(\.role) == ["summary", "user", "assistant"])
    }

    @Test(arguments: [
        (String(repeating: "a", count: 256), true),
        (String(repeating: "a", count: 257), false),
        (String(repeating: "é", count: 256), true),
        (String(repeating: "e\u{301}", count: 129), false), // 129 characters but 258 code points
        ("turn\u{7}", false),
        ("turn\n1", false),
        ("turn\u{200B}", false),
        ("turn 1 ✓", true),
    ] as [(String, Bool)])
    func messageIDRules(id: String, kept: Bool) {
        let (wire, warnings) = EloMessageRules.wireMessages([AdRequest.Context.Message(role: .user, content: "secret text", id: id)], now: now)
        #expect(wire.count == 1)
        #expect(wire.first?.content == "secret text")
        #expect((wire.first?.id != nil) == kept)
        #expect(warnings.count == (kept ? 0 : 1))
        #expect(warnings.allSatisfy { !$0.contains("secret") && !$0.contains(id) })
    }

    @Test(arguments: [
        (Date(timeIntervalSince1970: 1_577_836_799), false), // 2019-12-31T23:59:59Z
        (Date(timeIntervalSince1970: 1_577_836_800), true), // 2020-01-01T00:00:00Z
        (EloFixtures.now.addingTimeInterval(86_400), true),
        (EloFixtures.now.addingTimeInterval(86_401), false),
        (EloFixtures.now.addingTimeInterval(-3600), true),
    ] as [(Date, Bool)])
    func createdAtRules(date: Date, kept: Bool) {
        let (wire, warnings) = EloMessageRules.wireMessages([AdRequest.Context.Message(role: .user, content: "hi", id: "m1", createdAt: date)], now: now)
        #expect((wire.first?.created_at != nil) == kept)
        #expect(wire.first?.id == "m1")
        #expect(warnings.count == (kept ? 0 : 1))
    }

    @Test func createdAtIsSentAsISO8601UTC() {
        let (wire, _) = EloMessageRules.wireMessages([AdRequest.Context.Message(role: .user, content: "hi", createdAt: Date(timeIntervalSince1970: 1_795_953_600.25))], now: now)
        #expect(wire.first?.created_at == "2026-11-29T12:00:00.250Z")
    }

    // MARK: Request

    @Test func impressionCarriesAdUnitAndWholePointSlot() {
        let (wire, _) = build(EloFixtures.request(maxWidth: 390.7, maxHeight: 191.9))
        #expect(wire.id == "req-1")
        #expect(wire.tmax == 2750)
        #expect(wire.at == 1)
        #expect(wire.cur == ["USD"])
        #expect(wire.imp.count == 1)
        #expect(wire.imp.first?.tagid == "unit-chat")
        #expect(wire.imp.first?.native == EloWireSlot(w: 390, h: 191))
        #expect(wire.app.publisher.id == "pub-1")
        #expect(wire.ext.elo.session_id == "session-1")
        #expect(wire.user.id == "visitor-1")
    }

    @Test func unboundedSlotOmitsTheBounds() throws {
        let (wire, _) = build(EloFixtures.request(maxWidth: nil, maxHeight: nil))
        #expect(wire.imp.first?.native == EloWireSlot(w: nil, h: nil))
        let json = String(decoding: try JSONEncoder().encode(wire.imp.first?.native), as: UTF8.self)
        #expect(json == "{}")
    }

    @Test func chatContextIsForwarded() {
        let (wire, _) = build()
        #expect(wire.ext.elo.messages == [
            EloWireMessage(role: "user", content: "Where should I fly this weekend?", id: "m-1", created_at: nil),
            EloWireMessage(role: "assistant", content: "Tbilisi has great food.", id: "m-2", created_at: nil),
        ])
        #expect(wire.ext.elo.context_objects == [EloWireContextObject(type: "topic", description: "travel planning")])
    }

    @Test func deviceSignalsFollowOpenRTB() {
        let device = AdRequest.Device(make: "Apple", model: "iPad13,4", hardwareVersion: "13,4", osName: "iPadOS", osVersion: "17.5", kind: .tablet, language: "ka", utcOffsetMinutes: 240, country: "GEO", connectionType: .cellular5G)
        var request = EloFixtures.request(device: device)
        request.screen = AdRequest.Device.Screen(width: 820, height: 1180, scale: 2)
        let wire = build(request).request.device
        #expect(wire.make == "Apple")
        #expect(wire.model == "iPad13,4")
        #expect(wire.hwv == "13,4")
        #expect(wire.os == "iPadOS")
        #expect(wire.osv == "17.5")
        #expect(wire.devicetype == 5)
        #expect(wire.language == "ka")
        #expect(wire.connectiontype == 7)
        #expect(wire.w == 1640)
        #expect(wire.h == 2360)
        #expect(wire.pxratio == 2)
        #expect(wire.geo.country == "GEO")
        #expect(wire.geo.utcoffset == 240)
    }

    @Test(arguments: [
        (2, 41.72, 44.78),
        (0, 42.0, 45.0),
        (4, 41.7167, 44.7833),
        (9, 41.716667, 44.783333), // clamped to 6
    ] as [(Int, Double, Double)])
    func geoIsRoundedToThePrecision(precision: Int, latitude: Double, longitude: Double) {
        let device = AdRequest.Device(location: AdRequest.Device.Location(latitude: 41.7166666, longitude: 44.7833333))
        let configuration = EloConfiguration(publisherID: "pub-1", geoLocationPrecision: precision)
        let geo = build(EloFixtures.request(device: device), configuration: configuration).request.device.geo
        #expect(geo.lat == latitude)
        #expect(geo.lon == longitude)
        #expect(geo.type == 1)
    }

    @Test func negativeCoordinatesRoundHalfAwayFromZero() {
        #expect(EloRequestBuilder.round(-33.865, precision: 2) == -33.87)
        #expect(EloRequestBuilder.round(-0.5, precision: 0) == -1)
    }

    @Test func nilPrecisionKeepsFullCoordinates() {
        let device = AdRequest.Device(location: AdRequest.Device.Location(latitude: 41.7166666, longitude: 44.7833333))
        let configuration = EloConfiguration(publisherID: "pub-1", geoLocationPrecision: nil)
        let geo = build(EloFixtures.request(device: device), configuration: configuration).request.device.geo
        #expect(geo.lat == 41.7166666)
        #expect(geo.lon == 44.7833333)
    }

    @Test func geoSharingOffSendsNoCoordinatesButKeepsCountryAndOffset() {
        let device = AdRequest.Device(utcOffsetMinutes: -300, country: "USA", location: AdRequest.Device.Location(latitude: 40.7, longitude: -74.0))
        let geo = build(EloFixtures.request(device: device), shareGeo: false).request.device.geo
        #expect(geo.lat == nil)
        #expect(geo.lon == nil)
        #expect(geo.type == nil)
        #expect(geo.country == "USA")
        #expect(geo.utcoffset == -300)
    }

    @Test func advertisingIDOnlyWhenTrackingIsAuthorized() {
        let authorized = AdRequest.Device(advertisingID: "IDFA-1", vendorID: "IDFV-1", trackingAuthorized: true)
        let denied = AdRequest.Device(advertisingID: "IDFA-1", vendorID: "IDFV-1", trackingAuthorized: false)
        let sent = build(EloFixtures.request(device: authorized, privacy: AdRequest.Privacy(limitAdTracking: false))).request.device
        #expect(sent.ifa == "IDFA-1")
        #expect(sent.ext == nil)
        #expect(sent.lmt == 0)
        // Only the authorization differs: limit-ad-tracking is off here too, so the advertising
        // id is withheld by App Tracking Transparency alone (the default signals limit tracking,
        // which would withhold it whatever the authorization).
        let withheld = build(EloFixtures.request(device: denied, privacy: AdRequest.Privacy(limitAdTracking: false))).request.device
        #expect(withheld.ifa == nil)
        #expect(withheld.ext?.ifv == "IDFV-1")
        #expect(withheld.lmt == 1)
    }

    @Test func limitAdTrackingWithholdsTheAdvertisingID() throws {
        let device = AdRequest.Device(advertisingID: "IDFA-1", vendorID: "IDFV-1", trackingAuthorized: true)
        let wire = build(EloFixtures.request(device: device, privacy: AdRequest.Privacy(limitAdTracking: true))).request
        #expect(wire.device.ifa == nil)
        #expect(wire.device.lmt == 1)
        #expect(wire.device.ext?.ifv == "IDFV-1")
        #expect(!String(decoding: try JSONEncoder().encode(wire), as: UTF8.self).contains("IDFA-1"))
    }

    @Test(arguments: [
        AdRequest.Privacy(coppa: true, limitAdTracking: false),
        AdRequest.Privacy(underAgeOfConsent: true, limitAdTracking: false),
        AdRequest.Privacy(userConsent: false, limitAdTracking: false),
    ])
    func childDirectedOrWithdrawnConsentWithholdsTheAdvertisingID(privacy: AdRequest.Privacy) {
        let device = AdRequest.Device(advertisingID: "IDFA-1", vendorID: "IDFV-1", trackingAuthorized: true)
        let wire = build(EloFixtures.request(device: device, privacy: privacy)).request.device
        #expect(wire.ifa == nil)
        #expect(wire.lmt == 1)
        #expect(wire.ext?.ifv == "IDFV-1")
    }

    @Test func allZeroAdvertisingIDIsUnavailable() {
        let device = AdRequest.Device(advertisingID: PrivacyRules.zeroAdvertisingID, vendorID: "IDFV-1", trackingAuthorized: true)
        let wire = build(EloFixtures.request(device: device, privacy: AdRequest.Privacy(limitAdTracking: false))).request.device
        #expect(wire.ifa == nil)
        #expect(wire.ext?.ifv == "IDFV-1")
    }

    @Test func sdkVersionIsExposedAndSent() {
        #expect(EloClient.sdkVersion == "1.0.0")
        let wire = build().request
        #expect(wire.imp.first?.displaymanager == "elo-swift-mediation")
        #expect(wire.imp.first?.displaymanagerver == EloClient.sdkVersion)
        #expect(wire.ext.elo.sdk_version == EloClient.sdkVersion)
    }

    @Test func regsCarryTheHostsSignals() {
        let privacy = AdRequest.Privacy(gdprApplies: false, tcfConsentString: "CP-TCF", usPrivacyString: "1YNN", gppString: "DBABM", gppSectionIDs: [7, 8])
        let wire = build(EloFixtures.request(privacy: privacy)).request
        #expect(wire.regs == EloWireRegs(coppa: 0, gdpr: 0, us_privacy: "1YNN", gpp: "DBABM", gpp_sid: [7, 8], ext: EloWireRegsExt(tfua: 0)))
        #expect(wire.user.consent == "CP-TCF")
    }

    @Test func coppaAndTFUAComeFromTheConfigurationOrTheHost() {
        let configured = build(configuration: EloConfiguration(publisherID: "p", coppa: true, tfua: true)).request.regs
        #expect(configured.coppa == 1)
        #expect(configured.ext.tfua == 1)
        let fromHost = build(EloFixtures.request(privacy: AdRequest.Privacy(coppa: true, underAgeOfConsent: true))).request.regs
        #expect(fromHost.coppa == 1)
        #expect(fromHost.ext.tfua == 1)
        let neither = build().request.regs
        #expect(neither.coppa == 0)
        #expect(neither.ext.tfua == 0)
        #expect(neither.gdpr == nil)
    }
}

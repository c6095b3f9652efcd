import Foundation
import Mediation

/// Builds the wire request for one load (pure: same input, same request).
///
/// Rules (Elo seed): the latest 30 messages with the id / createdAt rules of ``EloMessageRules``;
/// the slot's max width and height in whole points; OpenRTB device signals (make, model, OS,
/// language, connection type, screen, country, UTC offset in minutes); coordinates only when geo
/// sharing is on, rounded to the configured precision; the advertising id (with `lmt` 0) only when
/// tracking is authorized, not limited by the OS (OpenRTB `lmt`) and allowed by the privacy signals
/// (``PrivacyRules``), else `lmt` 1 and the vendor id; COPPA / TFUA flags (from the configuration or
/// the host's privacy signals); the install id as `user.id` only where it may leave the device
/// (the client decides), else none. No user data: the engine offers no setter for it.
struct EloRequestBuilder {
    /// Everything one request is built from.
    struct Input {
        var configuration: EloConfiguration
        var request: AdRequest
        var adUnitID: String
        var requestID: String
        var sessionID: String
        /// The visitor id (`user.id`), `nil` where none may be sent.
        var visitorID: String?
        var shareGeoLocation: Bool
        var now: Date
        var tmaxMilliseconds: Int
        var maxWidth: Int?
        var maxHeight: Int?
    }

    /// The client version sent as `displaymanagerver` and `ext.elo.sdk_version`.
    static let sdkVersion = "1.0.0"
    /// The display manager name.
    static let displayManager = "elo-swift-mediation"

    /// Builds the request.
    /// - Returns: the request and the warnings about fields left out.
    static func build(_ input: Input) -> (request: EloWireBidRequest, warnings: [String]) {
        let request = input.request
        let (messages, warnings) = EloMessageRules.wireMessages(request.context.messages, now: input.now)
        let privacy = request.privacy
        let coppa = input.configuration.coppa || privacy.coppa
        let tfua = input.configuration.tfua || privacy.underAgeOfConsent

        let imp = EloWireImp(
            id: "1",
            tagid: input.adUnitID,
            bidfloor: nil,
            bidfloorcur: nil,
            native: EloWireSlot(w: input.maxWidth, h: input.maxHeight),
            displaymanager: displayManager,
            displaymanagerver: sdkVersion,
            secure: 1
        )
        let user = EloWireUser(
            id: input.visitorID,
            consent: privacy.tcfConsentString
        )
        let regs = EloWireRegs(
            coppa: coppa ? 1 : 0,
            gdpr: privacy.gdprApplies.map { $0 ? 1 : 0 },
            us_privacy: privacy.usPrivacyString,
            gpp: privacy.gppString,
            gpp_sid: privacy.gppSectionIDs.isEmpty ? nil : privacy.gppSectionIDs,
            ext: EloWireRegsExt(tfua: tfua ? 1 : 0)
        )
        let wire = EloWireBidRequest(
            id: input.requestID,
            tmax: max(0, input.tmaxMilliseconds),
            at: 1,
            cur: ["USD"],
            imp: [imp],
            app: EloWireApp(bundle: request.app.bundleID, ver: request.app.version, publisher: EloWirePublisher(id: input.configuration.publisherID)),
            device: device(for: request, shareGeo: input.shareGeoLocation, precision: input.configuration.geoLocationPrecision, coppa: coppa, tfua: tfua),
            user: user,
            regs: regs,
            ext: EloWireRequestExt(elo: EloWireChatContext(
                session_id: input.sessionID,
                sdk_version: sdkVersion,
                messages: messages,
                context_objects: request.context.contextObjects.map { EloWireContextObject(type: $0.type, description: $0.description) }
            ))
        )
        return (wire, warnings)
    }

    /// The device object.
    /// - Parameters:
    ///   - request: the engine's request (device, screen, privacy signals).
    ///   - shareGeo: whether coordinates are sent.
    ///   - precision: decimal places of the coordinates, `nil` for full precision.
    ///   - coppa: the request is child-directed (configuration or host).
    ///   - tfua: the user is under the age of consent (configuration or host).
    static func device(for request: AdRequest, shareGeo: Bool, precision: Int?, coppa: Bool = false, tfua: Bool = false) -> EloWireDevice {
        let info = request.device
        var geo = EloWireGeo(lat: nil, lon: nil, type: nil, country: info.country, utcoffset: info.utcOffsetMinutes)
        if shareGeo, let location = info.location,
           location.latitude.isFinite, location.longitude.isFinite,
           (-90.0...90.0).contains(location.latitude), (-180.0...180.0).contains(location.longitude) {
            geo.lat = round(location.latitude, precision: precision)
            geo.lon = round(location.longitude, precision: precision)
            geo.type = 1
        }
        // Elo document: the device identifier is governed by App Tracking Transparency and
        // limit-ad-tracking, with the vendor id sent when the advertising id is unavailable.
        let tracking = PrivacyRules.allowsTracking(device: info, privacy: request.privacy, coppa: coppa, underAgeOfConsent: tfua)
        let ifa = PrivacyRules.advertisingID(device: info, privacy: request.privacy, coppa: coppa, underAgeOfConsent: tfua)
        let ifv = ifa == nil ? info.vendorID : nil
        let screen = request.screen
        return EloWireDevice(
            make: info.make,
            model: info.model,
            hwv: info.hardwareVersion,
            os: info.osName,
            osv: info.osVersion,
            devicetype: info.kind == .tablet ? 5 : 4,
            language: info.language,
            connectiontype: info.connectionType.rawValue,
            w: pixels(screen.width * screen.scale),
            h: pixels(screen.height * screen.scale),
            pxratio: screen.scale.isFinite ? screen.scale : 1,
            lmt: tracking ? 0 : 1,
            ifa: ifa,
            geo: geo,
            ext: ifv.map { EloWireDeviceExt(ifv: $0) }
        )
    }

    /// Rounds `value` to `precision` decimal places (half away from zero); `nil` keeps it whole.
    static func round(_ value: Double, precision: Int?) -> Double {
        guard let precision else { return value }
        let scale = pow(10.0, Double(EloConfiguration.clampPrecision(precision)))
        return (value * scale).rounded(.toNearestOrAwayFromZero) / scale
    }

    private static func pixels(_ value: Double) -> Int {
        guard value.isFinite, value > 0, value < Double(Int32.max) else { return 0 }
        return Int(value.rounded())
    }
}

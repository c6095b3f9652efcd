import Foundation
import Mediation

/// One planned Qartvelo request: how the banner will be laid out and the HTTP request asking
/// for it.
struct QartveloRequestPlan: Sendable {
    /// The sizing mode.
    var layout: QartveloBannerLayout
    /// The view width the banner is laid out at, in points.
    var width: Double
    /// The request body.
    var body: QartveloWireBannerRequest
    /// The HTTP request (`POST {base}/v1/banner`, JSON body).
    var http: HTTP.Request
}

/// Builds Qartvelo banner requests from engine requests (Qartvelo seed, "Banner", "Inline
/// banners"): sizes in pixels (points x scale, rounded to the nearest pixel), anchored
/// adaptive requests with `banner_height`, non-adaptive ones without it, inline ones with
/// `banner_mode: "inline"` and `banner_max_height` and without `banner_height`.
struct QartveloRequestBuilder: Sendable {
    /// The app's Qartvelo registration id.
    var appID: String
    /// The API's base URL, e.g. `https://sandbox.qartvelo.test`.
    var baseURL: URL
    /// Anchored adaptive sizing on (the `adaptive` option).
    var adaptive: Bool

    /// Plans the request for `request`.
    /// - Parameters:
    ///   - request: the engine's request (slot and screen in points).
    ///   - requestID: the id to send.
    ///   - now: the current instant on the engine's clock, for `tmax`.
    /// - Returns: the plan, or an ``AdLoadResult/Error``: `unsupported` (code 1) for a format other
    ///   than banner, `configuration` (code 2) for an inline maximum height under 32 pt,
    ///   `configuration` (code 3) for a width or scale that is not finite and positive.
    func plan(for request: AdRequest, requestID: String, now: MediationInstant) -> Result<QartveloRequestPlan, AdLoadResult.Error> {
        guard request.format == .banner else {
            return .failure(AdLoadResult.Error(kind: .unsupported, code: QartveloErrorCode.unsupportedFormat.rawValue, message: "Qartvelo serves banners only, not \(request.format)"))
        }
        let scale = request.screen.scale
        let width = QartveloAnchoredSizing.slotWidth(for: request.slot, screen: request.screen)
        guard let screenWidth = Self.pixels(width, scale: scale) else {
            return .failure(AdLoadResult.Error(kind: .configuration, code: QartveloErrorCode.invalidSlot.rawValue, message: "slot width and screen scale must be finite and positive"))
        }
        let layout: QartveloBannerLayout
        var bannerMode: String?
        var bannerHeight: Int?
        var bannerMaxHeight: Int?
        switch request.bannerSizing ?? .anchored {
        case .inline:
            guard let maxHeight = QartveloInlineSizing.maxHeight(for: request.slot), let pixels = Self.pixels(maxHeight, scale: scale) else {
                return .failure(AdLoadResult.Error(kind: .configuration, code: QartveloErrorCode.invalidInlineMaxHeight.rawValue, message: "inline maximum height must be at least 32 pt"))
            }
            layout = .inline(maxHeight: maxHeight)
            bannerMode = "inline"
            bannerMaxHeight = pixels
        case .anchored where adaptive:
            layout = .anchoredAdaptive
            let height = QartveloAnchoredSizing.height(forWidth: width, screenHeight: request.screen.height)
            bannerHeight = Self.pixels(height, scale: scale)
        case .anchored:
            layout = .anchoredCreativeSize
        }
        let body = QartveloWireBannerRequest(
            id: requestID,
            placementID: request.adUnitID.isEmpty ? request.placementID : request.adUnitID,
            bannerMode: bannerMode,
            screenWidth: screenWidth,
            bannerHeight: bannerHeight,
            bannerMaxHeight: bannerMaxHeight,
            creativeTypes: ["image", "html5"],
            tmax: max(0, Int((request.deadline - now).milliseconds.rounded(.down))),
            app: .init(id: appID, bundle: request.app.bundleID, ver: request.app.version),
            device: Self.device(request),
            regs: Self.regs(request.privacy),
            user: request.privacy.gdprApplies == true ? request.privacy.tcfConsentString.map { .init(consent: $0) } : nil
        )
        let data: Data
        do {
            data = try JSONEncoder.qartvelo.encode(body)
        } catch {
            return .failure(AdLoadResult.Error(kind: .configuration, code: QartveloErrorCode.invalidRequest.rawValue, message: "request could not be encoded"))
        }
        let http = HTTP.Request(
            method: "POST",
            url: baseURL.appendingPathComponent("v1").appendingPathComponent("banner"),
            headers: ["Content-Type": "application/json", "Accept": "application/json"],
            body: data
        )
        return .success(QartveloRequestPlan(layout: layout, width: width, body: body, http: http))
    }

    /// `points x scale` rounded to the nearest whole pixel, or `nil` when not finite and positive.
    static func pixels(_ points: Double, scale: Double) -> Int? {
        let value = (points * scale).rounded()
        guard points.isFinite, scale.isFinite, points > 0, scale > 0, value.isFinite, value < 1e9 else { return nil }
        return Int(value)
    }

    private static func device(_ request: AdRequest) -> QartveloWireBannerRequest.Device {
        let device = request.device
        let privacy = request.privacy
        // PrivacyRules: authorized, not limited, not COPPA / TFUA, consent not withdrawn; and
        // Qartvelo adds: never where GDPR applies.
        let advertisingID = PrivacyRules.advertisingID(device: device, privacy: privacy, coppa: privacy.coppa, underAgeOfConsent: privacy.underAgeOfConsent)
        let mayIdentify = advertisingID != nil && privacy.gdprApplies != true
        return QartveloWireBannerRequest.Device(
            make: device.make,
            model: device.model,
            os: device.osName,
            osv: device.osVersion,
            devicetype: device.kind == .tablet ? 5 : 4,
            w: pixels(request.screen.width, scale: request.screen.scale) ?? 0,
            h: pixels(request.screen.height, scale: request.screen.scale) ?? 0,
            pxratio: request.screen.scale,
            language: device.language,
            connectiontype: device.connectionType.rawValue,
            lmt: privacy.limitAdTracking ? 1 : 0,
            ifa: mayIdentify ? advertisingID : nil
        )
    }

    private static func regs(_ privacy: AdRequest.Privacy) -> QartveloWireBannerRequest.Regs {
        QartveloWireBannerRequest.Regs(
            coppa: privacy.coppa ? 1 : 0,
            gdpr: privacy.gdprApplies.map { $0 ? 1 : 0 },
            usPrivacy: privacy.usPrivacyString,
            gpp: privacy.gppString,
            gppSID: privacy.gppSectionIDs.isEmpty ? nil : privacy.gppSectionIDs,
            tfua: privacy.underAgeOfConsent ? 1 : nil
        )
    }
}

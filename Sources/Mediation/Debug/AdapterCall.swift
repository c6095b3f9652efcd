import Foundation

/// One `loadAd` call the engine made to a network's adapter, as recorded for debugging when the
/// environment has an ``MediationEnvironment/exchangeRecorder``: what the engine asked (the ad
/// unit, format, slot, time budget and the privacy signals, as a JSON summary) and what came
/// back. It shows what a network without HTTP (the fallback stub, a host's own network) was
/// given, and for every network which signals the adapter had to work with.
package struct AdapterCall: Hashable, Sendable {
    /// The network id.
    package var networkID: String
    /// The source the call was made for.
    package var source: SourceAttribution?
    /// The request as a JSON object: `ad_unit_id`, `format`, `slot` (points), `time_budget_ms`,
    /// `privacy` (`coppa`, `tfua`, `gdpr`, `consent`, `us_privacy`, `lmt`), `device`
    /// (`ifa`, `idfv` and `att`, user data the redactor hides) and `messages` (their count).
    package var request: Data
    /// `bid 1.25`, `fill`, `no_fill (reason)`, `failure (error)`, or `no answer yet`.
    package var result: String
    /// When the call started, on the engine's clock.
    package var startedAt: MediationInstant
    /// When it returned, on the engine's clock.
    package var endedAt: MediationInstant

    /// Creates a record.
    package init(networkID: String, source: SourceAttribution?, request: Data, result: String, startedAt: MediationInstant, endedAt: MediationInstant) {
        self.networkID = networkID
        self.source = source
        self.request = request
        self.result = result
        self.startedAt = startedAt
        self.endedAt = endedAt
    }

    /// The JSON summary of `request` (see ``request``).
    /// - Parameter request: the engine's request to an adapter.
    package static func summary(of request: AdRequest) -> Data {
        let privacy = request.privacy
        var privacyObject: [String: Any] = [
            "coppa": privacy.coppa ? 1 : 0,
            "tfua": privacy.underAgeOfConsent ? 1 : 0,
            "lmt": privacy.limitAdTracking ? 1 : 0,
        ]
        if let gdpr = privacy.gdprApplies { privacyObject["gdpr"] = gdpr ? 1 : 0 }
        if let consent = privacy.tcfConsentString { privacyObject["consent"] = consent }
        if let usPrivacy = privacy.usPrivacyString { privacyObject["us_privacy"] = usPrivacy }
        if let userConsent = privacy.userConsent { privacyObject["user_consent"] = userConsent }
        var device: [String: Any] = ["att": request.device.trackingAuthorized ? "authorized" : "not_authorized"]
        if let ifa = request.device.advertisingID { device["ifa"] = ifa }
        if let idfv = request.device.vendorID { device["idfv"] = idfv }
        var slot: [String: Any] = [:]
        if let width = request.slot.maxWidth { slot["max_width"] = width }
        if let height = request.slot.maxHeight { slot["max_height"] = height }
        let object: [String: Any] = [
            "placement": request.placementID,
            "ad_unit_id": request.adUnitID,
            "format": request.format.description,
            "slot": slot,
            "time_budget_ms": request.timeBudget.milliseconds,
            "privacy": privacyObject,
            "device": device,
            "messages": request.context.messages.count,
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    }
}

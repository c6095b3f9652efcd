import Mediation

/// The privacy a standard network applies, as ``NetworkStatus/privacy`` entries: what
/// ``PrivacyRules`` decide for the host's signals, with the network's own settings on top.
package enum PrivacyStatus {
    /// The shared entries: `coppa`, `tfua`, `gdpr`, `consent_string`, `us_privacy`,
    /// `limit_ad_tracking`, `advertising_id`.
    /// - Parameters:
    ///   - template: the host's request signals.
    ///   - coppa: whether the network forces COPPA by its own option.
    ///   - tfua: whether the network forces TFUA by its own option.
    ///   - idBlockedUnderGDPR: whether the network never sends the advertising id when GDPR applies.
    package static func entries(_ template: RequestTemplate, coppa: Bool = false, tfua: Bool = false, idBlockedUnderGDPR: Bool = false) -> [String: String] {
        let privacy = template.privacy
        let effectiveCOPPA = privacy.coppa || coppa
        let effectiveTFUA = privacy.underAgeOfConsent || tfua
        func flag(_ on: Bool, host: Bool, option: Bool) -> String {
            guard on else { return "0" }
            return host ? "1 (host signal)" : (option ? "1 (network option)" : "1")
        }
        var entries: [String: String] = [
            "coppa": flag(effectiveCOPPA, host: privacy.coppa, option: coppa),
            "tfua": flag(effectiveTFUA, host: privacy.underAgeOfConsent, option: tfua),
            "gdpr": privacy.gdprApplies.map { $0 ? "applies" : "does not apply" } ?? "unknown (not sent)",
            "consent_string": privacy.tcfConsentString == nil ? "none" : "set (sent when GDPR applies)",
            "us_privacy": privacy.usPrivacyString ?? "none",
            "limit_ad_tracking": privacy.limitAdTracking ? "on (lmt 1)" : "off",
            "att": template.device.trackingAuthorized ? "authorized" : "not authorized",
        ]
        let tracking = PrivacyRules.allowsTracking(device: template.device, privacy: privacy, coppa: effectiveCOPPA, underAgeOfConsent: effectiveTFUA)
        let id = PrivacyRules.advertisingID(device: template.device, privacy: privacy, coppa: effectiveCOPPA, underAgeOfConsent: effectiveTFUA)
        if idBlockedUnderGDPR, privacy.gdprApplies == true {
            entries["advertising_id"] = "not sent (GDPR applies)"
        } else if id != nil {
            entries["advertising_id"] = "sent"
        } else {
            entries["advertising_id"] = tracking ? "not sent (none on the device)" : "not sent (tracking not allowed)"
        }
        return entries
    }
}

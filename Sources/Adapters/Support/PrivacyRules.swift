import Foundation
import Mediation

/// The privacy rules the standard networks share, read from the host's ``AdRequest/Privacy`` and
/// ``AdRequest/Device``. Each network's own document adds its rules on top (Elo: no user data under
/// GDPR; Qartvelo: no advertising id under GDPR; Nitx: the profile only after its own consent
/// record); see `docs/seed-rules.md` and the privacy matrix test.
///
/// - The advertising id leaves the device only when the user authorized tracking (App Tracking
///   Transparency), the OS does not limit ad tracking (OpenRTB `lmt`), the request is neither
///   child-directed (COPPA) nor for a user under the age of consent (TFUA), and the user has not
///   refused or withdrawn consent in the app's own prompt (``AdRequest/Privacy/userConsent``
///   `false`). The all-zero id iOS reports without authorization is never an advertising id.
/// - First-party identity (a publisher's user identifier, user data, identity profiles) leaves
///   the device only while the user has not refused or withdrawn consent.
package enum PrivacyRules {
    /// The all-zero advertising id iOS reports when tracking is not authorized.
    package static let zeroAdvertisingID = "00000000-0000-0000-0000-000000000000"

    /// Whether tracking with the advertising id is allowed for this request (OpenRTB `lmt` 0).
    /// - Parameters:
    ///   - device: the host's device signals (the App Tracking Transparency status).
    ///   - privacy: the host's privacy signals.
    ///   - coppa: the request is child-directed (the host's flag or the network's own setting).
    ///   - underAgeOfConsent: the user is under the age of consent (likewise).
    /// - Returns: `true` when the advertising id may be sent.
    package static func allowsTracking(device: AdRequest.Device, privacy: AdRequest.Privacy, coppa: Bool, underAgeOfConsent: Bool) -> Bool {
        device.trackingAuthorized && !privacy.limitAdTracking && !coppa && !underAgeOfConsent && privacy.userConsent != false
    }

    /// The advertising id to send, or `nil` when tracking is not allowed (see
    /// ``allowsTracking(device:privacy:coppa:underAgeOfConsent:)``) or the id is empty or all
    /// zeros.
    /// - Parameters:
    ///   - device: the host's device signals.
    ///   - privacy: the host's privacy signals.
    ///   - coppa: the request is child-directed.
    ///   - underAgeOfConsent: the user is under the age of consent.
    /// - Returns: the advertising id, or `nil`.
    package static func advertisingID(device: AdRequest.Device, privacy: AdRequest.Privacy, coppa: Bool, underAgeOfConsent: Bool) -> String? {
        guard allowsTracking(device: device, privacy: privacy, coppa: coppa, underAgeOfConsent: underAgeOfConsent),
              let id = device.advertisingID, !id.isEmpty, id != zeroAdvertisingID
        else { return nil }
        return id
    }

    /// Whether first-party identity (a user identifier, user data, a profile) may leave the
    /// device: not after the user refused or withdrew consent in the app's own prompt.
    /// - Parameter privacy: the host's privacy signals.
    /// - Returns: `true` unless ``AdRequest/Privacy/userConsent`` is `false`.
    package static func allowsIdentity(_ privacy: AdRequest.Privacy) -> Bool {
        privacy.userConsent != false
    }

    /// Whether the US Privacy string says the user opted out of the sale of personal data (its
    /// third character, "opt-out of sale", is `Y`, as in `1YYN`).
    /// - Parameter privacy: the host's privacy signals.
    /// - Returns: `true` for an opt-out; `false` without a string or for any other value.
    package static func optsOutOfSale(_ privacy: AdRequest.Privacy) -> Bool {
        guard let string = privacy.usPrivacyString, string.count >= 3 else { return false }
        let optOut = string[string.index(string.startIndex, offsetBy: 2)]
        return optOut == "Y" || optOut == "y"
    }

    /// Whether GDPR applies and the host holds no TCF consent string (its consent platform has
    /// recorded no consent), so personal data may not be processed on consent.
    /// - Parameter privacy: the host's privacy signals.
    /// - Returns: `true` when `gdprApplies` is `true` and the consent string is missing or blank.
    package static func gdprAppliesWithoutConsent(_ privacy: AdRequest.Privacy) -> Bool {
        privacy.gdprApplies == true && (privacy.tcfConsentString?.trimmingCharacters(in: .whitespaces).isEmpty ?? true)
    }

    /// Whether a network whose document defines no US-privacy or GDPR signal of its own (Nitx)
    /// withholds personal data (profiles, the advertising id): under an opt-out of sale, or
    /// where GDPR applies without consent.
    /// - Parameter privacy: the host's privacy signals.
    /// - Returns: `true` when personal data must stay on the device.
    package static func withholdsPersonalDataWithoutASignalOfItsOwn(_ privacy: AdRequest.Privacy) -> Bool {
        optsOutOfSale(privacy) || gdprAppliesWithoutConsent(privacy)
    }
}

import Foundation
import Mediation

/// The visitor's id, consent and hashed profile, kept in ``NitxRecords`` (Nitx seed, "Consent
/// and identify" and "Storage"). A value type owned by the client actor.
///
/// Rules: identity leaves the device only after consent(true); consent(true) stores a consent
/// record and persists the buffered profile; consent(false) deletes the profile and the consent
/// record and keeps the visitor id; a stored profile without a consent record is discarded on
/// load; reset forgets id, profile and consent. With personalization off nothing is stored and
/// every change is ignored.
struct NitxVisitorStore {
    /// The consent record's stored value.
    static let consentRecord = "granted"

    let enabled: Bool
    private let storage: NitxRecords
    private let makeVisitorID: @Sendable () -> String
    private(set) var visitorID: String?
    private(set) var consent: Bool?
    private(set) var profile: NitxProfile

    /// What was discarded from storage on load (engine rule R21), one warning per value, naming
    /// the key and the problem, never the value.
    private(set) var loadWarnings: [String] = []

    /// Loads the visitor from `storage`, checking every stored value (``NitxStoredValues``): a
    /// visitor id that is not one is replaced by a new one; a consent value other than the
    /// record is deleted (no consent); a profile that is not the client's JSON is deleted, and
    /// its entries that break a rule are dropped; each with a warning in ``loadWarnings``.
    init(enabled: Bool, storage: NitxRecords, makeVisitorID: @escaping @Sendable () -> String) {
        self.enabled = enabled
        self.storage = storage
        self.makeVisitorID = makeVisitorID
        profile = NitxProfile()
        guard enabled else { return }
        if let stored = storage.value(forKey: .visitorID) {
            switch NitxStoredValues.visitorID(stored) {
            case .success(let id): visitorID = id
            case .failure(let problem): discard(.visitorID, problem, consequence: "a new visitor id is made")
            }
        }
        if visitorID == nil {
            let id = makeVisitorID()
            storage.setValue(id, forKey: .visitorID)
            visitorID = id
        }
        if let stored = storage.value(forKey: .consent) {
            switch NitxStoredValues.consentRecord(stored) {
            case .success: consent = true
            case .failure(let problem):
                discard(.consent, problem, consequence: "no consent record")
                storage.setValue(nil, forKey: .consent)
            }
        }
        guard let json = storage.value(forKey: .profile) else { return }
        guard consent == true else {
            storage.setValue(nil, forKey: .profile)  // no consent record: discarded on load
            return
        }
        switch NitxStoredValues.profile(json) {
        case .success(let (stored, dropped)):
            profile = stored
            if dropped > 0 {
                loadWarnings.append("stored \(NitxStorageKey.profile.rawValue): \(dropped) entries that are not a field's SHA-256 digest discarded")
                persistProfile()
            }
        case .failure(let problem):
            discard(.profile, problem, consequence: "the profile is deleted")
            storage.setValue(nil, forKey: .profile)
        }
    }

    private mutating func discard(_ key: NitxStorageKey, _ problem: NitxStoredValues.Problem, consequence: String) {
        loadWarnings.append("stored \(key.rawValue) discarded (\(problem.rawValue)): \(consequence)")
    }

    /// Whether a consent record or a profile (stored, or buffered before consent) is held: what
    /// a withdrawal deletes.
    var holdsConsentOrProfile: Bool {
        enabled && (consent == true || !profile.isEmpty)
    }

    /// Records the user's answer.
    mutating func setConsent(_ granted: Bool) {
        guard enabled else { return }
        consent = granted
        if granted {
            storage.setValue(Self.consentRecord, forKey: .consent)
            persistProfile()
        } else {
            profile = NitxProfile()
            storage.setValue(nil, forKey: .profile)
            storage.setValue(nil, forKey: .consent)
        }
    }

    /// Forgets the visitor and starts a new one.
    /// - Returns: the forgotten visitor id.
    mutating func reset() -> String? {
        guard enabled else { return nil }
        let old = visitorID
        profile = NitxProfile()
        consent = nil
        storage.setValue(nil, forKey: .profile)
        storage.setValue(nil, forKey: .consent)
        let id = makeVisitorID()
        storage.setValue(id, forKey: .visitorID)
        visitorID = id
        return old
    }

    /// The wire's visitor block: `nil` with personalization off; the profile only with consent.
    var wireBlock: NitxWireVisitor? {
        wireBlock(for: AdRequest.Privacy(limitAdTracking: false))
    }

    /// The wire's visitor block for a request with `privacy`: `nil` with personalization off;
    /// the profile only with the consent record (`consent(true)`), and never when the host says
    /// the user refused or withdrew consent (then `consent` is `false` on the wire) or the
    /// request is child-directed (COPPA) or for a user under the age of consent (TFUA), nor under
    /// a US-privacy opt-out of sale or where GDPR applies without a consent string (the Nitx
    /// document defines neither signal, so the profile, personal data, stays on the device).
    func wireBlock(for privacy: AdRequest.Privacy) -> NitxWireVisitor? {
        guard enabled, let visitorID else { return nil }
        let withdrawn = !PrivacyRules.allowsIdentity(privacy)
        let granted = consent == true && !withdrawn && !privacy.coppa && !privacy.underAgeOfConsent
            && !PrivacyRules.withholdsPersonalDataWithoutASignalOfItsOwn(privacy) && !profile.isEmpty
        return NitxWireVisitor(id: visitorID, consent: withdrawn ? false : consent, profile: granted ? profile.hashes : nil)
    }

    /// Sorted keys: the same profile is stored as the same text.
    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    private func persistProfile() {
        guard consent == true else { return }
        if profile.isEmpty {
            storage.setValue(nil, forKey: .profile)
        } else if let data = try? Self.encoder.encode(profile) {
            storage.setValue(String(decoding: data, as: UTF8.self), forKey: .profile)
        }
    }
}

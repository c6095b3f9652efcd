import Foundation
import Mediation

/// The user's gender (Elo seed, `EloGender`).
package enum EloGender: String, Sendable, Hashable, Codable {
    /// Male.
    case male
    /// Female.
    case female
    /// Other.
    case other
}

/// First-party user data (Elo seed, `EloUserData`). Forwarded as supplied; the server
/// normalizes and hashes. Never sent under COPPA, TFUA or GDPR, never in tracking pings.
package struct EloUserData: Sendable, Hashable, Codable {
    /// Age in years.
    public var age: Int?
    /// Gender.
    public var gender: EloGender?
    /// Email, as held.
    public var email: String?
    /// Phone with its country code (E.164).
    public var phone: String?

    /// Creates user data; every field is optional.
    public init(age: Int? = nil, gender: EloGender? = nil, email: String? = nil, phone: String? = nil) {
        self.age = age
        self.gender = gender
        self.email = email
        self.phone = phone
    }

    /// Whether no field is set (such an object clears the data, like `nil`).
    public var isEmpty: Bool {
        age == nil && gender == nil && email == nil && phone == nil
    }
}

/// The identity the client holds: the anonymous per-install id, the publisher's user identifier
/// and the user data. The identifier and the data are stored together, as one record in the
/// identity store (Elo seed, `setUserIdentity`); the install id is per install, so it is kept in
/// the engine's state store (``EloInstallID``), gone with the app, and is never part of the
/// stored record: it is not encoded, and an older version's record that holds one is decoded
/// without it (the field is dropped at the record's next write).
package struct EloIdentityRecord: Sendable, Hashable, Codable {
    /// The anonymous per-install id (kept across shutdown); never encoded.
    public var installID: String?
    /// The publisher's user identifier, trimmed, at most 256 characters.
    public var userIdentifier: String?
    /// The user data.
    public var userData: EloUserData?

    /// Creates a record.
    public init(installID: String? = nil, userIdentifier: String? = nil, userData: EloUserData? = nil) {
        self.installID = installID
        self.userIdentifier = userIdentifier
        self.userData = userData
    }

    /// The encoded fields: the install id is not one of them.
    private enum CodingKeys: String, CodingKey {
        case userIdentifier
        case userData
    }

    /// The record as the identity store keeps it: without the install id.
    var withoutInstallID: EloIdentityRecord {
        EloIdentityRecord(userIdentifier: userIdentifier, userData: userData)
    }
}

/// The rules for the identity record's values (Elo seed, `setUserIdentifier` / `setUserData`;
/// the engine offers no setter, so the values come only from a stored record).
enum EloIdentityRules {
    /// The longest identifier kept, in characters.
    static let maximumIdentifierLength = 256

    /// What a set-identifier call does.
    enum IdentifierChange: Equatable {
        /// Store this value (`nil` clears).
        case set(String?)
        /// Ignore the call (too long), with a warning.
        case ignore
    }

    /// Trims; a blank string clears; over 256 characters is ignored.
    static func identifierChange(_ identifier: String?) -> IdentifierChange {
        guard let identifier else { return .set(nil) }
        let trimmed = identifier.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return .set(nil) }
        if trimmed.count > maximumIdentifierLength { return .ignore }
        return .set(trimmed)
    }

    /// Replaces the whole object; `nil` or an object with no field set clears.
    static func normalizedData(_ data: EloUserData?) -> EloUserData? {
        guard let data, !data.isEmpty else { return nil }
        return data
    }

    // MARK: Stored records (engine rule R21)

    /// The largest stored record read at all, 64 KiB (a record is a few hundred bytes).
    package static let maximumStoredRecordBytes = 64 * 1024
    /// The longest install id kept, in characters (the client makes UUIDs).
    static let maximumInstallIDLength = 128
    /// The oldest age kept from storage, in years.
    static let maximumStoredAge = 150

    /// A record read back from storage, checked like a network's answer: storage holds what
    /// this process did not write (an earlier version, a restored backup, a tampered device).
    /// An install id held is ignored (it is not the record's: ``EloInstallID``). Each field that
    /// breaks its rule is discarded, the others kept:
    /// - the user identifier: by its setter's rules (trimmed, not blank, at most 256
    ///   characters), and without control characters;
    /// - the user data: an age from 0 to 150, an email and a phone of at most 256 characters
    ///   without control characters; data left with no field is none.
    /// - Parameter record: the record as decoded.
    /// - Returns: the checked record and one problem per discarded field (naming the field,
    ///   never its value).
    static func checkedStoredRecord(_ record: EloIdentityRecord) -> (record: EloIdentityRecord, problems: [String]) {
        var checked = EloIdentityRecord()
        var problems: [String] = []
        if let identifier = record.userIdentifier {
            if case .set(let value?) = identifierChange(identifier), !hasControlCharacters(value) {
                checked.userIdentifier = value
            } else {
                problems.append("user identifier")
            }
        }
        if let data = record.userData {
            var kept = EloUserData(gender: data.gender)
            if let age = data.age {
                if (0...maximumStoredAge).contains(age) { kept.age = age } else { problems.append("user data age") }
            }
            if let email = data.email {
                if isStoredText(email) { kept.email = email } else { problems.append("user data email") }
            }
            if let phone = data.phone {
                if isStoredText(phone) { kept.phone = phone } else { problems.append("user data phone") }
            }
            checked.userData = normalizedData(kept)
        }
        return (checked, problems)
    }

    /// Whether a stored install id is one the client could have made: 1 to 128 characters of
    /// `A-Z a-z 0-9 . _ : -`.
    static func isInstallID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumInstallIDLength && text.unicodeScalars.allSatisfy(isInstallIDCharacter)
    }

    private static func isInstallIDCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", ".", "_", ":", "-": true
        default: false
        }
    }

    /// At most 256 characters, none of them a control character.
    private static func isStoredText(_ text: String) -> Bool {
        text.count <= NetworkValueBounds.maximumTextLength && !hasControlCharacters(text)
    }

    private static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}

import Foundation

/// The user's gender (Elo seed, `EloGender`).
public enum EloGender: String, Sendable, Hashable, Codable {
    /// Male.
    case male
    /// Female.
    case female
    /// Other.
    case other
}

/// First-party user data (Elo seed, `EloUserData`). Forwarded as supplied; the server
/// normalizes and hashes. Never sent under COPPA, TFUA or GDPR, never in tracking pings.
public struct EloUserData: Sendable, Hashable, Codable {
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

/// The one stored identity record: the anonymous per-install id, the publisher's user
/// identifier and the user data, always written together (Elo seed, `setUserIdentity`).
public struct EloIdentityRecord: Sendable, Hashable, Codable {
    /// The anonymous per-install id (kept across shutdown).
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
}

/// The rules for the values the publisher sets (Elo seed, `setUserIdentifier` / `setUserData`).
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
}

/// The visitor's profile: SHA-256 hex digests of normalised identity values, by field. It never
/// holds a raw value (Nitx seed, "Consent and identify").
package struct NitxProfile: Sendable, Hashable, Codable {
    /// The profile's field names (also the wire's `visitor.profile` keys).
    package enum Key {
        /// `email`.
        package static let email = "email"
        /// `phone`.
        package static let phone = "phone"
        /// `gender`.
        package static let gender = "gender"
        /// `birth_year`.
        package static let birthYear = "birth_year"
        /// `city`.
        package static let city = "city"
        /// `country`.
        package static let country = "country"
        /// `trait.<key>` for a custom trait.
        package static func trait(_ key: String) -> String { "trait.\(key)" }
        /// Whether `key` names a custom trait.
        package static func isTrait(_ key: String) -> Bool { key.hasPrefix("trait.") }
    }

    /// Digests by field.
    package var hashes: [String: String]

    /// Creates a profile.
    package init(hashes: [String: String] = [:]) {
        self.hashes = hashes
    }

    /// Whether it holds nothing.
    package var isEmpty: Bool { hashes.isEmpty }

    /// The field names, sorted.
    package var keys: [String] { hashes.keys.sorted() }

    /// Applies one `identify` call: removals first, then new values; a new custom trait is
    /// dropped once the profile holds 20 (Nitx seed: "traits at most 20 keys").
    package mutating func apply(_ update: NitxProfileUpdate) {
        for key in update.removedKeys { hashes[key] = nil }
        if update.removeAllTraits { hashes = hashes.filter { !Key.isTrait($0.key) } }
        for key in update.hashes.keys.sorted() {
            guard let value = update.hashes[key] else { continue }
            if Key.isTrait(key), hashes[key] == nil,
               hashes.keys.filter(Key.isTrait).count >= NitxIdentityNormalizer.maximumTraitCount {
                continue
            }
            hashes[key] = value
        }
    }
}

/// One `identify` call, normalised and hashed.
package struct NitxProfileUpdate: Sendable, Hashable {
    /// New digests by field.
    package var hashes: [String: String]
    /// Fields to delete.
    package var removedKeys: Set<String>
    /// Whether every custom trait is deleted.
    package var removeAllTraits: Bool

    /// Creates an update.
    package init(hashes: [String: String], removedKeys: Set<String> = [], removeAllTraits: Bool = false) {
        self.hashes = hashes
        self.removedKeys = removedKeys
        self.removeAllTraits = removeAllTraits
    }
}

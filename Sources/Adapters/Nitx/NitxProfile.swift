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
}

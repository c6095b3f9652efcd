/// The identity a host hands to `identify` (Nitx seed, "Consent and identify": `NitxTraits`).
/// Raw values live only until the client normalises and hashes them.
package struct NitxTraits: Sendable, Hashable {
    /// A field that can be removed from the stored profile.
    package enum Field: Sendable, Hashable {
        /// The email.
        case email
        /// The phone number.
        case phone
        /// The gender.
        case gender
        /// The birth year (also what `age` sets).
        case birthYear
        /// The city.
        case city
        /// The country.
        case country
        /// One custom trait by key.
        case trait(String)
        /// Every custom trait.
        case allTraits
    }

    /// Email; trimmed and lowercased.
    public var email: String?
    /// Phone; kept only as E.164 (`+` and 8 to 15 digits).
    public var phone: String?
    /// Gender: `m`, `f` or `other`.
    public var gender: String?
    /// Birth year, 1900 to the current year.
    public var birthYear: Int?
    /// Age in whole years; gives the birth year when `birthYear` is not set.
    public var age: Int?
    /// City; lowercased, cut at 64 characters.
    public var city: String?
    /// Country; lowercased, cut at 64 characters.
    public var country: String?
    /// Custom traits: at most 20 keys of `[a-z0-9_]{1,32}`.
    public var traits: [String: String]
    /// Fields to delete from the profile.
    package private(set) var removals: Set<Field>

    /// Creates traits; every field is optional.
    public init(email: String? = nil, phone: String? = nil, gender: String? = nil, birthYear: Int? = nil, age: Int? = nil, city: String? = nil, country: String? = nil, traits: [String: String] = [:]) {
        self.email = email
        self.phone = phone
        self.gender = gender
        self.birthYear = birthYear
        self.age = age
        self.city = city
        self.country = country
        self.traits = traits
        self.removals = []
    }

    /// Marks `field` for deletion from the profile (a value set in the same call is ignored).
    public mutating func remove(_ field: Field) {
        removals.insert(field)
    }
}

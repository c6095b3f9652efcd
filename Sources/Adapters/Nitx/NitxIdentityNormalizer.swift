import Foundation

/// The normalisation rules of `identify` (Nitx seed, "Consent and identify"). Pure functions;
/// the client hashes their output at once and discards the raw values.
package enum NitxIdentityNormalizer {
    /// The earliest birth year kept, 1900.
    package static let earliestBirthYear = 1900
    /// The youngest age accepted, 16: a call implying a younger user is discarded whole.
    package static let minimumAge = 16
    /// The longest city or country kept, 64 characters.
    package static let placeMaximumLength = 64
    /// The most custom traits a profile holds, 20.
    package static let maximumTraitCount = 20
    /// The longest trait key, 32 characters of `[a-z0-9_]`.
    package static let traitKeyMaximumLength = 32

    /// The email trimmed and lowercased; `nil` when empty.
    package static func email(_ raw: String) -> String? {
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return value.isEmpty ? nil : value
    }

    /// The phone number in E.164: `+` then 8 to 15 digits, after removing spaces, dashes, dots
    /// and parentheses. A number without a leading `+` (no country code) or with any other
    /// character is dropped (`nil`).
    package static func phone(_ raw: String) -> String? {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("+") else { return nil }
        var digits = ""
        for character in trimmed.dropFirst() {
            if character.isASCII, character.isNumber {
                digits.append(character)
            } else if character == " " || character == "-" || character == "." || character == "(" || character == ")" {
                continue
            } else {
                return nil
            }
        }
        guard (8...15).contains(digits.count) else { return nil }
        return "+" + digits
    }

    /// The gender as `m`, `f` or `other` (trimmed, lowercased); anything else is `nil`.
    package static func gender(_ raw: String) -> String? {
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return ["m", "f", "other"].contains(value) ? value : nil
    }

    /// The birth year: `birthYear` when given, else `currentYear - age`; `nil` outside
    /// 1900...`currentYear`.
    package static func birthYear(birthYear: Int?, age: Int?, currentYear: Int) -> Int? {
        let year: Int?
        if let birthYear {
            year = birthYear
        } else if let age, age >= 0 {
            year = currentYear - age
        } else {
            year = nil
        }
        guard let year, (earliestBirthYear...max(earliestBirthYear, currentYear)).contains(year) else { return nil }
        return year
    }

    /// Whether the call implies an age under 16: `age < 16`, or a birth year with
    /// `currentYear - birthYear < 16`.
    package static func impliesUnderMinimumAge(birthYear: Int?, age: Int?, currentYear: Int) -> Bool {
        if let age, age >= 0, age < minimumAge { return true }
        if let birthYear, birthYear <= currentYear, currentYear - birthYear < minimumAge { return true }
        return false
    }

    /// A city or country trimmed, lowercased and cut at 64 characters; `nil` when empty.
    package static func place(_ raw: String) -> String? {
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return value.isEmpty ? nil : String(value.prefix(placeMaximumLength))
    }

    /// Whether `key` is 1 to 32 characters of `[a-z0-9_]`.
    package static func isValidTraitKey(_ key: String) -> Bool {
        guard (1...traitKeyMaximumLength).contains(key.count) else { return false }
        return key.unicodeScalars.allSatisfy { scalar in
            (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") || scalar == "_"
        }
    }

    /// The custom traits kept: valid keys with a non-empty trimmed value, the first 20 in key order.
    package static func traits(_ raw: [String: String]) -> [String: String] {
        var kept: [String: String] = [:]
        for key in raw.keys.sorted() where kept.count < maximumTraitCount && isValidTraitKey(key) {
            let value = raw[key, default: ""].trimmingCharacters(in: .whitespacesAndNewlines)
            if !value.isEmpty { kept[key] = value }
        }
        return kept
    }

    /// The profile change of one `identify` call: normalised values hashed, removals listed;
    /// `nil` when the call implies an age under 16 (the whole call is discarded).
    /// - Parameters:
    ///   - traits: the raw call.
    ///   - currentYear: the current year (UTC).
    package static func update(for traits: NitxTraits, currentYear: Int) -> NitxProfileUpdate? {
        if impliesUnderMinimumAge(birthYear: traits.birthYear, age: traits.age, currentYear: currentYear) { return nil }
        var values: [String: String] = [:]
        if let raw = traits.email, let value = email(raw) { values[NitxProfile.Key.email] = value }
        if let raw = traits.phone, let value = phone(raw) { values[NitxProfile.Key.phone] = value }
        if let raw = traits.gender, let value = gender(raw) { values[NitxProfile.Key.gender] = value }
        if let year = birthYear(birthYear: traits.birthYear, age: traits.age, currentYear: currentYear) {
            values[NitxProfile.Key.birthYear] = String(year)
        }
        if let raw = traits.city, let value = place(raw) { values[NitxProfile.Key.city] = value }
        if let raw = traits.country, let value = place(raw) { values[NitxProfile.Key.country] = value }
        for (key, value) in self.traits(traits.traits) { values[NitxProfile.Key.trait(key)] = value }

        var removed: Set<String> = []
        var removeAllTraits = false
        for field in traits.removals {
            switch field {
            case .email: removed.insert(NitxProfile.Key.email)
            case .phone: removed.insert(NitxProfile.Key.phone)
            case .gender: removed.insert(NitxProfile.Key.gender)
            case .birthYear: removed.insert(NitxProfile.Key.birthYear)
            case .city: removed.insert(NitxProfile.Key.city)
            case .country: removed.insert(NitxProfile.Key.country)
            case .trait(let key): removed.insert(NitxProfile.Key.trait(key))
            case .allTraits: removeAllTraits = true
            }
        }
        for key in removed { values[key] = nil }
        if removeAllTraits { values = values.filter { !NitxProfile.Key.isTrait($0.key) } }
        return NitxProfileUpdate(hashes: values.mapValues(NitxSHA256.hexDigest(of:)), removedKeys: removed, removeAllTraits: removeAllTraits)
    }
}

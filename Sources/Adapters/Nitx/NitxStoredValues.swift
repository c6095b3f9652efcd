import Foundation
import Mediation

/// The values the Nitx client reads back from its ``NitxRecords``, checked as untrusted input
/// (engine rule R21): storage holds what this process did not write (an earlier version,
/// another SDK sharing the defaults, a restored backup, a tampered device). Each reader returns
/// the value when it is one this client could have written, else `nil` with the problem; the
/// client then discards the stored value with a warning that names the key, never the value.
/// Pure functions; nothing here traps, whatever the text.
package enum NitxStoredValues {
    /// The longest stored value read at all, in UTF-8 bytes (a profile of 26 fields of
    /// 64-character digests is under 3 KB).
    package static let maximumValueBytes = 16 * 1024
    /// The longest visitor id kept, in characters.
    package static let maximumVisitorIDLength = 128

    /// A stored visitor id: 1 to 128 characters of `A-Z a-z 0-9 . _ : -` (the client makes
    /// lowercased UUIDs).
    /// - Parameter text: the stored text.
    /// - Returns: the id, or the problem.
    package static func visitorID(_ text: String) -> Result<String, Problem> {
        guard text.utf8.count <= maximumVisitorIDLength else { return .failure(.tooLong) }
        guard !text.isEmpty, text.unicodeScalars.allSatisfy(isVisitorIDCharacter) else { return .failure(.malformed) }
        return .success(text)
    }

    /// A stored consent record: exactly ``NitxVisitorStore/consentRecord``.
    /// - Parameter text: the stored text.
    /// - Returns: `true` for the record, or the problem.
    package static func consentRecord(_ text: String) -> Result<Bool, Problem> {
        text == NitxVisitorStore.consentRecord ? .success(true) : .failure(.malformed)
    }

    /// A stored profile: the JSON `{"hashes": {field: digest}}` the client writes, each field
    /// one the client makes (`email`, `phone`, `gender`, `birth_year`, `city`, `country`, or
    /// `trait.` and 1 to 32 of `[a-z0-9_]`) and each digest 64 lowercase hex characters; at most
    /// 20 traits (the first in key order). Entries that break a rule are dropped, the others
    /// kept.
    /// - Parameter text: the stored text.
    /// - Returns: the profile and how many entries were dropped, or the problem (too long, not
    ///   that JSON).
    package static func profile(_ text: String) -> Result<(profile: NitxProfile, dropped: Int), Problem> {
        guard text.utf8.count <= maximumValueBytes else { return .failure(.tooLong) }
        guard StoredJSON.strictnessProblem(of: Data(text.utf8)) == nil, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let hashes = object["hashes"] as? [String: Any] else { return .failure(.malformed) }
        var kept: [String: String] = [:]
        var dropped = 0
        var traits = 0
        for key in hashes.keys.sorted() {
            guard let digest = hashes[key] as? String, isDigest(digest), isProfileKey(key) else {
                dropped += 1
                continue
            }
            if NitxProfile.Key.isTrait(key) {
                guard traits < NitxIdentityNormalizer.maximumTraitCount else {
                    dropped += 1
                    continue
                }
                traits += 1
            }
            kept[key] = digest
        }
        return .success((NitxProfile(hashes: kept), dropped))
    }

    /// A stored last show time of an app open ad, in seconds since 1970: a finite number from 0
    /// to `now` plus one minimum interval (a later time is no show this client recorded; one
    /// within an interval ahead is kept, as a device clock set back by that much would leave
    /// it, and can delay the next show by at most two intervals).
    /// - Parameters:
    ///   - text: the stored text.
    ///   - now: the wall-clock time now.
    ///   - interval: the minimum interval between shows.
    /// - Returns: the time, or the problem.
    package static func appOpenLastShown(_ text: String, now: Date, interval: Duration) -> Result<Date, Problem> {
        guard text.utf8.count <= 64 else { return .failure(.tooLong) }
        guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)) else { return .failure(.malformed) }
        guard seconds.isFinite else { return .failure(.notFinite) }
        let latest = now.timeIntervalSince1970 + Double(interval.components.seconds)
        guard seconds >= 0, seconds <= latest else { return .failure(.outOfRange) }
        return .success(Date(timeIntervalSince1970: seconds))
    }

    /// Why a stored value was discarded (the warning's words; never the value).
    package enum Problem: String, Error, Sendable, Hashable {
        /// Longer than any value the client writes.
        case tooLong = "too long"
        /// Not of the form the client writes.
        case malformed = "not of the form the client writes"
        /// A number that is not finite.
        case notFinite = "not a finite number"
        /// A number outside the range the client could have written.
        case outOfRange = "out of range"
    }

    private static func isVisitorIDCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", ".", "_", ":", "-": true
        default: false
        }
    }

    private static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func isProfileKey(_ key: String) -> Bool {
        let fields = [NitxProfile.Key.email, NitxProfile.Key.phone, NitxProfile.Key.gender, NitxProfile.Key.birthYear, NitxProfile.Key.city, NitxProfile.Key.country]
        if fields.contains(key) { return true }
        guard NitxProfile.Key.isTrait(key) else { return false }
        let name = key.dropFirst("trait.".count)
        return (1...NitxIdentityNormalizer.traitKeyMaximumLength).contains(name.utf8.count)
            && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
    }
}

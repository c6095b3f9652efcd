import Foundation
import Testing
@testable import Adapters

@Suite("Nitx identity normalisation")
struct NitxIdentityNormalizerTests {
    @Test(arguments: [
        ("  Jane@Example.COM \n", "jane@example.com"),
        ("a@b.c", "a@b.c"),
    ])
    func emailIsTrimmedAndLowercased(raw: String, expected: String) {
        #expect(NitxIdentityNormalizer.email(raw) == expected)
    }

    @Test func blankEmailIsDropped() {
        #expect(NitxIdentityNormalizer.email("   ") == nil)
    }

    @Test(arguments: [
        ("+966 50 123 4567", "+966501234567"),
        ("+1 (415) 555-0100", "+14155550100"),
        ("+12345678", "+12345678"),                 // 8 digits: the shortest kept
        ("+123456789012345", "+123456789012345"),   // 15 digits: the longest kept
    ])
    func phoneBecomesE164(raw: String, expected: String) {
        #expect(NitxIdentityNormalizer.phone(raw) == expected)
    }

    @Test(arguments: [
        "050 123 4567",        // no country code
        "966501234567",        // no +
        "+1234567",            // 7 digits
        "+1234567890123456",   // 16 digits
        "+966 50 123 456a",    // a letter
        "",
    ])
    func phoneIsDropped(raw: String) {
        #expect(NitxIdentityNormalizer.phone(raw) == nil)
    }

    @Test(arguments: [("m", "m"), ("F", "f"), (" Other ", "other")])
    func genderKept(raw: String, expected: String) {
        #expect(NitxIdentityNormalizer.gender(raw) == expected)
    }

    @Test(arguments: ["male", "x", "", "female"])
    func genderDropped(raw: String) {
        #expect(NitxIdentityNormalizer.gender(raw) == nil)
    }

    @Test(arguments: [
        (1990 as Int?, nil as Int?, 1990 as Int?),
        (1900, nil, 1900),
        (2026, nil, 2026),
        (1899, nil, nil),
        (2027, nil, nil),
        (nil, 36, 1990),
        (nil, 127, nil),   // 1899: before 1900
        (nil, -1, nil),
    ])
    func birthYear(year: Int?, age: Int?, expected: Int?) {
        #expect(NitxIdentityNormalizer.birthYear(birthYear: year, age: age, currentYear: 2026) == expected)
    }

    @Test(arguments: [
        (2011 as Int?, nil as Int?, true),   // 15 in 2026
        (2010, nil, false),                  // 16 in 2026
        (nil, 15, true),
        (nil, 16, false),
        (1990, 10, true),                    // either signal under 16 discards
        (nil, nil, false),
    ])
    func underSixteen(year: Int?, age: Int?, discarded: Bool) {
        #expect(NitxIdentityNormalizer.impliesUnderMinimumAge(birthYear: year, age: age, currentYear: 2026) == discarded)
    }

    @Test func placeIsLowercasedAndCutAt64() {
        #expect(NitxIdentityNormalizer.place("  Riyadh ") == "riyadh")
        let long = String(repeating: "A", count: 70)
        #expect(NitxIdentityNormalizer.place(long) == String(repeating: "a", count: 64))
        #expect(NitxIdentityNormalizer.place(" ") == nil)
    }

    @Test(arguments: [
        ("plan", true), ("a_1", true), (String(repeating: "k", count: 32), true),
        ("", false), (String(repeating: "k", count: 33), false), ("Plan", false), ("pl-an", false), ("plän", false), ("a b", false),
    ])
    func traitKeys(key: String, valid: Bool) {
        #expect(NitxIdentityNormalizer.isValidTraitKey(key) == valid)
    }

    @Test func atMostTwentyTraitsInKeyOrder() {
        var raw: [String: String] = [:]
        for index in 0..<25 { raw[String(format: "k%02d", index)] = "v" }
        raw["BAD"] = "v"
        raw["empty"] = "  "
        let kept = NitxIdentityNormalizer.traits(raw)
        #expect(kept.count == 20)
        #expect(kept.keys.sorted().first == "k00")
        #expect(kept.keys.sorted().last == "k19")
        #expect(kept["BAD"] == nil)
        #expect(kept["empty"] == nil)
    }

    /// The seed's own example, hashed: digests compared with sha256sum's of the normalised values.
    @Test func seedExampleHashes() throws {
        let traits = NitxTraits(email: "Jane@Example.com", phone: "+966 50 123 4567", gender: "f", birthYear: 1990, city: "Riyadh", country: "SA", traits: ["plan": "pro"])
        let update = try #require(NitxIdentityNormalizer.update(for: traits, currentYear: 2026))
        #expect(update.hashes == [
            "email": "8c87b489ce35cf2e2f39f80e282cb2e804932a56a213983eeeb428407d43b52d",
            "phone": "90a38f9294c5ab0c10c460c72353df5b7d0bd03ca3c4a01809c0f6363705b84f",
            "gender": "252f10c83610ebca1a059c0bae8255eba2f95be4d1d7bcfa89d7248a82d9f111",
            "birth_year": "a7be8e1fe282a37cd666e0632b17d933fa13f21addf4798fc0455bc166e2488c",
            "city": "c32a92d2e9222e118dd801eef7390c9aa985a8fbc25dd6bba09eab0985b441af",
            "country": "4cf6829aa93728e8f3c97df913fb1bfa95fe5810e2933a05943f8312a98d9cf2",
            "trait.plan": "07ed400759a0f606a8b5bfa84712aabe7d1b1c45cb6536c8a5727446b6647b84",
        ])
    }

    @Test func ageGivesTheBirthYearHash() throws {
        let update = try #require(NitxIdentityNormalizer.update(for: NitxTraits(age: 36), currentYear: 2026))
        #expect(update.hashes == ["birth_year": "a7be8e1fe282a37cd666e0632b17d933fa13f21addf4798fc0455bc166e2488c"])
    }

    @Test func underSixteenDiscardsTheWholeCall() {
        let traits = NitxTraits(email: "kid@example.com", birthYear: 2012)
        #expect(NitxIdentityNormalizer.update(for: traits, currentYear: 2026) == nil)
    }

    @Test func removalWinsOverAValueInTheSameCall() throws {
        var traits = NitxTraits(email: "a@b.c", city: "Riyadh")
        traits.remove(.email)
        let update = try #require(NitxIdentityNormalizer.update(for: traits, currentYear: 2026))
        #expect(update.hashes.keys.sorted() == ["city"])
        #expect(update.removedKeys == ["email"])
    }

    @Test func profileKeepsAtMostTwentyTraitsAcrossCalls() {
        var profile = NitxProfile()
        for index in 0..<20 { profile.hashes["trait.k\(index)"] = "h" }
        profile.apply(NitxProfileUpdate(hashes: ["trait.new": "h", "trait.k3": "h2", "email": "e"]))
        #expect(profile.hashes["trait.new"] == nil)
        #expect(profile.hashes["trait.k3"] == "h2")
        #expect(profile.hashes["email"] == "e")
        #expect(profile.hashes.keys.filter { $0.hasPrefix("trait.") }.count == 20)
    }
}

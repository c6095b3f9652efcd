import Testing
@testable import Mediation

@Suite("Audience predicates")
struct AudiencePredicateTests {
    static func predicate(_ json: String) throws(ConfigurationError) -> AudiencePredicate {
        try ConfigurationLoader.decodePredicate(try StrictJSONReader.parse(Array(json.utf8)), at: JSONPath.root.appending("when"), depth: 0)
    }

    static func matches(_ json: String, _ audience: Audience) throws -> Bool {
        try predicate(json).matches(audience)
    }

    static let us = Audience(country: "US", deviceKind: .phone, osVersion: Version("17.4"), appVersion: Version("2.10.0"), custom: ["level": .number(12), "tier": .string("gold")], gdprApplies: false, coppa: false, limitAdTracking: true)
    static let unknown = Audience()

    @Test func versionsCompareAsVersions() throws {
        #expect(try Self.matches(#"{"app_version": {">": "2.9.0"}}"#, Self.us))
        #expect(try Self.matches(#"{"app_version": {">=": "2.10"}}"#, Self.us))
        #expect(try Self.matches(#"{"app_version": {"==": "2.10.0.0"}}"#, Self.us))
        #expect(try !Self.matches(#"{"app_version": {"<": "2.9.0"}}"#, Self.us))
        #expect(try !Self.matches(#"{"app_version": {">": "2.10.0"}}"#, Self.us))
        #expect(try Self.matches(#"{"os_version": {"<=": "17.4.0"}}"#, Self.us))
        var old = Self.us
        old.appVersion = Version("2.9")
        #expect(try Self.matches(#"{"app_version": {"==": "2.9.0"}}"#, old))
        #expect(try Self.matches(#"{"app_version": {"<": "2.10.0"}}"#, old))
    }

    @Test func numbersAndStringsCompareWithTheirOwnKindOnly() throws {
        #expect(try Self.matches(#"{"custom.level": {">": 10}}"#, Self.us))
        #expect(try Self.matches(#"{"custom.level": {"==": 12}}"#, Self.us))
        #expect(try Self.matches(#"{"custom.level": {"in": [11, 12]}}"#, Self.us))
        // 12 against "12": never a match, whatever the operator.
        #expect(try !Self.matches(#"{"custom.level": {"==": "12"}}"#, Self.us))
        #expect(try !Self.matches(#"{"custom.level": {"!=": "12"}}"#, Self.us))
        #expect(try !Self.matches(#"{"custom.level": {">": "1"}}"#, Self.us))
        #expect(try !Self.matches(#"{"custom.level": {"in": ["12"]}}"#, Self.us))
        #expect(try !Self.matches(#"{"custom.level": {"not_in": ["12"]}}"#, Self.us))
        #expect(try !Self.matches(#"{"custom.tier": {"<": 5}}"#, Self.us))
        // Strings compare as strings: "gold" < "silver", "10" < "9".
        #expect(try Self.matches(#"{"custom.tier": {"<": "silver"}}"#, Self.us))
        #expect(try Self.matches(#"{"custom.tier": {"not_in": ["silver", 3]}}"#, Self.us))
        var text = Self.us
        text.custom["level"] = .string("10")
        #expect(try Self.matches(#"{"custom.level": {"<": "9"}}"#, text))
        #expect(try !Self.matches(#"{"custom.level": {">": 9}}"#, text))
    }

    @Test func anUnknownSignalFailsEveryComparison() throws {
        for json in [
            #"{"country": {"in": ["US"]}}"#, #"{"country": {"not_in": ["US"]}}"#,
            #"{"country": {"==": "US"}}"#, #"{"country": {"!=": "US"}}"#,
            #"{"app_version": {"<": "99"}}"#, #"{"custom.level": {"!=": 3}}"#,
            #"{"custom.level": {"not_in": [3]}}"#, #"{"gdpr_applies": {"!=": true}}"#,
            #"{"gdpr_applies": {"==": false}}"#, #"{"country": {"known": true}}"#,
        ] {
            #expect(try !Self.matches(json, Self.unknown), "\(json)")
        }
        #expect(try Self.matches(#"{"country": {"known": false}}"#, Self.unknown))
        #expect(try Self.matches(#"{"custom.level": {"known": false}}"#, Self.unknown))
        #expect(try !Self.matches(#"{"country": {"known": false}}"#, Self.us))
        #expect(try Self.matches(#"{"country": {"known": true}}"#, Self.us))
        // `not` of a failed comparison is true: unknown is "not in [US]" only through `not`.
        #expect(try Self.matches(#"{"not": {"country": {"in": ["US"]}}}"#, Self.unknown))
    }

    @Test func combinators() throws {
        #expect(try Self.matches(#"{"all": [{"country": {"in": ["US", "CA"]}}, {"custom.level": {">": 10}}]}"#, Self.us))
        #expect(try !Self.matches(#"{"all": [{"country": {"in": ["US", "CA"]}}, {"custom.level": {">": 20}}]}"#, Self.us))
        #expect(try Self.matches(#"{"any": [{"country": {"in": ["IN"]}}, {"device_kind": {"==": "phone"}}]}"#, Self.us))
        #expect(try !Self.matches(#"{"any": [{"country": {"in": ["IN"]}}, {"device_kind": {"==": "tablet"}}]}"#, Self.us))
        #expect(try Self.matches(#"{"not": {"country": {"in": ["IN"]}}}"#, Self.us))
        #expect(try Self.matches(#"{"lat": {"==": true}}"#, Self.us))
        #expect(try Self.matches(#"{"coppa": {"!=": true}}"#, Self.us))
    }

    @Test func reasonsNameTheSignalItsValueAndTheTest() throws {
        #expect(try Self.predicate(#"{"country": {"in": ["US", "CA", "GB"]}}"#).reason(for: Self.us) == "country US in [US, CA, GB]")
        #expect(try Self.predicate(#"{"all": [{"app_version": {">=": "2.10.0"}}, {"custom.level": {">": 10}}]}"#).reason(for: Self.us) == "app_version 2.10.0 >= 2.10.0 and custom.level 12 > 10")
        #expect(try Self.predicate(#"{"any": [{"country": {"in": ["IN"]}}, {"custom.tier": {"==": "gold"}}]}"#).reason(for: Self.us) == "custom.tier gold == gold")
        #expect(try Self.predicate(#"{"country": {"known": false}}"#).reason(for: Self.unknown) == "country unknown")
        #expect(try Self.predicate(#"{"not": {"country": {"not_in": ["IN"]}}}"#).reason(for: Self.unknown) == "not (country unknown)")
    }

    @Test(arguments: [
        (#"{"country": {"in": ["usa"]}}"#, "when.country.in[0]", "invalid_value"),
        (#"{"country": {"in": []}}"#, "when.country.in", "invalid_value"),
        (#"{"country": {"in": "US"}}"#, "when.country.in", "wrong_type"),
        (#"{"country": {"has": ["US"]}}"#, "when.country.has", "unknown_key"),
        (#"{"country": {"in": ["US"], "==": "US"}}"#, "when.country", "invalid_value"),
        (#"{"planet": {"==": "earth"}}"#, "when.planet", "unknown_key"),
        (#"{"custom.Level": {"==": 1}}"#, "when[\"custom.Level\"]", "invalid_value"),
        (#"{"custom.level": {"==": true}}"#, "when[\"custom.level\"][\"==\"]", "wrong_type"),
        (#"{"app_version": {">=": "2.x"}}"#, "when.app_version[\">=\"]", "invalid_value"),
        (#"{"app_version": {">=": 2}}"#, "when.app_version[\">=\"]", "wrong_type"),
        (#"{"device_kind": {"==": "watch"}}"#, "when.device_kind[\"==\"]", "invalid_value"),
        (#"{"gdpr_applies": {">": false}}"#, "when.gdpr_applies[\">\"]", "invalid_value"),
        (#"{"country": {"known": "yes"}}"#, "when.country.known", "wrong_type"),
        (#"{"all": []}"#, "when.all", "invalid_value"),
        (#"{"any": [{"country": {"in": ["US"]}}, {"x": 1}]}"#, "when.any[1].x", "unknown_key"),
        (#"{"not": [1]}"#, "when.not", "wrong_type"),
        (#"{}"#, "when", "invalid_value"),
    ])
    func mistakesNameTheirPath(_ json: String, _ path: String, _ code: String) {
        let error = #expect(throws: ConfigurationError.self) { try Self.predicate(json) }
        #expect(error?.path == path, "\(json)")
        #expect(error?.code.rawValue == code, "\(json)")
    }
}

@Suite("Segment precedence")
struct SegmentPrecedenceTests {
    static func segment(_ id: String, _ when: String?) throws -> AudienceSegment {
        AudienceSegment(id: id, predicate: try when.map { json throws in try AudiencePredicateTests.predicate(json) }, override: MediationConfiguration.PlacementOverride(), path: "placements.p.segments")
    }

    @Test func theFirstMatchWinsAndTheDefaultTakesTheRest() throws {
        let segments = [
            try Self.segment("tier1", #"{"country": {"in": ["US", "CA", "GB"]}}"#),
            try Self.segment("us_only", #"{"country": {"in": ["US"]}}"#),
            try Self.segment("whales", #"{"custom.level": {">": 10}}"#),
            try Self.segment("default", nil),
        ]
        // The US matches tier1, us_only and whales: the first wins.
        #expect(segments.firstMatch(AudiencePredicateTests.us) == 0)
        #expect(segments.reason(0, for: AudiencePredicateTests.us) == "tier1: country US in [US, CA, GB]")
        var india = AudiencePredicateTests.us
        india.country = "IN"
        #expect(segments.firstMatch(india) == 2)
        india.custom = [:]
        #expect(segments.firstMatch(india) == 3)
        #expect(segments.reason(3, for: india) == "default: no earlier segment matched")
        #expect(segments.firstMatch(AudiencePredicateTests.unknown) == 3)
    }
}

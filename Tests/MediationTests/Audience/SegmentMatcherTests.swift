import Foundation
import Testing
@testable import Mediation

/// The compiled choice (``SegmentMatcher``) answers as the reference form
/// (`[AudienceSegment].firstMatch`), and the reason an auction keeps (``SegmentChoice``) reads
/// as the one made at once.
@Suite("Segment matcher")
struct SegmentMatcherTests {
    /// A seeded generator (SplitMix64), so every run draws the same cases.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let countries = ["US", "CA", "GB", "IN", "ZZ", "AA", "BR"]
    static let versions = ["1", "2.9", "2.10.0", "17.4", "0.0.0.1"].compactMap(Version.init)
    static let strings = ["gold", "silver", "12", "", "é", "e\u{301}"]
    static let numbers: [Double] = [-1, 0, 10, 12, 12.5, 100]

    /// An operand of any kind (a configuration types them by signal; code need not).
    static func operand(_ random: inout Seeded) -> AudienceTest.Operand {
        switch Int.random(in: 0..<10, using: &random) {
        case 0...2: .string(countries.randomElement(using: &random) ?? "US")
        case 3...4: .string(strings.randomElement(using: &random) ?? "")
        case 5: .string(["phone", "tablet", "USA", "us"].randomElement(using: &random) ?? "phone")
        case 6...7: .version(versions.randomElement(using: &random) ?? versions[0])
        case 8: .number(numbers.randomElement(using: &random) ?? 0)
        default: .bool(Bool.random(using: &random))
        }
    }

    static func test(_ random: inout Seeded) -> AudienceTest {
        let signals: [AudienceTest.Signal] = [.country, .deviceKind, .osVersion, .appVersion, .custom("level"), .custom("tier"), .gdprApplies, .coppa, .limitAdTracking]
        let signal = signals.randomElement(using: &random) ?? .country
        let operation: AudienceTest.Operation
        switch Int.random(in: 0..<9, using: &random) {
        case 0, 1:
            let set = Set((0..<Int.random(in: 1...4, using: &random)).map { _ in operand(&random) })
            operation = Bool.random(using: &random) ? .isIn(set) : .notIn(set)
        case 2: operation = .equal(operand(&random))
        case 3: operation = .notEqual(operand(&random))
        case 4: operation = .less(operand(&random))
        case 5: operation = .lessOrEqual(operand(&random))
        case 6: operation = .greater(operand(&random))
        case 7: operation = .greaterOrEqual(operand(&random))
        default: operation = .known(Bool.random(using: &random))
        }
        return AudienceTest(signal: signal, operation: operation, text: "op")
    }

    static func predicate(_ random: inout Seeded, depth: Int = 0) -> AudiencePredicate {
        guard depth < 3, Int.random(in: 0..<3, using: &random) == 0 else { return .test(test(&random)) }
        switch Int.random(in: 0..<3, using: &random) {
        case 0: return .all((0..<Int.random(in: 1...3, using: &random)).map { _ in predicate(&random, depth: depth + 1) })
        case 1: return .any((0..<Int.random(in: 1...3, using: &random)).map { _ in predicate(&random, depth: depth + 1) })
        default: return .not(predicate(&random, depth: depth + 1))
        }
    }

    static func audience(_ random: inout Seeded) -> Audience {
        func maybe<T>(_ value: T) -> T? { Int.random(in: 0..<4, using: &random) == 0 ? nil : value }
        var custom: [String: AudienceValue] = [:]
        for key in ["level", "tier"] where Bool.random(using: &random) {
            custom[key] = Bool.random(using: &random) ? .number(numbers.randomElement(using: &random) ?? 0) : .string(strings.randomElement(using: &random) ?? "")
        }
        // Mostly a resolved country; sometimes a form the engine never resolves to.
        let country = Int.random(in: 0..<8, using: &random) == 0 ? ["usa", "U", "Us"].randomElement(using: &random) : countries.randomElement(using: &random)
        return Audience(
            country: maybe(country ?? "US"),
            deviceKind: maybe(Bool.random(using: &random) ? .phone : .tablet),
            osVersion: maybe(versions.randomElement(using: &random) ?? versions[0]),
            appVersion: maybe(versions.randomElement(using: &random) ?? versions[0]),
            custom: custom,
            gdprApplies: maybe(Bool.random(using: &random)),
            coppa: maybe(Bool.random(using: &random)),
            limitAdTracking: maybe(Bool.random(using: &random))
        )
    }

    @Test func theCompiledChoiceIsTheReferenceChoiceOnRandomPredicates() {
        var random = Seeded(state: 42)
        var checked = 0
        for round in 0..<400 {
            var segments = (0..<Int.random(in: 1...6, using: &random)).map { index in
                AudienceSegment(id: "s\(index)", predicate: Self.predicate(&random), override: MediationConfiguration.PlacementOverride(), path: "p")
            }
            if round % 4 != 0 { segments.append(AudienceSegment(id: "default", predicate: nil, override: MediationConfiguration.PlacementOverride(), path: "p")) }
            let matcher = SegmentMatcher(segments)
            for _ in 0..<50 {
                let audience = Self.audience(&random)
                #expect(matcher.firstMatch(audience) == segments.firstMatch(audience), "\(segments.map(\.predicate)) \(audience)")
                checked += 1
            }
            // Each predicate alone, as its own first segment: every test's answer is compared.
            for segment in segments {
                guard let predicate = segment.predicate else { continue }
                let alone = SegmentMatcher([segment])
                for _ in 0..<20 {
                    let audience = Self.audience(&random)
                    #expect((alone.firstMatch(audience) == 0) == predicate.matches(audience), "\(predicate) \(audience)")
                }
            }
        }
        #expect(checked == 20_000)
    }

    @Test func countryListsAreBitSetsOfTheTwoLetterCodes() throws {
        let when = try AudiencePredicateTests.predicate(#"{"country": {"in": ["AA", "ZZ", "US"]}}"#)
        let matcher = SegmentMatcher([AudienceSegment(id: "listed", predicate: when, override: MediationConfiguration.PlacementOverride(), path: "p")])
        // The codes at both ends of the set, and one in a middle word.
        for code in ["AA", "ZZ", "US"] { #expect(matcher.firstMatch(Audience(country: code)) == 0, "\(code)") }
        for code in ["AB", "ZY", "UT", "UR"] { #expect(matcher.firstMatch(Audience(country: code)) == nil, "\(code)") }
        #expect(matcher.firstMatch(Audience()) == nil)
        #expect(CountryCode.index("AA") == 0)
        #expect(CountryCode.index("ZZ") == 675)
        #expect(CountryCode.index("us") == nil)
        #expect(CountryCode.index("USA") == nil)
        #expect(CountryCode.index("U") == nil)
    }

    @Test func theDefaultAndAnEmptyListAreAnsweredAsTheReference() {
        #expect(SegmentMatcher([]).firstMatch(AudiencePredicateTests.us) == nil)
        let only = [AudienceSegment(id: "default", predicate: nil, override: MediationConfiguration.PlacementOverride(), path: "p")]
        #expect(SegmentMatcher(only).firstMatch(AudiencePredicateTests.unknown) == 0)
    }

    /// Segments with a predicate of every kind (each signal, each operator, all / any / not),
    /// then the default.
    static func everyKind() throws -> [AudienceSegment] {
        let whens = [
            #"{"country": {"in": ["US", "CA", "GB"]}}"#,
            #"{"country": {"not_in": ["IN"]}}"#,
            #"{"country": {"==": "US"}}"#,
            #"{"country": {"!=": "IN"}}"#,
            #"{"country": {"known": false}}"#,
            #"{"device_kind": {"==": "tablet"}}"#,
            #"{"device_kind": {"in": ["phone"]}}"#,
            #"{"os_version": {"<": "18"}}"#,
            #"{"app_version": {">=": "2.10.0"}}"#,
            #"{"app_version": {"known": true}}"#,
            #"{"custom.level": {">": 10}}"#,
            #"{"custom.level": {"in": [11, 12]}}"#,
            #"{"custom.tier": {"==": "gold"}}"#,
            #"{"custom.tier": {"not_in": ["silver"]}}"#,
            #"{"gdpr_applies": {"==": false}}"#,
            #"{"coppa": {"!=": true}}"#,
            #"{"lat": {"known": true}}"#,
            #"{"all": [{"app_version": {">=": "2.10.0"}}, {"custom.level": {">": 10}}]}"#,
            #"{"any": [{"country": {"in": ["IN"]}}, {"custom.tier": {"==": "gold"}}]}"#,
            #"{"not": {"country": {"not_in": ["IN"]}}}"#,
        ]
        var segments = try whens.enumerated().map { index, json in
            AudienceSegment(id: "s\(index)", predicate: try AudiencePredicateTests.predicate(json), override: MediationConfiguration.PlacementOverride(), path: "p")
        }
        segments.append(AudienceSegment(id: "default", predicate: nil, override: MediationConfiguration.PlacementOverride(), path: "p"))
        return segments
    }

    @Test func theKeptChoiceReadsAsTheReasonMadeAtOnce() throws {
        let segments = try Self.everyKind()
        var unknownCountry = AudiencePredicateTests.us
        unknownCountry.country = nil
        for audience in [AudiencePredicateTests.us, AudiencePredicateTests.unknown, unknownCountry] {
            // Every segment as the chosen one, whether or not it matched: the text is the same.
            for index in segments.indices {
                let kept = AuctionTrace.AudienceLabel(country: audience.country, choice: SegmentChoice(segments: segments, index: index, audience: audience))
                let eager = AuctionTrace.AudienceLabel(country: audience.country, segment: segments[index].id, segmentReason: segments.reason(index, for: audience))
                #expect(kept.segment == segments[index].id)
                #expect(kept.segmentReason == eager.segmentReason)
                #expect(kept == eager)
                #expect(kept.hashValue == eager.hashValue)
            }
        }
        let chosen = try #require(SegmentMatcher(segments).firstMatch(AudiencePredicateTests.unknown))
        #expect(SegmentChoice(segments: segments, index: chosen, audience: AudiencePredicateTests.unknown).reason == "s4: country unknown")
        let last = segments.count - 1
        #expect(SegmentChoice(segments: segments, index: last, audience: AudiencePredicateTests.us).reason == "default: no earlier segment matched")
    }

    @Test func aChoiceKeptWithTheRequestsTemplateReadsItsResolvedAudience() throws {
        let segments = try Self.everyKind()
        let template = RequestTemplate(device: AdRequest.Device(osVersion: "17.4", kind: .tablet, country: "usa"), app: RequestTemplate.App(version: "2.10.0"), privacy: AdRequest.Privacy(gdprApplies: false), audience: ["level": .number(12), "tier": .string("gold")])
        let audience = template.resolvedAudience
        let chosen = try #require(SegmentMatcher(segments).firstMatch(audience))
        #expect(chosen == 0)
        for index in segments.indices {
            let kept = SegmentChoice(segments: segments, index: index, signals: template)
            #expect(kept.reason == segments.reason(index, for: audience))
            #expect(kept.id == segments[index].id)
        }
        #expect(SegmentChoice(segments: segments, index: 5, signals: template).reason == "s5: device_kind tablet == tablet")
    }

    @Test func aTraceWithTheKeptChoiceWritesWhatTheTextWrites() throws {
        let segments = try Self.everyKind()
        let audience = AudiencePredicateTests.us
        func trace(_ label: AuctionTrace.AudienceLabel) -> AuctionTrace {
            AuctionTrace(auctionID: "a1", placementID: "level_end", mode: .parallel, startedAtMilliseconds: 0, endedAtMilliseconds: 5, deadlineMilliseconds: 3000, winner: nil, winningECPM: nil, sources: [], audience: label)
        }
        for index in [0, 17, segments.count - 1] {
            let kept = trace(AuctionTrace.AudienceLabel(country: "US", choice: SegmentChoice(segments: segments, index: index, audience: audience)))
            let eager = trace(AuctionTrace.AudienceLabel(country: "US", segment: segments[index].id, segmentReason: segments.reason(index, for: audience)))
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            #expect(try encoder.encode(kept) == encoder.encode(eager))
            #expect(kept.description == eager.description)
            #expect(kept == eager)
            let decoded = try JSONDecoder().decode(AuctionTrace.self, from: encoder.encode(kept))
            #expect(decoded.segmentReason == eager.segmentReason)
        }
    }
}

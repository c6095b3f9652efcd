import Mediation

/// The per-auction cost of choosing a segment among 10 (`docs/audiences.md`): the audience's
/// first matching segment and its reason text, as an auction does it, over a rotation of
/// audiences that land in every segment and the default.
enum SegmentChoiceBenchmark {
    /// Ten segments: nine with country lists, version ranges, custom keys and combinators, then
    /// the default.
    static func segments() -> [AudienceSegment] {
        func test(_ signal: AudienceTest.Signal, _ operation: AudienceTest.Operation, _ text: String) -> AudiencePredicate {
            .test(AudienceTest(signal: signal, operation: operation, text: text))
        }
        let tier2: Set<AudienceTest.Operand> = Set(["DE", "FR", "JP", "KR", "AU", "NL", "SE", "NO", "CH", "DK"].map(AudienceTest.Operand.string))
        let version = Version("2.10.0").map(AudienceTest.Operand.version) ?? .string("2.10.0")
        let predicates: [AudiencePredicate] = [
            .all([test(.country, .isIn([.string("US")]), "in [US]"), test(.custom("level"), .greater(.number(50)), "> 50")]),
            test(.country, .isIn([.string("US"), .string("CA"), .string("GB")]), "in [US, CA, GB]"),
            test(.country, .isIn(tier2), "in [DE, FR, ...]"),
            .all([test(.appVersion, .greaterOrEqual(version), ">= 2.10.0"), test(.deviceKind, .equal(.string("tablet")), "== tablet")]),
            .any([test(.custom("tier"), .equal(.string("whale")), "== whale"), test(.custom("spend"), .greater(.number(100)), "> 100")]),
            test(.country, .isIn([.string("BR"), .string("MX"), .string("AR")]), "in [BR, MX, AR]"),
            .not(test(.gdprApplies, .known(true), "known")),
            test(.country, .isIn([.string("IN"), .string("ID"), .string("PK")]), "in [IN, ID, PK]"),
            test(.osVersion, .less(Version("15").map(AudienceTest.Operand.version) ?? .string("15")), "< 15"),
        ]
        var segments = predicates.enumerated().map { index, predicate in
            AudienceSegment(id: "s\(index)", predicate: predicate, override: MediationConfiguration.PlacementOverride(), path: "placements.bench.segments[\(index)]")
        }
        segments.append(AudienceSegment(id: "default", predicate: nil, override: MediationConfiguration.PlacementOverride(), path: "placements.bench.segments[9]"))
        return segments
    }

    /// Audiences that fall in every segment, in rotation.
    static func audiences() -> [Audience] {
        let countries: [String?] = ["US", "GB", "DE", "ZA", "NG", "BR", "EG", "IN", "VN", nil, "KE", "PE"]
        return countries.enumerated().map { index, country in
            Audience(country: country, deviceKind: index % 3 == 0 ? .tablet : .phone, osVersion: Version("17.4"), appVersion: Version(index % 2 == 0 ? "2.10.1" : "2.9.0"), custom: ["level": .number(Double(index * 7)), "tier": .string("gold")], gdprApplies: index % 4 == 0 ? nil : false, coppa: false, limitAdTracking: true)
        }
    }

    /// The cost of one choice (segment and reason) in microseconds, per batch of `batch`
    /// choices, over `samples` batches.
    static func microsecondsPerChoice(samples: Int, batch: Int) -> Summary {
        let segments = segments()
        let audiences = audiences()
        let clock = ContinuousClock()
        var checksum = 0
        var perChoice: [Double] = []
        for sample in 0..<samples {
            let start = clock.now
            for index in 0..<batch {
                let audience = audiences[(sample &+ index) % audiences.count]
                if let chosen = segments.firstMatch(audience) {
                    checksum &+= segments.reason(chosen, for: audience).utf8.count
                }
            }
            let elapsed = clock.now - start
            let (seconds, attoseconds) = elapsed.components
            perChoice.append((Double(seconds) * 1e6 + Double(attoseconds) / 1e12) / Double(batch))
        }
        if checksum == 42 { print("") } // keeps the work from being optimised away
        return Summary(perChoice)
    }
}

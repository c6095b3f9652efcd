import Mediation

/// The per-auction cost of choosing a segment among 10 (`docs/audiences.md`): the audience's
/// first matching segment and what the auction keeps for its reason, as an auction does it,
/// over a rotation of audiences that land in every segment and the default; and engine
/// auctions of a placement with these segments against the same without.
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

    /// Templates whose audiences fall in every segment and the default, in rotation.
    static func templates() -> [RequestTemplate] {
        let countries: [String?] = ["US", "GB", "DE", "ZA", "NG", "BR", "EG", "IN", "VN", nil, "KE", "PE"]
        return countries.enumerated().map { index, country in
            RequestTemplate(
                device: AdRequest.Device(osVersion: "17.4", kind: index % 3 == 0 ? .tablet : .phone, country: country),
                app: RequestTemplate.App(version: index % 2 == 0 ? "2.10.1" : "2.9.0"),
                privacy: AdRequest.Privacy(gdprApplies: index % 4 == 0 ? nil : false, limitAdTracking: true),
                audience: ["level": .number(Double(index * 7)), "tier": .string("gold")]
            )
        }
    }

    /// The cost of one choice as an auction pays it, in microseconds, per batch of `batch`
    /// choices, over `samples` batches: the compiled first match (``SegmentMatcher``) and the
    /// label the auction keeps (the segment id and the choice its reason is made from when the
    /// trace is read; not the text).
    static func microsecondsPerChoice(samples: Int, batch: Int) -> Summary {
        let segments = segments()
        let matcher = SegmentMatcher(segments)
        let templates = templates()
        let clock = ContinuousClock()
        var checksum = 0
        var perChoice: [Double] = []
        for sample in 0..<samples {
            let start = clock.now
            for index in 0..<batch {
                // As `Auction.choice`: the request's resolved audience, its match, the label.
                let template = templates[(sample &+ index) % templates.count]
                let audience = template.resolvedAudience
                if let chosen = matcher.firstMatch(audience) {
                    checksum &+= keep(AuctionTrace.AudienceLabel(country: audience.country, choice: SegmentChoice(segments: segments, index: chosen, signals: template)))
                }
            }
            let elapsed = clock.now - start
            let (seconds, attoseconds) = elapsed.components
            perChoice.append((Double(seconds) * 1e6 + Double(attoseconds) / 1e12) / Double(batch))
        }
        if checksum == 42 { print("") } // keeps the work from being optimised away
        return Summary(perChoice)
    }

    /// Takes the label as the auction's state machine does (kept, not optimised away).
    @inline(never)
    private static func keep(_ label: AuctionTrace.AudienceLabel) -> Int {
        label.segment?.utf8.count ?? 0
    }

    /// Engine auctions of one placement (4 instant sources) with the 10 segments, against the
    /// same placement without segments, under the same 12 templates in rotation: `count` of
    /// each, one with and one without in turn (which goes first alternates), each timed on its
    /// own, so a burst of load falls on both alike. Microseconds per auction, one per auction.
    static func engineAuctions(count: Int, warmup: Int) async -> (segmented: [Double], plain: [Double]) {
        let ledger = AdLedger()
        let plainSources = instantSources(count: 4, format: .interstitial, ledger: ledger)
        let plain = BenchAuction(placement: MediationConfiguration.Placement(id: "bench_interstitial", format: .interstitial, sources: plainSources.lineItems), adapters: plainSources.adapters)
        let segmentedSources = instantSources(count: 4, format: .interstitial, ledger: ledger)
        var placement = MediationConfiguration.Placement(id: "bench_interstitial", format: .interstitial, sources: segmentedSources.lineItems)
        placement.segments = segments()
        let segmented = BenchAuction(placement: placement, adapters: segmentedSources.adapters)
        let templates = templates()
        let clock = ContinuousClock()
        func timed(_ auction: BenchAuction, _ signals: RequestTemplate) async -> Double {
            let start = clock.now
            let outcome = await auction.engine?.runAuction(placementID: auction.placementID, context: nil, signals: signals)
            let elapsed = clock.now - start
            outcome?.winner?.ad.releaseResources()
            let (seconds, attoseconds) = elapsed.components
            return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
        }
        for index in 0..<warmup {
            _ = await timed(segmented, templates[index % templates.count])
            _ = await timed(plain, templates[index % templates.count])
        }
        var result: (segmented: [Double], plain: [Double]) = ([], [])
        result.segmented.reserveCapacity(count)
        result.plain.reserveCapacity(count)
        for index in 0..<count {
            let signals = templates[index % templates.count]
            if index % 2 == 0 {
                result.segmented.append(await timed(segmented, signals))
                result.plain.append(await timed(plain, signals))
            } else {
                result.plain.append(await timed(plain, signals))
                result.segmented.append(await timed(segmented, signals))
            }
        }
        await settleLedger(ledger)
        return result
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Mediation

/// Caps and pacing set by a segment's override bind the users in that segment, counted on the
/// placement's impressions, at exact instants on the manual clock (`docs/caps.md`).
@Suite("Caps in a segment")
struct CapsSegmentTests {
    /// `level_end` (no caps of its own, no full-screen gap) with segments `tier1` (country US:
    /// `caps`) then `default`.
    static func harness(country: String, caps: [MediationConfiguration.Cap], pacingSeconds: Int? = nil) throws -> CapsHarness {
        var placement = CapsHarness.interstitial("level_end")
        let when = try ConfigurationLoader.decodePredicate(StrictJSONReader.parse(Array(#"{"country": {"in": ["US"]}}"#.utf8)), at: .root, depth: 0)
        var tier1 = MediationConfiguration.PlacementOverride()
        tier1.caps = caps
        tier1.pacingSeconds = pacingSeconds
        placement.segments = [
            AudienceSegment(id: "tier1", predicate: when, override: tier1, path: "placements.level_end.segments[0]"),
            AudienceSegment(id: "default", predicate: nil, override: MediationConfiguration.PlacementOverride(), path: "placements.level_end.segments[1]"),
        ]
        return try CapsHarness(placements: [placement], app: .init(fullScreenGapSeconds: 0), template: RequestTemplate(device: AdRequest.Device(country: country)))
    }

    @Test("a segment's 2 per hour: the 3rd show of a user in it is refused until the exact instant the 1st is an hour old; a user in the default segment is not capped")
    func twoPerHourInASegment() async throws {
        let us = try Self.harness(country: "US", caps: [.init(impressions: 2, window: .seconds(3600))])
        #expect(try await us.showAndDismiss("level_end").isImpression)
        await us.advance(to: 10)
        #expect(try await us.showAndDismiss("level_end").isImpression)
        await us.advance(to: 20)
        // The cap frees within the ad's hour of life: the auction runs, the show is refused.
        _ = try await us.load("level_end")
        #expect(try await us.showCurrent("level_end").capRefusal == CapRefusal(cap: "placement:level_end 2/3600s", retryAt: at(3600)))
        let placement = try us.placement("level_end")
        #expect(await placement.nextShowInstant == at(3600))
        await us.advance(to: 3599.999)
        #expect(try await us.showCurrent("level_end").capRefusal?.retryAt == at(3600))
        await us.advance(to: 3600)
        #expect(await placement.nextShowInstant == at(3600))
        #expect(try await us.showCurrent("level_end").isImpression)
        // The same placement for a user in the default segment: no cap.
        let other = try Self.harness(country: "FR", caps: [.init(impressions: 2, window: .seconds(3600))])
        for n in 0..<5 {
            await other.advance(to: Double(n) * 10)
            #expect(try await other.showAndDismiss("level_end").isImpression, "default user's impression \(n + 1)")
        }
        #expect(other.cappedEvents.isEmpty)
    }

    @Test("before an auction: a segment's cap binding past the ad's life asks no network (not_asked capped with its instant); the default segment's auction asks")
    func segmentCapBeforeTheAuction() async throws {
        let us = try Self.harness(country: "US", caps: [.init(impressions: 1, window: .seconds(7200))])
        #expect(try await us.showAndDismiss("level_end").isImpression)
        await us.advance(to: 1)
        let requests = us.adapter.requestCount
        guard case .noFill(let trace) = try await us.load("level_end") else {
            Issue.record("an auction past the segment's cap filled")
            return
        }
        #expect(us.adapter.requestCount == requests)
        #expect(trace.segment == "tier1")
        #expect(trace.sources.first?.outcome == .notAsked(.capped))
        #expect(trace.sources.first?.retryAtMilliseconds == 7_200_000)
        #expect(us.cappedEvents.count == 1)
        let other = try Self.harness(country: "FR", caps: [.init(impressions: 1, window: .seconds(7200))])
        #expect(try await other.showAndDismiss("level_end").isImpression)
        await other.advance(to: 1)
        #expect(try await other.showAndDismiss("level_end").isImpression)
    }

    @Test("a segment's pacing binds its users at show: refused 1 ms before, counted at the instant")
    func segmentPacing() async throws {
        let us = try Self.harness(country: "US", caps: [], pacingSeconds: 60)
        #expect(try await us.showAndDismiss("level_end").isImpression)
        await us.advance(to: 59.999)
        _ = try await us.load("level_end")
        #expect(try await us.showCurrent("level_end").capRefusal == CapRefusal(cap: "placement:level_end pacing 60s", retryAt: at(60)))
        await us.advance(to: 60)
        #expect(try await us.showCurrent("level_end").isImpression)
    }

    @Test("the depth of the placement's ring covers its segments' and variants' caps (bounded by the largest)")
    func depthsCoverOverrides() throws {
        var placement = CapsHarness.interstitial("level_end", caps: .init(caps: [.init(impressions: 3, window: .seconds(60))]))
        var tier1 = MediationConfiguration.PlacementOverride()
        tier1.caps = [.init(impressions: 7, window: .seconds(3600))]
        placement.segments = [
            AudienceSegment(id: "tier1", predicate: nil, override: tier1, path: "placements.level_end.segments[0]"),
        ]
        var configuration = MediationConfiguration(networks: [], placements: [placement])
        #expect(CapKeeper.depths(of: configuration)[.placement("level_end")] == 7)
        var variant = MediationConfiguration.PlacementOverride()
        variant.caps = [.init(impressions: 12, window: .seconds(86_400))]
        configuration.experiments = [MediationConfiguration.Experiment(id: "e", salt: "s", start: WallClockTime(secondsSince1970: 0), end: WallClockTime(secondsSince1970: 1e10), allocationBasisPoints: 10_000, variants: [.init(id: "A", weightBasisPoints: 5000), .init(id: "B", weightBasisPoints: 5000, placements: ["level_end": variant])])]
        #expect(CapKeeper.depths(of: configuration)[.placement("level_end")] == 12)
    }

    @Test("no cap anywhere: the check before an auction is skipped and the auction asks as before; a cap only in a segment turns the check on")
    func noCapsSkipsTheCheck() async throws {
        let plain = try CapsHarness(placements: [CapsHarness.interstitial("level_end")])
        #expect(!plain.engine.caps.hasRules)
        #expect(plain.engine.caps.cappedSources(of: CapsHarness.interstitial("level_end"), at: at(0), horizon: .seconds(3600)).isEmpty)
        #expect(try await plain.showAndDismiss("level_end").isImpression)
        await plain.advance(to: 1)
        let requests = plain.adapter.requestCount
        guard case .loaded = try await plain.load("level_end") else {
            Issue.record("no fill without caps")
            return
        }
        #expect(plain.adapter.requestCount == requests + 1)
        let segmented = try Self.harness(country: "FR", caps: [.init(impressions: 1, window: .seconds(7200))])
        #expect(segmented.engine.caps.hasRules)
    }
}

import Foundation
@testable import Mediation
import MediationTestKit
import Testing

/// A variant's placement entry with `segments` of its own: its installs choose their segment
/// from the variant's list, not the placement's.
@Suite("Experiments: a variant's own segments")
struct ExperimentVariantSegmentTests {
    /// `level_end` with segments `tier1` (US, CA: b1 at 0.9) then `default`; variant B gives it
    /// `us_only` (US: only a1, which never fills) then `rest`.
    static let variants = #"""
    [ { "id": "A", "weight_bp": 5000 },
      { "id": "B", "weight_bp": 5000, "placements": { "level_end": { "mode": "waterfall", "segments": [
          { "id": "us_only", "when": { "country": { "in": ["US"] } }, "sources": ["a1"] },
          { "id": "rest" } ] } } } ]
    """#

    static func config(variants: String = ExperimentVariantSegmentTests.variants) -> String {
        let experiment = #"[ { "id": "wf", "salt": "s1", "start": "2026-12-01T00:00:00Z", "end": "2026-12-31T00:00:00Z", "allocation_bp": 5000, "variants": \#(variants) } ]"#
        return ExperimentHarness.configJSON(experiments: experiment).replacingOccurrences(
            of: #""level_end": { "format": "interstitial", "mode": "waterfall","#,
            with: #""level_end": { "format": "interstitial", "mode": "waterfall", "segments": [ { "id": "tier1", "when": { "country": { "in": ["US", "CA"] } }, "ecpm": { "b1": 0.9 } }, { "id": "default" } ],"#
        )
    }

    static let us = RequestTemplate(device: AdRequest.Device(country: "US"))

    @Test("a variant's segments load with their paths; the segments' default and ordering rules apply")
    func loads() throws {
        let configuration = try MediationConfiguration(json: Self.config(), registry: ExperimentConfigurationTests.registry)
        let change = try #require(configuration.experiments.first?.variants[1].placements["level_end"])
        #expect(change.segments?.map(\.id) == ["us_only", "rest"])
        #expect(change.segments?.first?.path == "experiments[0].variants[1].placements.level_end.segments[0]")
        #expect(change.segments?.first?.override.sources == ["a1"])
        #expect(configuration.placement("level_end")?.segments.map(\.id) == ["tier1", "default"])
    }

    @Test("a mistake in a variant's segment fails the load with its full JSON path", arguments: [
        (#"{ "id": "us_only", "when": { "country": { "in": ["US"] } } }, { "id": "x", "when": { "planet": { "==": "mars" } } }, { "id": "rest" }"#, "experiments[0].variants[1].placements.level_end.segments[1].when.planet", "unknown signal"),
        (#"{ "id": "us_only", "when": { "country": { "in": ["US"] } } }, { "id": "x", "when": { "country": { "in": ["usa"] } } }, { "id": "rest" }"#, "experiments[0].variants[1].placements.level_end.segments[1].when.country.in[0]", "alpha-2"),
        (#"{ "id": "us_only", "when": { "country": { "in": ["US"] } } }, { "id": "a", "sources": ["a1"] }, { "id": "rest" }"#, "experiments[0].variants[1].placements.level_end.segments[1].when", "missing required field"),
        (#"{ "id": "us_only", "when": { "country": { "in": ["US"] } } }, { "id": "rest", "when": { "country": { "in": ["CA"] } } }"#, "experiments[0].variants[1].placements.level_end.segments[1].when", "takes no \"when\""),
        (#"{ "id": "us_only", "sources": ["zz"] }"#, "experiments[0].variants[1].placements.level_end.segments[0].sources[0]", "no source \"zz\""),
        (#"{ "id": "us_only", "segments": [] }"#, "experiments[0].variants[1].placements.level_end.segments[0].segments", "unknown key"),
    ])
    func mistakes(segments: String, path: String, message: String) {
        let variants = #"[ { "id": "A", "weight_bp": 5000 }, { "id": "B", "weight_bp": 5000, "placements": { "level_end": { "segments": [ \#(segments) ] } } } ]"#
        do {
            _ = try MediationConfiguration(json: Self.config(variants: variants), registry: ExperimentConfigurationTests.registry)
            Issue.record("loaded: \(segments)")
        } catch {
            #expect(error.path == path, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test("a US install in B gets B's us_only segment and its sources; its events name it")
    func usInstallInB() async throws {
        let harness = try ExperimentHarness(installID: ExperimentHarness.inB, config: Self.config(), requestTemplate: Self.us)
        let outcome = try await harness.oneShot("level_end")
        #expect(outcome.trace.experiment?.variantID == "B")
        #expect(outcome.trace.segment == "us_only")
        #expect(outcome.trace.segmentReason == "us_only: country US in [US]")
        #expect(outcome.trace.sources.map(\.lineItemID) == ["a1"], "only us_only's sources are asked")
        #expect(outcome.trace.winner == nil, "a1 never fills")
        let records = harness.records
        let started = try #require(records.first { $0["event"] as? String == "auction_started" })
        #expect(started["segment"] as? String == "us_only")
        let finished = try #require(records.first { $0["event"] as? String == "auction_finished" })
        let trace = try #require(finished["trace"] as? [String: Any])
        #expect(trace["segment"] as? String == "us_only")
        #expect(trace["segment_reason"] as? String == "us_only: country US in [US]")
        #expect(trace["variant"] as? String == "B")
        await harness.shutdown()
    }

    @Test("a US install in A (control) gets the placement's tier1 segment and prices")
    func usInstallInA() async throws {
        let harness = try ExperimentHarness(installID: ExperimentHarness.inA, config: Self.config(), requestTemplate: Self.us)
        let outcome = try await harness.oneShot("level_end")
        #expect(outcome.trace.experiment?.variantID == "A")
        #expect(outcome.trace.segment == "tier1")
        #expect(outcome.trace.winner == "b1")
        #expect(outcome.trace.winningECPM == 0.9)
        await harness.shutdown()
    }

    @Test("a non-US install in B falls to B's default, rest, with the placement's sources")
    func otherInstallInB() async throws {
        let harness = try ExperimentHarness(installID: ExperimentHarness.inB, config: Self.config(), requestTemplate: RequestTemplate(device: AdRequest.Device(country: "DE")))
        let outcome = try await harness.oneShot("level_end")
        #expect(outcome.trace.segment == "rest")
        #expect(outcome.trace.segmentReason == "rest: \(AudienceSegment.defaultReason)")
        #expect(outcome.trace.winner == "b1")
        #expect(outcome.trace.winningECPM == 0.8)
        await harness.shutdown()
    }

    @Test("validate warns of a variant's unreachable segment and unused line item, at the variant's paths")
    func warnings() throws {
        let variants = #"""
        [ { "id": "A", "weight_bp": 5000 },
          { "id": "B", "weight_bp": 5000, "placements": { "level_end": { "segments": [
              { "id": "na", "when": { "country": { "in": ["US", "CA"] } }, "sources": ["a1"] },
              { "id": "us", "when": { "country": { "in": ["US"] } }, "sources": ["a1"] },
              { "id": "rest", "sources": ["a1"] } ] } } } ]
        """#
        let harness = try ExperimentHarness(installID: ExperimentHarness.inB, config: Self.config(variants: variants))
        let warnings = harness.engine.configurationWarnings
        #expect(warnings.contains { $0.code == .segmentUnreachable && $0.path == "experiments[0].variants[1].placements.level_end.segments[1]" }, "\(warnings)")
        #expect(warnings.contains { $0.code == .lineItemUnused && $0.path == "placements.level_end.sources[1]" && $0.message.contains("variant \"B\"") }, "\(warnings)")
    }
}

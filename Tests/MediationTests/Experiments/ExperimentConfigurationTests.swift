import Foundation
@testable import Mediation
import MediationTestKit
import Testing

@Suite("Experiments in the configuration")
struct ExperimentConfigurationTests {
    static var registry: NetworkRegistry {
        let clock = ManualClock()
        var networks = PrebuiltNetworks()
        networks.add("NetA", pricing: .fixedPrice, adapter: ScriptedAdapter(network: "NetA", pricing: .fixedPrice, clock: clock, script: []))
        networks.add("NetB", pricing: .fixedPrice, adapter: ScriptedAdapter(network: "NetB", pricing: .fixedPrice, clock: clock, script: []))
        return networks.registry
    }

    static func load(_ experiments: String) throws(ConfigurationError) -> MediationConfiguration {
        try MediationConfiguration(json: ExperimentHarness.configJSON(experiments: experiments), registry: registry)
    }

    static let variants = #"[ { "id": "A", "weight_bp": 5000 }, { "id": "B", "weight_bp": 5000, "placements": { "level_end": { "floor": 1.0 } } } ]"#

    static func experiment(id: String = "wf", salt: String = "s1", start: String = "2026-12-01T00:00:00Z", end: String = "2026-12-31T00:00:00Z", allocation: String = "10000", variants: String = ExperimentConfigurationTests.variants) -> String {
        #"{ "id": "\#(id)", "salt": "\#(salt)", "start": "\#(start)", "end": "\#(end)", "allocation_bp": \#(allocation), "variants": \#(variants) }"#
    }

    @Test("an experiment loads with its window, allocation, variants and overrides")
    func loads() throws {
        let configuration = try Self.load("[\(Self.experiment(allocation: "2500"))]")
        let experiment = try #require(configuration.experiments.first)
        #expect(experiment.id == "wf" && experiment.salt == "s1" && experiment.allocationBasisPoints == 2500)
        #expect(experiment.start == WallClockTime(rfc3339: "2026-12-01T00:00:00Z"))
        #expect(experiment.variants.map(\.id) == ["A", "B"])
        #expect(experiment.variants.map(\.weightBasisPoints) == [5000, 5000])
        #expect(experiment.variants[0].placements.isEmpty)
        #expect(experiment.variants[1].placements["level_end"] != nil)
        #expect(experiment.placementIDs == ["level_end"])
        #expect(try MediationConfiguration(json: ExperimentHarness.configJSON(experiments: "[]"), registry: Self.registry).experiments.isEmpty)
    }

    @Test("each mistake fails the load with its JSON path", arguments: [
        (#"[{ "id": "wf", "salt": "s1", "start": "2026-12-01T00:00:00Z", "end": "2026-12-31T00:00:00Z", "allocation_bp": 100, "variants": [ { "id": "A", "weight_bp": 5000 }, { "id": "B", "weight_bp": 5000, "placements": { "nowhere": { "floor": 1.0 } } } ] }]"#, "experiments[0].variants[1].placements.nowhere", "unknown placement"),
        ("[\(experiment(variants: #"[ { "id": "A", "weight_bp": 5000 }, { "id": "B", "weight_bp": 4999, "placements": { "level_end": {} } } ]"#))]", "experiments[0].variants", "sum to 10000, found 9999"),
        ("[\(experiment()), \(experiment(start: "2027-01-01T00:00:00Z", end: "2027-02-01T00:00:00Z"))]", "experiments[1].id", "appears twice"),
        ("[\(experiment(variants: #"[ { "id": "A", "weight_bp": 5000 }, { "id": "A", "weight_bp": 5000, "placements": { "level_end": {} } } ]"#))]", "experiments[0].variants[1].id", "appears twice"),
        ("[\(experiment(end: "2026-12-01T00:00:00Z"))]", "experiments[0].end", "must be after"),
        ("[\(experiment(end: "2026-11-01T00:00:00Z"))]", "experiments[0].end", "must be after"),
        ("[\(experiment(start: "2026-12-01"))]", "experiments[0].start", "RFC 3339"),
        ("[\(experiment(allocation: "10001"))]", "experiments[0].allocation_bp", "10000"),
        ("[\(experiment(allocation: "12.5"))]", "experiments[0].allocation_bp", "whole number"),
        ("[\(experiment(salt: ""))]", "experiments[0].salt", "must not be empty"),
        ("[\(experiment(id: "has space"))]", "experiments[0].id", "A-Z a-z 0-9"),
        ("[\(experiment(variants: #"[ { "id": "A", "weight_bp": 10000, "placements": { "level_end": {} } } ]"#))]", "experiments[0].variants", "2 to 20 variants"),
        ("[\(experiment(variants: #"[ { "id": "A", "weight_bp": 0 }, { "id": "B", "weight_bp": 10000, "placements": { "level_end": {} } } ]"#))]", "experiments[0].variants[0].weight_bp", "from 1 to 10000"),
        ("[\(experiment(variants: #"[ { "id": "A", "weight_bp": 5000 }, { "id": "B", "weight_bp": 5000 } ]"#))]", "experiments[0].variants", "no variant names a placement"),
        ("[\(experiment(variants: #"[ { "id": "A", "weight_bp": 5000, "share": 1 }, { "id": "B", "weight_bp": 5000, "placements": { "level_end": {} } } ]"#))]", "experiments[0].variants[0].share", "unknown key"),
        ("[\(experiment()), \(experiment(id: "other", salt: "s2", start: "2026-12-30T00:00:00Z", end: "2027-01-30T00:00:00Z"))]", "experiments[1]", "run at the same time"),
        (#"{ "id": "wf" }"#, "experiments", "an array"),
    ])
    func mistakes(json: String, path: String, message: String) {
        do {
            _ = try Self.load(json)
            Issue.record("loaded: \(json)")
        } catch {
            #expect(error.path == path, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test("two experiments on one placement one after the other load (their spans do not overlap)")
    func sequentialExperiments() throws {
        let configuration = try Self.load("[\(Self.experiment()), \(Self.experiment(id: "next", salt: "s2", start: "2026-12-31T00:00:00Z", end: "2027-01-31T00:00:00Z"))]")
        #expect(configuration.experiments.map(\.id) == ["wf", "next"])
    }
}

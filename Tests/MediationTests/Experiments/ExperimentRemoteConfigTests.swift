import Foundation
@testable import Mediation
import MediationTestKit
import Testing

@Suite("Experiments delivered by remote configuration")
struct ExperimentRemoteConfigTests {
    @Test("an experiment in a signed remote configuration applies once the configuration does")
    func signedRemoteExperimentApplies() async throws {
        let config = """
        { "networks": { "neta": { "adapter": "prebuilt.neta", "endpoint": "sandbox" } },
          "placements": { "home_banner": { "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 },
            "sources": [ { "id": "neta_home", "network": "neta", "ad_unit_id": "u1", "ecpm": 1.2 } ] } },
          "experiments": [ { "id": "remote_wf", "salt": "remote-1", "start": "2026-12-01T00:00:00Z", "end": "2026-12-31T00:00:00Z",
            "allocation_bp": 10000,
            "variants": [ { "id": "A", "weight_bp": 5000 }, { "id": "B", "weight_bp": 5000, "placements": { "home_banner": { "floor": 1.0 } } } ] } ] }
        """
        let signed = try RemoteConfigFixture().signed(version: 2, config: config)
        let harness = try RemoteHarness(steps: [.respond(ScriptedTransport.ok(signed, etag: "\"v2\""))])
        try await harness.clock.perform { () async throws in
            let before = try await harness.auction() // the bundled configuration: no experiment
            #expect(before.experiment == nil)
            await harness.advance(to: 2)
            #expect(harness.engine.configurationVersion == 2)
            #expect(harness.engine.configuration.experiments.map(\.id) == ["remote_wf"])
            // The harness's install id 0011…eeff under salt remote-1: bucket 8268, variant draw
            // 7206 (B), unit f52f0301d756b312 (Python's hashlib, as in ExperimentAssignmentTests).
            let trace = try await harness.auction()
            #expect(trace.experiment == MediationEvent.ExperimentArm(experimentID: "remote_wf", variantID: "B", unit: "f52f0301d756b312"))
            #expect(trace.configVersion == 2)
            #expect(harness.recorder.count("exposure") == 1)
            #expect(await harness.shutdownAndCountAds())
        }
    }
}

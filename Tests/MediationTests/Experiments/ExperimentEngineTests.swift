import Foundation
@testable import Mediation
import MediationTestKit
import Testing

@Suite("Experiments in the engine: assignment, exposure, event fields")
struct ExperimentEngineTests {
    static let unitB = "dcfc7a8056d4e1f7" // s1 unit of ExperimentHarness.inB (hashlib)
    static let unitA = "52d74a6eea5d6a3b" // s1 unit of ExperimentHarness.inA (hashlib)

    @Test("the first auction of the placement exposes the install; that placement's events carry the experiment after it, and only after it")
    func exposureThenFields() async throws {
        let harness = try ExperimentHarness(installID: ExperimentHarness.inA)
        try await harness.loadAndShow("home") // not under the experiment
        #expect(harness.recorder.events.allSatisfy { $0.experiment == nil })
        #expect(harness.recorder.count("exposure") == 0)

        try await harness.loadAndShow("level_end")
        try await harness.loadAndShow("level_end")
        let events = harness.recorder.events
        let firstExposure = try #require(events.firstIndex { $0.name == "exposure" })
        #expect(harness.recorder.count("exposure") == 1, "one exposure, at the first auction only")
        #expect(events[firstExposure + 1].name == "auction_started")
        let arm = MediationEvent.ExperimentArm(experimentID: "wf", variantID: "A", unit: Self.unitA)
        for event in events[firstExposure...] where event.placementID == "level_end" {
            #expect(event.experiment == arm, "\(event)")
        }
        for event in events[..<firstExposure] {
            #expect(event.experiment == nil, "\(event)")
        }
        // Control's level_end is the configured one: NetB fills.
        #expect(harness.recorder.traces.last?.winner == "b1")
        #expect(harness.recorder.traces.last?.experiment == arm)

        let records = harness.records
        let exposure = try #require(records.first { $0["event"] as? String == "exposure" })
        #expect(exposure["placement"] as? String == "level_end")
        #expect(exposure["experiment"] as? String == "wf")
        #expect(exposure["variant"] as? String == "A")
        #expect(exposure["unit"] as? String == Self.unitA)
        #expect(exposure["day"] as? String == "2026-12-02")
        #expect(exposure["at_ms"] as? Double != nil)
        let shown = records.filter { $0["event"] as? String == "shown" }
        #expect(shown.count == 3)
        #expect(shown.allSatisfy { $0["day"] as? String == "2026-12-02" })
        #expect(shown.filter { $0["experiment"] as? String == "wf" }.count == 2, "the two level_end impressions, not home's")
        let finished = try #require(records.last { $0["event"] as? String == "auction_finished" })
        let trace = try #require(finished["trace"] as? [String: Any])
        #expect(trace["experiment"] as? String == "wf" && trace["variant"] as? String == "A" && trace["unit"] as? String == Self.unitA)
        await harness.shutdown()
    }

    @Test("an install assigned to a variant but never shown the placement is not exposed")
    func assignedButNotExposed() async throws {
        let harness = try ExperimentHarness(installID: ExperimentHarness.inB)
        for _ in 0..<3 { try await harness.loadAndShow("home") }
        _ = try await harness.oneShot("home")
        #expect(harness.recorder.count("exposure") == 0)
        #expect(harness.recorder.events.allSatisfy { $0.experiment == nil })
        #expect(harness.records.allSatisfy { $0["experiment"] == nil && $0["variant"] == nil && $0["unit"] == nil })
        await harness.shutdown()
    }

    @Test("variant B's override applies to its auctions (floor 1.0: NetB is not asked), one-shot auctions included")
    func variantOverrideApplies() async throws {
        let harness = try ExperimentHarness(installID: ExperimentHarness.inB)
        let outcome = try await harness.oneShot("level_end")
        #expect(outcome.trace.winner == nil)
        #expect(outcome.trace.experiment == MediationEvent.ExperimentArm(experimentID: "wf", variantID: "B", unit: Self.unitB))
        #expect(harness.recorder.names.prefix(2) == ["exposure", "auction_started"])
        await harness.shutdown()
    }

    @Test("outside the allocation: no variant (never control), the configured placement, no exposure, no fields")
    func outsideAllocation() async throws {
        let harness = try ExperimentHarness(installID: ExperimentHarness.outside)
        try await harness.loadAndShow("level_end")
        #expect(harness.recorder.traces.last?.winner == "b1")
        #expect(harness.recorder.count("exposure") == 0)
        #expect(harness.recorder.events.allSatisfy { $0.experiment == nil })
        await harness.shutdown()
    }

    @Test("before its start and from its end on the wall clock the experiment does nothing")
    func onlyBetweenStartAndEnd() async throws {
        for instant in ["2026-11-30T23:59:59Z", "2026-12-31T00:00:00Z"] {
            let time = try #require(WallClockTime(rfc3339: instant))
            let harness = try ExperimentHarness(installID: ExperimentHarness.inB, wallClock: Date(timeIntervalSince1970: Double(time.millisecondsSince1970) / 1000))
            let outcome = try await harness.oneShot("level_end")
            #expect(outcome.trace.winner == "b1", "\(instant)")
            #expect(harness.recorder.count("exposure") == 0, "\(instant)")
            await harness.shutdown()
        }
        // One millisecond after the start it runs.
        let harness = try ExperimentHarness(installID: ExperimentHarness.inB, wallClock: Date(timeIntervalSince1970: 1_796_083_200.001))
        #expect(try await harness.oneShot("level_end").trace.experiment?.variantID == "B")
        await harness.shutdown()
    }

    @Test("the assignment holds across configuration versions and relaunches on the same store")
    func stableAcrossVersionsAndRelaunches() async throws {
        let store = MemoryStateStore()
        let first = try ExperimentHarness(installID: ExperimentHarness.inB, store: store)
        #expect(try await first.oneShot("level_end").trace.experiment?.unit == Self.unitB)
        let newer = try MediationConfiguration(json: ExperimentHarness.configJSON(version: 2, netBECPM: "0.9"), registry: first.registry)
        try await first.engine.apply(newer, version: 2, source: .remote)
        let again = try await first.oneShot("level_end")
        #expect(again.trace.configVersion == 2)
        #expect(again.trace.experiment == MediationEvent.ExperimentArm(experimentID: "wf", variantID: "B", unit: Self.unitB))
        await first.shutdown()

        let relaunched = try ExperimentHarness(installID: nil, store: store)
        #expect(try await relaunched.oneShot("level_end").trace.experiment == MediationEvent.ExperimentArm(experimentID: "wf", variantID: "B", unit: Self.unitB))
        await relaunched.shutdown()
    }

    @Test("forgetUser() draws a new assignment from the new install id")
    func forgetUserReassigns() async throws {
        let harness = try ExperimentHarness(installID: ExperimentHarness.inB)
        #expect(try await harness.oneShot("level_end").trace.experiment?.unit == Self.unitB)
        let engine = harness.engine
        let forget = harness.clock.startTask { try? await engine.forgetUser() }
        await harness.clock.runUntilIdle()
        await forget.value
        let newID = String(decoding: try #require(try harness.store.data(forKey: InstallID.key)), as: UTF8.self)
        #expect(newID != ExperimentHarness.inB)
        let outcome = try await harness.oneShot("level_end")
        let experiment = try #require(harness.engine.configuration.experiments.first)
        if let variant = experiment.variant(of: newID) {
            #expect(outcome.trace.experiment == MediationEvent.ExperimentArm(experimentID: "wf", variantID: variant.id, unit: ExperimentAssignment.unit(salt: "s1", installID: newID)))
            #expect(harness.recorder.count("exposure") == 2, "the new unit is exposed anew")
        } else {
            #expect(outcome.trace.experiment == nil)
        }
        #expect(outcome.trace.experiment?.unit != Self.unitB)
        await harness.shutdown()
    }
}

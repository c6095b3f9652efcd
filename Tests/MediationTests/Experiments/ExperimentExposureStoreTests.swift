import Foundation
@testable import Mediation
import MediationTestKit
import Testing

@Suite("Exposures kept in the state store across relaunches")
struct ExperimentExposureStoreTests {
    /// `wf` on `level_end` for every install (allocation 100 %), so a new install id is always
    /// in a variant.
    static let everyone = """
    [ { "id": "wf", "salt": "s1", "start": "2026-12-01T00:00:00Z", "end": "2026-12-31T00:00:00Z",
        "allocation_bp": 10000,
        "variants": [ { "id": "A", "weight_bp": 5000 },
                      { "id": "B", "weight_bp": 5000, "placements": { "level_end": { "floor": 1.0 } } } ] } ]
    """

    static func storedRecords(_ store: any StateStore) throws -> [StoredExposures.Record] {
        try store.value(StoredExposures.Value.self, forKey: StoredExposures.key)?.records ?? []
    }

    static func forget(_ harness: ExperimentHarness) async {
        let engine = harness.engine
        let forget = harness.clock.startTask { try? await engine.forgetUser() }
        await harness.clock.runUntilIdle()
        await forget.value
    }

    @Test("the exposure is written once across two launches on the same store (placement and one-shot auctions)")
    func onceAcrossTwoLaunches() async throws {
        let store = MemoryStateStore()
        let first = try ExperimentHarness(installID: ExperimentHarness.inB, store: store)
        _ = try await first.oneShot("level_end")
        try await first.loadAndShow("level_end")
        #expect(first.recorder.count("exposure") == 1)
        let records = try Self.storedRecords(store)
        #expect(records == [StoredExposures.Record(experiment: "wf", placement: "level_end", variant: "B", unit: ExperimentEngineTests.unitB, wallMilliseconds: 1_796_220_000_000)])
        await first.shutdown()

        let second = try ExperimentHarness(installID: nil, store: store)
        try await second.loadAndShow("level_end")
        _ = try await second.oneShot("level_end")
        #expect(second.recorder.count("exposure") == 0, "the relaunch remembers the exposure")
        let arm = MediationEvent.ExperimentArm(experimentID: "wf", variantID: "B", unit: ExperimentEngineTests.unitB)
        let started = second.recorder.events.filter { $0.name == "auction_started" }
        #expect(started.count == 2 && started.allSatisfy { $0.experiment == arm }, "its events still carry the experiment")
        #expect(second.logger.warnings.isEmpty)
        await second.shutdown()
    }

    @Test("after forgetUser() the new install id is exposed again, once, and the old record is gone")
    func forgetUserExposesAgain() async throws {
        let store = MemoryStateStore()
        let config = ExperimentHarness.configJSON(experiments: Self.everyone)
        let first = try ExperimentHarness(installID: ExperimentHarness.inB, store: store, config: config)
        _ = try await first.oneShot("level_end")
        #expect(first.recorder.count("exposure") == 1)
        await Self.forget(first)
        #expect(try store.value(StoredExposures.Value.self, forKey: StoredExposures.key) == nil, "forgetUser() removes the exposures")
        _ = try await first.oneShot("level_end")
        _ = try await first.oneShot("level_end")
        #expect(first.recorder.count("exposure") == 2, "the new install id's first auction exposes it")
        let newUnit = try #require(first.recorder.events.last { $0.name == "exposure" }?.experiment?.unit)
        #expect(newUnit != ExperimentEngineTests.unitB)
        #expect(try Self.storedRecords(store).map(\.unit) == [newUnit])
        await first.shutdown()

        let second = try ExperimentHarness(installID: nil, store: store, config: config)
        _ = try await second.oneShot("level_end")
        #expect(second.recorder.count("exposure") == 0)
        #expect(second.recorder.events.first { $0.name == "auction_started" }?.experiment?.unit == newUnit)
        await second.shutdown()
    }

    @Test("a tampered exposures file is discarded with a warning and removed; the install is exposed again (and remembered again)")
    func tamperedFileTolerated() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("exposures-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try ExperimentHarness(installID: ExperimentHarness.inB, store: try FileStateStore(directory: directory))
        _ = try await first.oneShot("level_end")
        await first.shutdown()
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasPrefix("experiments.exposures") })
        let url = directory.appendingPathComponent(file)
        var bytes = try Data(contentsOf: url)
        let index = try #require(bytes.lastIndex(of: UInt8(ascii: "B")))
        bytes[index] = UInt8(ascii: "A") // the variant, as a hand would change it: the checksum fails
        try bytes.write(to: url)

        let second = try ExperimentHarness(installID: nil, store: try FileStateStore(directory: directory))
        let outcome = try await second.oneShot("level_end")
        #expect(outcome.trace.experiment?.variantID == "B", "the assignment comes from the install id, never from the stored record")
        #expect(second.logger.warnings.contains { $0.contains("stored experiment exposures were discarded") })
        #expect(second.recorder.count("exposure") == 1, "discarded means exposed again")
        await second.shutdown()

        let third = try ExperimentHarness(installID: nil, store: try FileStateStore(directory: directory))
        _ = try await third.oneShot("level_end")
        #expect(third.recorder.count("exposure") == 0)
        #expect(third.logger.warnings.isEmpty)
        await third.shutdown()
    }

    @Test("a well-formed value with a malformed unit or an oversized list is refused too", arguments: [
        #"{"version":1,"records":[{"experiment":"wf","placement":"level_end","variant":"B","unit":"not-a-unit","wall_ms":0}]}"#,
        #"{"version":2,"records":[]}"#,
        #"{"version":1,"records":[{"experiment":"wf","placement":"level_end","variant":"B","unit":"dcfc7a8056d4e1f7","wall_ms":0},{"experiment":"wf","placement":"level_end","variant":"A","unit":"dcfc7a8056d4e1f7","wall_ms":1}]}"#,
        "{\"version\":1,\"records\":[" + Array(repeating: #"{"experiment":"wf","placement":"level_end","variant":"B","unit":"dcfc7a8056d4e1f7","wall_ms":0}"#, count: 257).joined(separator: ",") + "]}",
    ])
    func refusedValues(json: String) async throws {
        let store = MemoryStateStore()
        try store.setData(Data(json.utf8), forKey: StoredExposures.key)
        let harness = try ExperimentHarness(installID: ExperimentHarness.inB, store: store)
        _ = try await harness.oneShot("level_end")
        #expect(harness.logger.warnings.contains { $0.contains("stored experiment exposures were discarded") })
        #expect(harness.recorder.count("exposure") == 1)
        #expect(try Self.storedRecords(store).count == 1)
        await harness.shutdown()
    }

    @Test("when written, records of experiments no longer in the configuration or past their end are dropped")
    func boundedWhenWritten() async throws {
        let store = MemoryStateStore()
        let two = """
        [ { "id": "wf", "salt": "s1", "start": "2026-12-01T00:00:00Z", "end": "2026-12-31T00:00:00Z", "allocation_bp": 10000,
            "variants": [ { "id": "A", "weight_bp": 5000 }, { "id": "B", "weight_bp": 5000, "placements": { "level_end": { "floor": 1.0 } } } ] },
          { "id": "short", "salt": "s2", "start": "2026-12-01T00:00:00Z", "end": "2026-12-05T00:00:00Z", "allocation_bp": 10000,
            "variants": [ { "id": "A", "weight_bp": 5000 }, { "id": "B", "weight_bp": 5000, "placements": { "home": { "floor": 0.5 } } } ] } ]
        """
        let first = try ExperimentHarness(installID: ExperimentHarness.inB, store: store, config: ExperimentHarness.configJSON(experiments: two))
        _ = try await first.oneShot("level_end")
        _ = try await first.oneShot("home")
        #expect(try Set(Self.storedRecords(store).map(\.experiment)) == ["wf", "short"])
        await first.shutdown()

        // Launched on December 6 (`short` ended) with `wf` replaced by `wf2` on level_end.
        let next = """
        [ { "id": "wf2", "salt": "s3", "start": "2026-12-06T00:00:00Z", "end": "2026-12-31T00:00:00Z", "allocation_bp": 10000,
            "variants": [ { "id": "A", "weight_bp": 5000 }, { "id": "B", "weight_bp": 5000, "placements": { "level_end": { "floor": 1.0 } } } ] },
          { "id": "short", "salt": "s2", "start": "2026-12-01T00:00:00Z", "end": "2026-12-05T00:00:00Z", "allocation_bp": 10000,
            "variants": [ { "id": "A", "weight_bp": 5000 }, { "id": "B", "weight_bp": 5000, "placements": { "home": { "floor": 0.5 } } } ] } ]
        """
        let december6 = Date(timeIntervalSince1970: 1_796_565_600) // 2026-12-06T14:00:00Z
        let second = try ExperimentHarness(installID: nil, store: store, wallClock: december6, config: ExperimentHarness.configJSON(experiments: next))
        _ = try await second.oneShot("level_end")
        #expect(second.recorder.count("exposure") == 1)
        #expect(try Self.storedRecords(store).map(\.experiment) == ["wf2"], "wf left the configuration, short ended")
        await second.shutdown()
    }

    @Test("at most 256 records are kept, the newest, one per experiment and placement")
    func capOnTheTotal() throws {
        let placements = (0..<300).map { "p\($0)" }
        let experiment = MediationConfiguration.Experiment(
            id: "wide", salt: "s", start: WallClockTime(millisecondsSince1970: 0), end: WallClockTime(millisecondsSince1970: 10_000),
            allocationBasisPoints: 10_000,
            variants: [.init(id: "A", weightBasisPoints: 5000), .init(id: "B", weightBasisPoints: 5000, placements: Dictionary(uniqueKeysWithValues: placements.map { ($0, MediationConfiguration.PlacementOverride(floor: 1)) }))]
        )
        var exposed: [String: StoredExposures.Record] = [:]
        for (index, placement) in placements.enumerated() {
            let record = StoredExposures.Record(experiment: "wide", placement: placement, variant: "B", unit: "0123456789abcdef", wallMilliseconds: Int64(index))
            exposed[record.slot] = record
        }
        let kept = StoredExposures.kept(exposed, under: [experiment], at: WallClockTime(millisecondsSince1970: 5_000))
        #expect(kept.count == StoredExposures.maximumRecords)
        let oldest = try #require(kept.map(\.wallMilliseconds).min())
        #expect(oldest == Int64(300 - StoredExposures.maximumRecords), "the newest 256 of 300")
        #expect(StoredExposures.Value(records: kept).problem == nil)
        #expect(StoredExposures.kept(exposed, under: [experiment], at: WallClockTime(millisecondsSince1970: 10_000)).isEmpty, "past its end")
    }
}

import Foundation
@testable import Mediation
import MediationTestKit

/// An engine whose configuration holds experiment `wf` (salt `s1`, December 2026, half the
/// installs, variants A and B 50/50; B raises `level_end`'s floor to 1.0 so that only NetA
/// could fill it) over scripted networks: NetA never fills, NetB fills at 0.8. So control's
/// `level_end` auctions are won by NetB and B's find no fill. `home` is not in the experiment.
///
/// Install ids (bucket and variant draw under `s1`, from Python's hashlib, see
/// ``ExperimentAssignmentTests``): `0123…` is in B, `0000…` in A, `ffff…` outside the allocation.
final class ExperimentHarness: Sendable {
    static let inB = "0123456789abcdef0123456789abcdef"
    static let inA = "00000000000000000000000000000000"
    static let outside = "ffffffffffffffffffffffffffffffff"
    /// 2026-12-02T14:00:00Z: inside the experiment.
    static let during = Date(timeIntervalSince1970: 1_796_220_000)

    /// A banner under `wf` when its variant B names it: NetB fills it, refresh 60 s.
    static let banner = """
    "home_banner": { "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 }, "refresh_seconds": 60,
      "sources": [ { "id": "b3", "network": "NetB", "ad_unit_id": "u-b3", "ecpm": 0.8 } ] }
    """

    static func configJSON(version: Int? = nil, experiments: String? = nil, netBECPM: String = "0.8", extraPlacements: [String] = []) -> String {
        let experiment = experiments ?? """
        [ { "id": "wf", "salt": "s1", "start": "2026-12-01T00:00:00Z", "end": "2026-12-31T00:00:00Z",
            "allocation_bp": 5000,
            "variants": [ { "id": "A", "weight_bp": 5000 },
                          { "id": "B", "weight_bp": 5000, "placements": { "level_end": { "floor": 1.0 } } } ] } ]
        """
        return """
        { \(version.map { "\"config_version\": \($0), " } ?? "")
          "networks": { "NetA": { "adapter": "prebuilt.NetA", "endpoint": "https://a.example.com" },
                        "NetB": { "adapter": "prebuilt.NetB", "endpoint": "https://b.example.com" } },
          "placements": {
            "level_end": { "format": "interstitial", "mode": "waterfall",
              "sources": [ { "id": "a1", "network": "NetA", "ad_unit_id": "u-a", "ecpm": 1.2 },
                           { "id": "b1", "network": "NetB", "ad_unit_id": "u-b", "ecpm": \(netBECPM) } ] },
            "home": { "format": "interstitial",
              "sources": [ { "id": "b2", "network": "NetB", "ad_unit_id": "u-b2", "ecpm": 0.8 } ] }\(extraPlacements.map { ", " + $0 }.joined()) },
          "experiments": \(experiment) }
        """
    }

    let clock = ManualClock()
    let recorder = EventRecorder()
    let store: any StateStore
    let wall: Locked<Date>
    let registry: NetworkRegistry
    let engine: MediationEngine
    let logger = RecordingLogger()

    /// Builds the engine on `store` (holding `installID` unless it holds one already).
    init(installID: String?, store: any StateStore = MemoryStateStore(), wallClock: Date = ExperimentHarness.during, config: String = ExperimentHarness.configJSON(), requestTemplate: RequestTemplate = RequestTemplate()) throws {
        self.store = store
        if let installID, (try? store.data(forKey: InstallID.key)) == nil {
            try store.setData(Data(installID.utf8), forKey: InstallID.key)
        }
        var networks = PrebuiltNetworks()
        networks.add("NetA", pricing: .fixedPrice, adapter: ScriptedAdapter(network: "NetA", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(50), .noFill)]))
        networks.add("NetB", pricing: .fixedPrice, adapter: ScriptedAdapter(network: "NetB", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(50), .fill)]))
        registry = networks.registry
        let wall = Locked(wallClock)
        self.wall = wall
        engine = try MediationEngine(
            configuration: MediationConfiguration(json: config, registry: networks.registry),
            registry: networks.registry,
            environment: MediationEnvironment(clock: clock, logger: logger, requestTemplate: requestTemplate, wallClock: { wall.withLock { $0 } }, stateStore: store),
            onEvent: recorder.handler
        )
    }

    /// Runs one one-shot auction of `placementID` and returns its outcome (the winner released).
    func oneShot(_ placementID: String) async throws -> MediationEngine.AuctionOutcome {
        let engine = engine
        let task = clock.startTask { await engine.runAuction(placementID: placementID) }
        await clock.advance(by: .seconds(5))
        guard let outcome = await task.value else { throw CancellationError() }
        outcome.winner?.ad.releaseResources()
        return outcome
    }

    /// Loads `placementID`'s controller and shows its ad, if one loaded.
    func loadAndShow(_ placementID: String) async throws {
        guard let placement = engine.placement(placementID) else { throw CancellationError() }
        let task = clock.startTask { await placement.load() }
        await clock.advance(by: .seconds(5))
        if case .loaded(let ad) = await task.value {
            _ = await placement.reportShown(ad.ad)
            // The user closes a full-screen ad; the next one waits out the gap between two.
            await placement.reportDismissed(ad.ad)
            await clock.advance(by: .seconds(Int64(MediationConfiguration.AppSettings.defaultFullScreenGapSeconds)))
        }
    }

    /// The NDJSON lines of the events recorded so far, decoded as objects.
    var records: [[String: Any]] {
        recorder.events.compactMap { event in
            MediationEvent.NDJSONWriter.line(for: event).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
    }

    func shutdown() async {
        let engine = engine
        let task = clock.startTask { await engine.shutdown() }
        await clock.runUntilIdle()
        await task.value
    }
}

import Foundation
@testable import Mediation
import MediationTestKit
import Testing

@Suite("A variant's or a segment's refresh_seconds drives the placement's refresh timer")
struct OverrideRefreshTests {
    /// `wf` on `home_banner` only: variant B refreshes every 45 s, A at the banner's 60 s.
    static let bannerExperiment = """
    [ { "id": "wf", "salt": "s1", "start": "2026-12-01T00:00:00Z", "end": "2026-12-31T00:00:00Z",
        "allocation_bp": 5000,
        "variants": [ { "id": "A", "weight_bp": 5000 },
                      { "id": "B", "weight_bp": 5000, "placements": { "home_banner": { "refresh_seconds": 45 } } } ] } ]
    """

    /// The instants (s) of `home_banner`'s auction starts.
    static func starts(_ recorder: EventRecorder) -> [Double] {
        recorder.events.filter { $0.name == "auction_started" && $0.placementID == "home_banner" }.map { $0.instant.milliseconds / 1000 }
    }

    /// Attaches a visible view to `home_banner` at 0 (NetB fills after 50 ms) and moves the
    /// clock to `seconds`.
    static func show(_ harness: ExperimentHarness, until seconds: [Double]) async throws -> [[Double]] {
        let placement = try #require(harness.engine.placement("home_banner"))
        _ = await placement.attachView(visible: true)
        var seen: [[Double]] = []
        for second in seconds {
            await harness.clock.advance(to: .origin + .milliseconds(Int64((second * 1000).rounded())))
            seen.append(starts(harness.recorder))
        }
        return seen
    }

    @Test("variant B (refresh_seconds 45) refreshes 45 s after its ad arrived; control A at the banner's 60 s")
    func variantRefresh() async throws {
        let config = ExperimentHarness.configJSON(experiments: Self.bannerExperiment, extraPlacements: [ExperimentHarness.banner])
        let b = try ExperimentHarness(installID: ExperimentHarness.inB, config: config)
        let seenB = try await Self.show(b, until: [1, 45.049, 45.05])
        #expect(seenB == [[0], [0], [0, 45.05]])
        #expect(await b.engine.placement("home_banner")?.refreshInterval == .seconds(45))
        let firstDue = b.recorder.events.lazy.compactMap { event -> MediationInstant? in
            guard case .refreshScheduled(_, let due, _, _, _) = event else { return nil }
            return due
        }.first
        #expect(firstDue == .origin + .milliseconds(45_050))
        await b.shutdown()

        let a = try ExperimentHarness(installID: ExperimentHarness.inA, config: config)
        let seenA = try await Self.show(a, until: [45.05, 60.049, 60.05])
        #expect(seenA == [[0], [0], [0, 60.05]])
        #expect(await a.engine.placement("home_banner")?.refreshInterval == .seconds(60))
        await a.shutdown()
    }

    @Test("a segment's refresh_seconds drives the timer for its audience; the default keeps the placement's")
    func segmentRefresh() async throws {
        let banner = """
        "home_banner": { "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 }, "refresh_seconds": 60,
          "segments": [ { "id": "us", "when": { "country": { "in": ["US"] } }, "refresh_seconds": 30 }, { "id": "rest" } ],
          "sources": [ { "id": "b3", "network": "NetB", "ad_unit_id": "u-b3", "ecpm": 0.8 } ] }
        """
        let config = ExperimentHarness.configJSON(extraPlacements: [banner])
        let us = try ExperimentHarness(installID: ExperimentHarness.outside, config: config, requestTemplate: RequestTemplate(device: AdRequest.Device(country: "US")))
        #expect(try await Self.show(us, until: [30.049, 30.05]) == [[0], [0, 30.05]])
        await us.shutdown()

        let france = try ExperimentHarness(installID: ExperimentHarness.outside, config: config, requestTemplate: RequestTemplate(device: AdRequest.Device(country: "FR")))
        #expect(try await Self.show(france, until: [30.05, 60.049, 60.05]) == [[0], [0], [0, 60.05]])
        await france.shutdown()
    }
}

import Mediation
import MediationTestKit
import Testing

/// Engine rules, scenario 12 (refresh values), on a manual clock with auctions of 100 ms. The
/// config-error half (10, 29, 30.5 and "60") is in `ConfigurationLoaderTests`.
@Suite("Scenario 12: refresh times")
struct RefreshValueScenarioTests {
    @Test(
        "30 refreshes at 30.100 and 60.200 s; absent at 60.100 and 120.200 s; 300 only at 300.100 s within 600 s",
        arguments: [
            (30 as Int?, [0, 30.1, 60.2, 90.3, 120.4, 150.5, 180.6, 210.7, 240.8, 270.9, 301.0, 331.1, 361.2, 391.3, 421.4, 451.5, 481.6, 511.7, 541.8, 571.9]),
            (nil, [0, 60.1, 120.2, 180.3, 240.4, 300.5, 360.6, 420.7, 480.8, 540.9]),
            (300, [0, 300.1]),
        ]
    )
    func refreshTimes(refreshSeconds: Int?, expectedStarts: [Double]) async throws {
        let fixture = try PlacementFixture(placement: PlacementFixture.homeBanner(refreshSeconds: refreshSeconds))
        try await fixture.clock.perform {
            let renderer = try fixture.renderEachNewAd()
            defer { renderer.cancel() }
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(600))
            #expect(fixture.auctionStarts == expectedStarts.map(at))
        }
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
import Adapters

/// Every standard network, built by its own factory from the shipped `Config/mediation.json` on
/// its in-process sandbox, run through ``AdapterConformance`` on virtual time.
@Suite("Standard networks conform to the adapter contract")
struct StandardNetworksConformanceTests {
    /// A network of the shipped config and the `home_banner` line item (its ad unit) that asks it.
    struct Case: Sendable, CustomTestStringConvertible {
        /// The network id in `Config/mediation.json`.
        var network: String
        /// The `home_banner` line item whose ad unit the request carries.
        var lineItem: String

        var testDescription: String { network }
    }

    /// Elo, Nitx, Qartvelo and the fallback (`admob_backfill`, fill rate 1, so every request
    /// fills and the checks see ads).
    static let cases: [Case] = [
        Case(network: "elo", lineItem: "home_banner_elo"),
        Case(network: "nitx", lineItem: "home_banner_nitx"),
        Case(network: "qartvelo", lineItem: "home_banner_qartvelo"),
        Case(network: "admob_backfill", lineItem: "home_banner_backfill"),
    ]

    @Test("the standard network conforms", arguments: cases)
    func conforms(_ testCase: Case) async throws {
        let configuration = try MediationConfiguration(contentsOf: RepositoryFiles.shippedConfiguration, registry: .standard)
        let network = try #require(configuration.network(testCase.network))
        #expect(network.endpoint == .sandbox)
        let placement = try #require(configuration.placement("home_banner"))
        let lineItem = try #require(placement.sources.first { $0.id == testCase.lineItem })
        let factory = try #require(NetworkRegistry.standard.factory(forKind: network.adapter))

        let clock = ManualClock()
        let adapter = try factory.makeAdapter(
            for: network,
            environment: MediationEnvironment(clock: clock, sandboxLatency: .milliseconds(90))
        )
        // A 390x90 anchored banner: Elo's strip (72 to 191 pt high), and a size every other
        // network serves.
        let request = AdRequest(
            placementID: placement.id,
            adUnitID: lineItem.adUnitID,
            format: .banner,
            bannerSizing: .anchored,
            slot: SlotSize(maxWidth: 390, maxHeight: 90),
            timeBudget: placement.deadline
        )
        // The network serves this request (so the checks below see ads, not only no-fills).
        var first = request
        first.deadline = clock.now + request.timeBudget
        let loaded = await clock.run { [first] in await adapter.loadAd(for: first) }
        let answer = try #require(loaded, "the first request answered")
        let ad = try #require(answer.ad, "the sandbox fills a 390x90 anchored banner: \(answer)")
        #expect(ad.format == .banner && ad.size.height <= 90)
        ad.releaseResources()

        let report = await AdapterConformance.check(adapter, clock: clock, request: request)
        #expect(report.failures == [])
        #expect(report.notes == [], "the adapter waits on the clock, so cancellation is checked")
        await adapter.shutdown()
    }
}

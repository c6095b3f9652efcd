import Foundation
import Mediation
import MediationTestKit
import Testing

@Suite("debug recording in the engine")
struct AdapterCallRecordingTests {
    /// Reports the source attribution it sees inside `loadAd`, then answers as scripted.
    private struct AttributionProbe: AdNetworkAdapter {
        let base: ScriptedAdapter
        let seen: Locked<[SourceAttribution?]>

        func loadAd(for request: AdRequest) async -> AdLoadResult {
            seen.withLock { $0.append(SourceAttribution.current) }
            return await base.loadAd(for: request)
        }
    }

    /// Counts the host's "forget this user" calls it hears.
    private struct ForgetProbe: AdNetworkAdapter {
        let forgotten: Locked<Int>
        func loadAd(for request: AdRequest) async -> AdLoadResult { .noFill(.noInventory) }
        func forgetUser() async { forgotten.withLock { $0 += 1 } }
    }

    @Test("with a recorder (mediate --debug) the host's forgetUser still reaches every network")
    func forgetUserReachesTheNetworkThroughTheRecorder() async throws {
        let clock = ManualClock()
        let forgotten = Locked(0)
        var networks = PrebuiltNetworks()
        networks.add("net", pricing: .fixedPrice, adapter: ForgetProbe(forgotten: forgotten))
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, sources: [.fixedPrice("f", network: "net", adUnitID: "u", eCPM: 1)])
        let engine = try MediationEngine(
            configuration: networks.configuration(placements: [placement]),
            registry: networks.registry,
            environment: MediationEnvironment(clock: clock, exchangeRecorder: HTTPExchangeRecorder())
        )
        try await clock.perform { try await engine.forgetUser() }
        #expect(forgotten.withLock { $0 } == 1)
    }

    @Test("with a recorder the engine records every loadAd with its source, request summary and answer; the auction tags each call with its source")
    func recordsCalls() async throws {
        let clock = ManualClock()
        let seen = Locked<[SourceAttribution?]>([])
        var networks = PrebuiltNetworks()
        networks.add("bidnet", pricing: .bidder, adapter: AttributionProbe(base: ScriptedAdapter(network: "bidnet", pricing: .bidder, clock: clock) { _, _ in .after(.milliseconds(50), .bid(2)) }, seen: seen))
        networks.add("fixnet", pricing: .fixedPrice, adapter: ScriptedAdapter(network: "fixnet", pricing: .fixedPrice, clock: clock) { _, _ in .after(.milliseconds(80), .noFill) })
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, sources: [
            .bidder("b", network: "bidnet", adUnitID: "unit-b"),
            .fixedPrice("f", network: "fixnet", adUnitID: "unit-f", eCPM: 1),
        ])
        let recorder = HTTPExchangeRecorder()
        var privacy = AdRequest.Privacy()
        privacy.coppa = true
        let engine = try MediationEngine(
            configuration: networks.configuration(placements: [placement]),
            registry: networks.registry,
            environment: MediationEnvironment(clock: clock, requestTemplate: RequestTemplate(privacy: privacy), exchangeRecorder: recorder)
        )
        let task = clock.startTask { await engine.runAuction(placementID: "p") }
        await clock.runUntilIdle()
        await clock.advance(by: .milliseconds(100))
        let outcome = try #require(await task.value)
        #expect(outcome.trace.winner == "b")
        #expect(seen.withLock { $0 } == [SourceAttribution(auctionID: outcome.trace.auctionID, placementID: "p", lineItemID: "b")])

        let calls = recorder.adapterCalls.sorted { $0.networkID < $1.networkID }
        #expect(calls.map(\.networkID) == ["bidnet", "fixnet"])
        #expect(calls.map { $0.source?.lineItemID } == ["b", "f"])
        #expect(calls.map(\.result) == ["bid 2.0", "no_fill (noInventory)"]) // the fixed-price source, cancelled at 50 ms, answers anyway at 80
        #expect(calls[0].endedAt == MediationInstant(offset: .milliseconds(50)))
        let summary = try #require(try JSONSerialization.jsonObject(with: calls[1].request) as? [String: Any])
        #expect(summary["ad_unit_id"] as? String == "unit-f")
        #expect((summary["privacy"] as? [String: Any])?["coppa"] as? Int == 1)
        #expect(summary["time_budget_ms"] as? Double == 3000)
        await engine.shutdown()
    }

    @Test("without a recorder the auction sets no source attribution (it costs nothing when not debugging)")
    func noRecorderNoAttribution() async throws {
        let clock = ManualClock()
        let seen = Locked<[SourceAttribution?]>([])
        var networks = PrebuiltNetworks()
        networks.add("bidnet", pricing: .bidder, adapter: AttributionProbe(base: ScriptedAdapter(network: "bidnet", pricing: .bidder, clock: clock) { _, _ in .after(.milliseconds(50), .bid(2)) }, seen: seen))
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, sources: [.bidder("b", network: "bidnet", adUnitID: "unit-b")])
        let engine = try MediationEngine(configuration: networks.configuration(placements: [placement]), registry: networks.registry, environment: MediationEnvironment(clock: clock))
        let task = clock.startTask { await engine.runAuction(placementID: "p") }
        await clock.runUntilIdle()
        await clock.advance(by: .milliseconds(100))
        let outcome = try #require(await task.value)
        #expect(outcome.trace.winner == "b")
        #expect(seen.withLock { $0 } == [nil])
    }
}

import Mediation
import MediationTestKit
import Testing

/// The engine attributes each warning an adapter logs to the source whose
/// request raised it (``SourceAttribution``), with no matching of log sources: two line items of
/// one network each get only their own.
@Suite struct AdapterWarningAttributionTests {
    /// Logs a warning naming the request's ad unit, then fills after `latency` (or a moment
    /// after the auction's decision for unit `slow`), through the logger the engine gives it.
    struct WarningAdapter: AdNetworkAdapter {
        let clock: any MediationClock
        let logger: any MediationLogger

        func loadAd(for request: AdRequest) async -> AdLoadResult {
            logger.warning("odd answer for \(request.adUnitID)", source: "warner")
            let latency: Duration = request.adUnitID == "slow" ? .milliseconds(900) : .milliseconds(50)
            try? await clock.sleep(until: clock.now + latency)
            return .fill(ScriptedAd(id: "ad-\(request.adUnitID)", network: "warner", format: request.format))
        }
    }

    struct WarningFactory: NetworkAdapterFactory {
        var kind: String { "warner" }
        var pricing: LineItem.Pricing { .fixedPrice }
        func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
            WarningAdapter(clock: environment.clock, logger: environment.logger)
        }
    }

    @Test func eachWarningIsOnTheLineOfTheSourceWhoseRequestRaisedIt() async throws {
        let clock = ManualClock()
        let logger = RecordingLogger()
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, sources: [
            .fixedPrice("first", network: "warner", adUnitID: "one", eCPM: 2),
            .fixedPrice("second", network: "warner", adUnitID: "two", eCPM: 1),
            .fixedPrice("third", network: "warner", adUnitID: "slow", eCPM: 0.5),
        ])
        let configuration = MediationConfiguration(networks: [MediationConfiguration.Network(id: "warner", adapter: "warner")], placements: [placement])
        let engine = try MediationEngine(configuration: configuration, registry: NetworkRegistry([WarningFactory()]), environment: MediationEnvironment(clock: clock, logger: logger))
        let task = clock.startTask { await engine.runAuction(placementID: "p") }
        await clock.runUntilIdle()
        await clock.advance(by: .milliseconds(100))
        let outcome = try #require(await task.value)
        outcome.winner?.ad.releaseResources()
        let warnings = Dictionary(uniqueKeysWithValues: outcome.trace.sources.map { ($0.lineItemID, $0.warnings.map(\.message)) })
        #expect(warnings["first"] == ["odd answer for one"])
        #expect(warnings["second"] == ["odd answer for two"])
        // Cancelled before it answered (the winner was known at 50 ms): it keeps what it logged.
        #expect(warnings["third"] == ["odd answer for slow"])
        #expect(outcome.trace.sources.allSatisfy { $0.warnings.allSatisfy { $0.code == TraceIssues.adapterWarningCode } })
        // The host's logger hears every line, unchanged.
        #expect(logger.lines.filter { $0.level == .warning }.count == 3)
        await clock.advance(by: .seconds(1))
        await engine.shutdown()
    }
}

import Mediation
import MediationTestKit
import Testing

/// A ``MediationEngine`` over scripted adapters on a manual clock: how the tests get auctions
/// and placements, the one way a host does. Each scripted adapter serves the network named by
/// its ``ScriptedAdapter/network`` with its ``ScriptedAdapter/pricing``.
struct TestEngine: Sendable {
    let clock: ManualClock
    let engine: MediationEngine
    let recorder: EventRecorder
    let logger: RecordingLogger

    /// Builds the engine.
    /// - Throws: the engine's ``ConfigurationError`` (a test mistake).
    init(
        placements: [MediationConfiguration.Placement],
        adapters: [ScriptedAdapter],
        clock: ManualClock,
        networkTimeouts: [String: Duration] = [:],
        requestTemplate: RequestTemplate = RequestTemplate(),
        hostContext: @escaping @Sendable (String) -> AdRequest.Context = { _ in AdRequest.Context() },
        currencyRates: [String: Double] = [:]
    ) throws {
        var networks = PrebuiltNetworks()
        for adapter in adapters {
            networks.add(adapter.network, pricing: adapter.pricing, adapter: adapter, timeout: networkTimeouts[adapter.network])
        }
        let recorder = EventRecorder()
        let logger = RecordingLogger()
        self.clock = clock
        self.recorder = recorder
        self.logger = logger
        engine = try MediationEngine(
            configuration: networks.configuration(placements: placements, currencyRates: currencyRates),
            registry: networks.registry,
            environment: MediationEnvironment(clock: clock, logger: logger, requestTemplate: requestTemplate),
            hostContext: hostContext,
            onEvent: recorder.handler
        )
    }

    /// Starts a one-shot auction of `placementID` as a task on the clock; the work due now
    /// (the requests) has run when this returns.
    func startAuction(_ placementID: String) async -> Task<MediationEngine.AuctionOutcome?, Never> {
        let engine = engine
        let task = clock.startTask { await engine.runAuction(placementID: placementID) }
        await clock.runUntilIdle()
        return task
    }

    /// Runs a one-shot auction of `placementID` from the clock's current instant, moving the
    /// clock to `until` (from the origin).
    /// - Throws: when the engine has no such placement (a test mistake).
    func runAuction(_ placementID: String, until: Duration = .seconds(10)) async throws -> MediationEngine.AuctionOutcome {
        let task = await startAuction(placementID)
        await clock.advance(to: .origin + until)
        return try #require(await task.value)
    }

    /// The late answers the engine reported, in order.
    var lateAnswers: [MediationEvent.LateAnswer] {
        recorder.events.compactMap { event in
            if case .lateAnswer(let late) = event { return late }
            return nil
        }
    }
}

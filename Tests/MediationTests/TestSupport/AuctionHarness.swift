import Mediation
import MediationTestKit
import Testing

/// The base configuration of the engine rules' scenarios (`docs/engine-rules.md`, section 4):
/// placement `level_end` (interstitial, parallel, deadline 3000 ms) with `Bid` (bidder, floor
/// 0.50), `NetA` (fixed 1.20) and `NetB` (fixed 0.80), each answering by a script on a manual
/// clock, run through a ``MediationEngine``.
struct AuctionHarness {
    let clock = ManualClock()
    let bid: ScriptedAdapter
    let netA: ScriptedAdapter
    let netB: ScriptedAdapter
    let engine: TestEngine?

    init(
        bid: [ScriptedAnswer],
        netA: [ScriptedAnswer],
        netB: [ScriptedAnswer],
        mode: MediationConfiguration.Placement.AuctionMode = .parallel,
        deadline: Duration = .milliseconds(3000),
        placementFloor: Double? = nil,
        netATimeout: Duration? = nil
    ) {
        self.bid = ScriptedAdapter(network: "Bid", pricing: .bidder, clock: clock, script: bid)
        self.netA = ScriptedAdapter(network: "NetA", pricing: .fixedPrice, clock: clock, script: netA)
        self.netB = ScriptedAdapter(network: "NetB", pricing: .fixedPrice, clock: clock, script: netB)
        let placement = MediationConfiguration.Placement(
            id: "level_end",
            format: .interstitial,
            deadline: deadline,
            floor: placementFloor,
            mode: mode,
            sources: [
                .bidder("Bid", floor: 0.50),
                .fixedPrice("NetA", eCPM: 1.20, timeout: netATimeout),
                .fixedPrice("NetB", eCPM: 0.80),
            ]
        )
        do {
            engine = try TestEngine(placements: [placement], adapters: [self.bid, self.netA, self.netB], clock: clock)
        } catch {
            Issue.record("the harness's engine could not be built: \(error)")
            engine = nil
        }
    }

    /// Starts an auction at the clock's current instant and returns its task once the work due
    /// now has run (the auction has asked the sources it asks at once).
    func start() async -> Task<MediationEngine.AuctionOutcome, Never> {
        let engine = engine
        let task = clock.startTask { await engine?.engine.runAuction(placementID: "level_end") ?? AuctionHarness.missing }
        await clock.runUntilIdle()
        return task
    }

    /// Runs one auction from the clock's current instant, advancing the clock to `until`.
    func run(until: Duration = .seconds(10)) async -> MediationEngine.AuctionOutcome {
        let task = await start()
        await clock.advance(to: .origin + until)
        return await task.value
    }

    /// Total requests made to the three sources.
    var requestCount: Int { bid.requestCount + netA.requestCount + netB.requestCount }

    /// The late answers the engine reported.
    var lateAnswers: [MediationEvent.LateAnswer] { engine?.lateAnswers ?? [] }

    /// The outcome returned when the engine is missing (the harness already recorded an issue).
    static let missing = MediationEngine.AuctionOutcome(winner: nil, trace: AuctionTrace(auctionID: "", placementID: "level_end", mode: .parallel, startedAtMilliseconds: 0, endedAtMilliseconds: 0, deadlineMilliseconds: 0, winner: nil, winningECPM: nil, sources: []))
}

extension MediationEngine.AuctionOutcome {
    /// The auction's end in milliseconds from the clock's origin.
    var endedAt: Double { trace.endedAtMilliseconds }

    /// The outcome of a line item.
    func outcome(of lineItem: String) -> SourceOutcome? { trace.source(lineItem)?.outcome }
}

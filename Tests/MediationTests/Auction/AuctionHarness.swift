import Mediation
import MediationTestSupport

/// The base configuration of engine-rules.md §4: placement `level_end` (interstitial,
/// parallel, deadline 3000 ms) with `Bid` (bidder, floor 0.50), `NetA` (fixed 1.20) and
/// `NetB` (fixed 0.80), each answering by a script on a manual clock.
struct AuctionHarness {
    let clock = ManualClock()
    let bid: ScriptedAdapter
    let netA: ScriptedAdapter
    let netB: ScriptedAdapter
    let auction: Auction
    let lateAnswers = Locked<[LateAnswer]>([])

    init(
        bid: [ScriptedAnswer],
        netA: [ScriptedAnswer],
        netB: [ScriptedAnswer],
        mode: AuctionMode = .parallel,
        deadline: Duration = .milliseconds(3000),
        placementFloor: Double? = nil,
        netATimeout: Duration? = nil
    ) {
        self.bid = ScriptedAdapter(network: "Bid", pricing: .bidder, clock: clock, script: bid)
        self.netA = ScriptedAdapter(network: "NetA", pricing: .fixedPrice, clock: clock, script: netA)
        self.netB = ScriptedAdapter(network: "NetB", pricing: .fixedPrice, clock: clock, script: netB)
        let placement = PlacementConfiguration(
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
        auction = Auction(
            placement: placement,
            sources: [
                AuctionSource(lineItem: placement.sources[0], adapter: self.bid),
                AuctionSource(lineItem: placement.sources[1], adapter: self.netA),
                AuctionSource(lineItem: placement.sources[2], adapter: self.netB),
            ],
            clock: clock
        )
    }

    /// Starts an auction at the clock's current instant and returns its task once the
    /// auction has made `expectedRequests` more requests.
    func start(expectedRequests: Int = 3) async -> Task<AuctionOutcome, Never> {
        let before = requestCount
        let auction = auction
        let lateAnswers = lateAnswers
        let task = Task {
            await auction.run(request: AdRequest(placementID: "level_end", format: .interstitial)) { answer in
                lateAnswers.withLock { $0.append(answer) }
            }
        }
        await clock.settle { requestCount >= before + expectedRequests }
        return task
    }

    /// Runs one auction from the clock's current instant, advancing the clock to `until`.
    func run(until: Duration = .seconds(10), expectedRequests: Int = 3) async -> AuctionOutcome {
        let task = await start(expectedRequests: expectedRequests)
        await clock.advance(to: .origin + until)
        return await task.value
    }

    /// Total requests made to the three sources.
    var requestCount: Int { bid.requestCount + netA.requestCount + netB.requestCount }
}

extension AuctionOutcome {
    /// The auction's end in milliseconds from the clock's origin.
    var endedAt: Double { trace.endedAtMilliseconds }

    /// The outcome of a line item.
    func outcome(of lineItem: String) -> SourceOutcome? { trace.source(lineItem)?.outcome }
}

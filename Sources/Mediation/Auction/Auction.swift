/// One source of an auction: its line item and the adapter that speaks to its network.
public struct AuctionSource: Sendable {
    /// The line item (id, network, pricing, eCPM, floor, timeout).
    public var lineItem: LineItem
    /// The network's adapter.
    public var adapter: any AdNetworkAdapter

    /// Pairs a line item with its adapter.
    public init(lineItem: LineItem, adapter: any AdNetworkAdapter) {
        self.lineItem = lineItem
        self.adapter = adapter
    }
}

/// Runs auctions for one placement: races its sources under the deadline by engine rules R1
/// to R9 and returns the winner with a trace.
public struct Auction: Sendable {
    /// The placement.
    public var placement: PlacementConfiguration
    /// Its sources, in config order.
    public var sources: [AuctionSource]
    /// The clock.
    public var clock: any MediationClock

    /// Creates an auction runner.
    public init(placement: PlacementConfiguration, sources: [AuctionSource], clock: any MediationClock) {
        self.placement = placement
        self.sources = sources
        self.clock = clock
    }

    /// Runs one auction. PLACEHOLDER: the real implementation lands with the core issue.
    public func run(request: AdRequest, excluding excludedLineItems: Set<String> = [], onLateAnswer: (@Sendable (LateAnswer) -> Void)? = nil) async -> AuctionOutcome {
        let now = clock.now
        return AuctionOutcome(winner: nil, trace: AuctionTrace(auctionID: "placeholder", placementID: placement.id, mode: placement.mode, startedAtMilliseconds: now.milliseconds, endedAtMilliseconds: now.milliseconds, deadlineMilliseconds: (now + placement.deadline).milliseconds, winner: nil, winningECPM: nil, sources: []))
    }
}

/// Per-network and per-line-item figures over a run, built from the engine's events: feed it
/// every ``MediationEvent`` (or traces and impressions directly) and read ``networks`` and
/// ``lineItems``. A plain value: keep it where the events arrive (e.g. in a `Locked` box or an
/// actor). See ``MediationStatistics/Figures`` for what each figure counts and the percentile method.
///
/// ```swift
/// var statistics = MediationStatistics()
/// for await event in engine.events() { statistics.record(event) }
/// for row in statistics.networks { print(row.id, row.fillRate ?? 0, row.latencyP95Milliseconds ?? 0) }
/// ```
package struct MediationStatistics: Sendable {
    private struct Tally {
        var network: String
        var requests = 0
        var fills = 0
        var wins = 0
        var timeouts = 0
        var errors = 0
        var impressions = 0
        var revenueUSD = 0.0
        var latencies: [Double] = []

        mutating func add(_ source: AuctionTrace.Source) {
            guard source.startOffsetMilliseconds != nil else { return }
            requests += 1
            switch source.outcome.status {
            case "won":
                wins += 1
                fills += 1
            case "lost":
                if source.adID != nil { fills += 1 }
            case "timeout":
                timeouts += 1
            case "error":
                errors += 1
            default:
                break
            }
            if let latency = source.latencyMilliseconds, latency.isFinite { latencies.append(latency) }
        }

        func row(id: String) -> MediationStatistics.Figures {
            MediationStatistics.Figures(
                id: id, network: network, requests: requests, fills: fills, wins: wins, timeouts: timeouts, errors: errors,
                impressions: impressions, revenueUSD: revenueUSD,
                fillRate: requests > 0 ? Double(fills) / Double(requests) : nil,
                winRate: fills > 0 ? Double(wins) / Double(fills) : nil,
                latencyP50Milliseconds: MediationStatistics.Figures.nearestRank(50, of: latencies),
                latencyP95Milliseconds: MediationStatistics.Figures.nearestRank(95, of: latencies),
                latencyP99Milliseconds: MediationStatistics.Figures.nearestRank(99, of: latencies)
            )
        }
    }

    private var networkTallies: [String: Tally] = [:]
    private var networkOrder: [String] = []
    private var lineItemTallies: [String: Tally] = [:]
    private var lineItemOrder: [String] = []

    /// Auctions recorded.
    public private(set) var auctions = 0
    /// Auctions that had a winner.
    public private(set) var filledAuctions = 0
    /// Impressions recorded.
    public private(set) var impressions = 0
    /// Revenue of the impressions, USD.
    public private(set) var revenueUSD = 0.0
    /// Late answers recorded (``MediationEvent/lateAnswer(_:)``).
    public private(set) var lateAnswers = 0

    /// Creates empty statistics.
    public init() {}

    /// Records what `event` says: a finished auction's trace, an impression, a late answer;
    /// other events change nothing.
    /// - Parameter event: an engine event.
    public mutating func record(_ event: MediationEvent) {
        switch event {
        case .auctionFinished(_, let trace, _):
            record(trace)
        case .shown(let impression, _):
            record(impression)
        case .lateAnswer:
            lateAnswers += 1
        case .auctionStarted, .adLoaded, .clicked, .retired, .released, .expired, .renderFailed, .refreshScheduled, .configuration, .placementRemoved, .networkPaused, .networkResumed, .exposure, .capped:
            break
        }
    }

    /// Records one auction: every asked source's outcome and latency.
    /// - Parameter trace: the auction's trace.
    public mutating func record(_ trace: AuctionTrace) {
        auctions += 1
        if trace.winner != nil { filledAuctions += 1 }
        for source in trace.sources {
            Self.update(&networkTallies, order: &networkOrder, key: source.network, network: source.network) { $0.add(source) }
            Self.update(&lineItemTallies, order: &lineItemOrder, key: source.lineItemID, network: source.network) { $0.add(source) }
        }
    }

    /// Records one impression and its revenue for its network and line item.
    /// - Parameter impression: the impression.
    public mutating func record(_ impression: MediationEvent.Impression) {
        impressions += 1
        revenueUSD += impression.revenueUSD
        let add: (inout Tally) -> Void = { tally in
            tally.impressions += 1
            tally.revenueUSD += impression.revenueUSD
        }
        Self.update(&networkTallies, order: &networkOrder, key: impression.network, network: impression.network, add)
        Self.update(&lineItemTallies, order: &lineItemOrder, key: impression.lineItemID, network: impression.network, add)
    }

    /// One row per network, in the order they first appeared.
    public var networks: [MediationStatistics.Figures] {
        networkOrder.compactMap { key in networkTallies[key]?.row(id: key) }
    }

    /// One row per line item id, in the order they first appeared (a line item id is unique within
    /// a placement; rows of equal ids from different placements are merged).
    public var lineItems: [MediationStatistics.Figures] {
        lineItemOrder.compactMap { key in lineItemTallies[key]?.row(id: key) }
    }

    private static func update(_ tallies: inout [String: Tally], order: inout [String], key: String, network: String, _ change: (inout Tally) -> Void) {
        if tallies[key] == nil {
            tallies[key] = Tally(network: network)
            order.append(key)
        }
        if var tally = tallies[key] {
            change(&tally)
            tallies[key] = tally
        }
    }
}

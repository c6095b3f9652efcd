import Mediation

/// Three percentiles of a time in whole milliseconds (nearest rank; `nil` with no values).
public struct Percentiles: Hashable, Sendable, Codable {
    /// The median.
    public var p50: Int?
    /// The 95th percentile.
    public var p95: Int?
    /// The 99th percentile.
    public var p99: Int?

    /// Creates percentiles.
    public init(p50: Int?, p95: Int?, p99: Int?) {
        self.p50 = p50
        self.p95 = p95
        self.p99 = p99
    }

    init(histogram: [Int]) {
        p50 = Estimators.percentile(0.50, of: histogram)
        p95 = Estimators.percentile(0.95, of: histogram)
        p99 = Estimators.percentile(0.99, of: histogram)
    }
}

/// What one source (line item), or all the sources of one network, did over a run.
public struct SourceFigures: Hashable, Sendable, Codable {
    /// The line item id (for a network's figures, `nil`).
    public var lineItemID: String?
    /// The network id.
    public var network: String
    /// Requests made to it.
    public var asked: Int
    /// Auctions in which it was not asked (a waterfall tier never reached, a fixed eCPM under
    /// the placement's floor).
    public var notAsked: Int
    /// Ads it brought that took part in the auction (`won` or `lost`).
    public var fills: Int
    /// Auctions it won (impressions).
    public var wins: Int
    /// Its share of the filled auctions: wins ÷ filled.
    public var winShare: Double
    /// Requests it did not answer by its limit (`timeout`, or `late` at the limit instant).
    public var timeouts: Int
    /// Requests that failed (`error`).
    public var errors: Int
    /// No-fills.
    public var noFills: Int
    /// Requests cancelled because it could no longer win.
    public var cancelled: Int
    /// Auctions in which it was not asked because its network was paused (R24); also in
    /// ``notAsked``.
    public var paused: Int
    /// The revenue of its wins at their realised prices, USD.
    public var revenueUSD: Double
    /// The revenue of its wins at the prices the engine knows (bids, configured eCPMs), USD.
    public var knownRevenueUSD: Double
    /// Its time to answer (any answer the engine saw, whatever it was), in 10 ms steps: `180`
    /// means 180 to 189 ms.
    public var answerLatency: Percentiles
    /// Its answers by time to answer in 10 ms buckets: element `k` counts answers that took
    /// `10k` to `10k + 9` milliseconds (the last, 3000, also those beyond). Not in the JSON (the
    /// report's charts draw from it); empty in a decoded report.
    public var latencyHistogram: [Int] = []

    private enum CodingKeys: String, CodingKey {
        case lineItemID = "line_item"
        case network
        case asked
        case notAsked = "not_asked"
        case fills
        case wins
        case winShare = "win_share"
        case timeouts
        case errors
        case noFills = "no_fills"
        case cancelled
        case paused
        case revenueUSD = "revenue_usd"
        case knownRevenueUSD = "known_revenue_usd"
        case answerLatency = "answer_latency_ms"
    }

    init(lineItemID: String?, network: String, counts: SourceCounts, filledAuctions: Int) {
        self.lineItemID = lineItemID
        self.network = network
        asked = counts.asked
        notAsked = counts.notAsked
        fills = counts.fills
        wins = counts.wins
        winShare = filledAuctions > 0 ? Double(counts.wins) / Double(filledAuctions) : 0
        timeouts = counts.timeouts
        errors = counts.errors
        noFills = counts.noFills
        cancelled = counts.cancelled
        paused = counts.paused
        revenueUSD = Money.usd(counts.revenue)
        knownRevenueUSD = Money.usd(counts.knownRevenue)
        let step = SourceCounts.latencyBucketMilliseconds
        answerLatency = Percentiles(
            p50: Estimators.percentile(0.50, of: counts.latencies).map { $0 * step },
            p95: Estimators.percentile(0.95, of: counts.latencies).map { $0 * step },
            p99: Estimators.percentile(0.99, of: counts.latencies).map { $0 * step }
        )
        latencyHistogram = counts.latencies
    }
}

/// The oracles: what a clairvoyant picker would have earned from the same draws, and the share
/// of it the engine captured (`docs/simulation.md`, "The oracles").
public struct OracleFigures: Hashable, Sendable, Codable {
    /// The best realised price among the valid answers that arrived before their source's limit,
    /// summed over auctions (one impression each), USD.
    public var revenueUSD: Double
    /// The best realised price among all valid answers, whenever they arrived, USD.
    public var unboundedRevenueUSD: Double
    /// Revenue captured ÷ ``revenueUSD`` (what the waterfall order and the engine's knowing only
    /// configured eCPMs cost); `nil` when the oracle is 0.
    public var ratio: Double?
    /// Its 95 % interval by batch means.
    public var ratioInterval: ConfidenceInterval?
    /// Revenue captured ÷ ``unboundedRevenueUSD`` (what the deadline costs as well).
    public var unboundedRatio: Double?
    /// Its 95 % interval by batch means.
    public var unboundedRatioInterval: ConfidenceInterval?
    /// The bounded oracle valued at the prices the engine knows (bids and configured eCPMs):
    /// the best *known* value among valid answers that arrived before their source's limit, USD.
    public var knownRevenueUSD: Double
    /// Known revenue captured ÷ ``knownRevenueUSD``: 1 when the engine always took the best
    /// answer it could know of in time (parallel mode should); `nil` when it is 0.
    public var knownRatio: Double?

    private enum CodingKeys: String, CodingKey {
        case revenueUSD = "revenue_usd"
        case unboundedRevenueUSD = "unbounded_revenue_usd"
        case ratio
        case ratioInterval = "ratio_interval"
        case unboundedRatio = "unbounded_ratio"
        case unboundedRatioInterval = "unbounded_ratio_interval"
        case knownRevenueUSD = "known_revenue_usd"
        case knownRatio = "known_ratio"
    }
}

/// The figures of one simulated run of a placement: N auctions through the real engine on
/// virtual time against the market model.
///
/// Definitions (`docs/simulation.md`, "Figures"): an auction that fills counts one impression;
/// its **realised** revenue is the winner's realised price ÷ 1000 USD (the bid for a bidder, the
/// drawn eCPM for a fixed-price source); its **known** revenue is the winning value the engine
/// compared (the bid, or the configured eCPM) ÷ 1000. Times are virtual milliseconds from the
/// auction's start to its end.
public struct SimulationReport: Hashable, Sendable, Codable {
    /// The placement.
    public var placementID: String
    /// The seed.
    public var seed: UInt64
    /// Auctions run (ad requests).
    public var requests: Int
    /// Auctions that filled (impressions).
    public var filled: Int
    /// filled ÷ requests.
    public var fillRate: Double
    /// Its 95 % Wilson score interval (`docs/simulation.md`, "Statistics"): it holds near 0 and 1.
    public var fillRateInterval: ConfidenceInterval?
    /// Σ realised revenue, USD.
    public var revenueUSD: Double
    /// Realised revenue per 1000 requests, USD (the mean over auctions of the realised price, 0
    /// for no fill).
    public var revenuePer1000Requests: Double
    /// Its 95 % interval.
    public var revenuePer1000RequestsInterval: ConfidenceInterval?
    /// Mean realised price of the winners, USD CPM (`nil` with no fill).
    public var meanWinningECPM: Double?
    /// Its 95 % interval by batch means.
    public var meanWinningECPMInterval: ConfidenceInterval?
    /// Σ known revenue, USD.
    public var knownRevenueUSD: Double
    /// Known revenue per 1000 requests, USD.
    public var knownRevenuePer1000Requests: Double
    /// Mean known winning value, USD CPM (`nil` with no fill).
    public var meanKnownWinningECPM: Double?
    /// Time to ad of the filled auctions, ms.
    public var timeToAd: Percentiles
    /// Duration of every auction, ms.
    public var auctionDuration: Percentiles
    /// Mean duration of every auction, ms.
    public var meanAuctionMilliseconds: Double
    /// The oracles.
    public var oracle: OracleFigures
    /// Per line item, in configuration order.
    public var lineItems: [SourceFigures]
    /// Per network, in order of first appearance in the placement.
    public var networks: [SourceFigures]
    /// What network health (R24) did: pauses, resumes, requests not made.
    public var health: HealthFigures
    /// A timed run's requests per second (`nil` for a run of N auctions).
    public var rate: Double?
    /// A timed run's window width, seconds (`nil` otherwise).
    public var windowSeconds: Double?
    /// A timed run's figures per window, in time order (`nil` otherwise).
    public var windows: [WindowFigures]?
    /// A timed run's figures of each network with outages in the market (`nil` otherwise, and
    /// absent in JSON when no network has outages).
    public var outages: [OutageFigures]?

    private enum CodingKeys: String, CodingKey {
        case health, rate
        case windowSeconds = "window_s"
        case windows, outages
        case placementID = "placement"
        case seed
        case requests
        case filled
        case fillRate = "fill_rate"
        case fillRateInterval = "fill_rate_interval"
        case revenueUSD = "revenue_usd"
        case revenuePer1000Requests = "revenue_per_1000_requests"
        case revenuePer1000RequestsInterval = "revenue_per_1000_requests_interval"
        case meanWinningECPM = "mean_winning_ecpm"
        case meanWinningECPMInterval = "mean_winning_ecpm_interval"
        case knownRevenueUSD = "known_revenue_usd"
        case knownRevenuePer1000Requests = "known_revenue_per_1000_requests"
        case meanKnownWinningECPM = "mean_known_winning_ecpm"
        case timeToAd = "time_to_ad_ms"
        case auctionDuration = "auction_ms"
        case meanAuctionMilliseconds = "mean_auction_ms"
        case oracle
        case lineItems = "line_items"
        case networks
    }

    /// The report of `totals`; `health` says whether the engine kept the configuration's health
    /// settings, and `options` with a rate adds the windows.
    init(placementID: String, seed: UInt64, totals: RunTotals, models: [SourceModel], health: Bool = true, options: SimulationOptions? = nil) {
        self.health = HealthFigures(enabled: health, totals: totals)
        if let options, let rate = options.rate {
            self.rate = rate
            windowSeconds = options.window.inSeconds
            let windows = WindowFigures.all(totals, models: models, window: options.window)
            self.windows = windows
            let outages = OutageFigures.all(models: models, windows: windows, width: options.window, events: self.health.events, listedAll: self.health.events.count >= self.health.pauses + self.health.resumes, rate: rate, requests: totals.requests)
            self.outages = outages.isEmpty ? nil : outages
        }
        self.placementID = placementID
        self.seed = seed
        requests = totals.requests
        let filled = Int(totals.filled.sum.value)
        self.filled = filled
        let fill = Estimators.proportion(successes: filled, count: totals.requests)
        fillRate = fill?.rate ?? 0
        fillRateInterval = fill?.interval
        revenueUSD = Money.usd(totals.realised.sum)
        let revenue = Estimators.mean(totals.realised)
        // The mean realised price per auction in micros of USD CPM = USD per 1000 requests × 10⁶.
        revenuePer1000Requests = (revenue?.mean ?? 0) / 1_000_000
        revenuePer1000RequestsInterval = revenue?.interval?.divided(by: 1_000_000)
        meanWinningECPM = Ratios.meanWinningECPM(totals)
        meanWinningECPMInterval = meanWinningECPM.flatMap { Estimators.batchInterval(center: $0, batchValues: Ratios.batchValues(totals, Ratios.meanWinningECPM)) }
        knownRevenueUSD = Money.usd(totals.known.sum)
        knownRevenuePer1000Requests = (Estimators.mean(totals.known)?.mean ?? 0) / 1_000_000
        meanKnownWinningECPM = filled > 0 ? totals.known.sum.value / Double(filled) / 1_000_000 : nil
        timeToAd = Percentiles(histogram: totals.timesToAd)
        auctionDuration = Percentiles(histogram: totals.durations)
        meanAuctionMilliseconds = Estimators.mean(totals.duration)?.mean ?? 0
        let ratio = Ratios.oracleRatio(totals)
        let unboundedRatio = Ratios.unboundedOracleRatio(totals)
        oracle = OracleFigures(
            revenueUSD: Money.usd(totals.oracle),
            unboundedRevenueUSD: Money.usd(totals.unboundedOracle),
            ratio: ratio,
            ratioInterval: ratio.flatMap { Estimators.batchInterval(center: $0, batchValues: Ratios.batchValues(totals, Ratios.oracleRatio)) },
            unboundedRatio: unboundedRatio,
            unboundedRatioInterval: unboundedRatio.flatMap { Estimators.batchInterval(center: $0, batchValues: Ratios.batchValues(totals, Ratios.unboundedOracleRatio)) },
            knownRevenueUSD: Money.usd(Ratios.overall(totals).knownOracle),
            knownRatio: Ratios.knownOracleRatio(Ratios.overall(totals))
        )
        lineItems = models.map { model in
            SourceFigures(lineItemID: model.lineItem.id, network: model.lineItem.network, counts: totals.sources[model.index], filledAuctions: filled)
        }
        var networkOrder: [String] = []
        var byNetwork: [String: SourceCounts] = [:]
        for model in models {
            if byNetwork[model.lineItem.network] == nil { networkOrder.append(model.lineItem.network) }
            byNetwork[model.lineItem.network, default: SourceCounts()].add(totals.sources[model.index])
        }
        networks = networkOrder.map { network in
            SourceFigures(lineItemID: nil, network: network, counts: byNetwork[network] ?? SourceCounts(), filledAuctions: filled)
        }
    }

    /// The figures of line item `id`.
    /// - Parameter id: a line item id.
    public func lineItem(_ id: String) -> SourceFigures? {
        lineItems.first { $0.lineItemID == id }
    }

    /// The figures of network `id`.
    /// - Parameter id: a network id.
    public func network(_ id: String) -> SourceFigures? {
        networks.first { $0.network == id }
    }
}

/// Amounts: sums of USD CPM micros to USD (one impression earns price ÷ 1000).
enum Money {
    static func usd(_ micros: WideSum) -> Double {
        micros.value / 1_000_000_000
    }
}

/// The ratio figures, on totals or on one batch's sums.
enum Ratios {
    /// A ratio of a run's (or a batch's) sums, `nil` when its denominator is 0.
    typealias Ratio = (BatchTotals) -> Double?

    /// Σ realised ÷ filled, USD CPM.
    static func meanWinningECPM(_ totals: BatchTotals) -> Double? {
        totals.filled > 0 ? totals.realised.value / Double(totals.filled) / 1_000_000 : nil
    }

    /// Σ realised ÷ Σ bounded oracle.
    static func oracleRatio(_ totals: BatchTotals) -> Double? {
        totals.oracle.value > 0 ? totals.realised.value / totals.oracle.value : nil
    }

    /// Σ realised ÷ Σ unbounded oracle.
    static func unboundedOracleRatio(_ totals: BatchTotals) -> Double? {
        totals.unboundedOracle.value > 0 ? totals.realised.value / totals.unboundedOracle.value : nil
    }

    /// Σ known ÷ Σ known-price oracle.
    static func knownOracleRatio(_ totals: BatchTotals) -> Double? {
        totals.knownOracle.value > 0 ? totals.known.value / totals.knownOracle.value : nil
    }

    static func meanWinningECPM(_ totals: RunTotals) -> Double? { meanWinningECPM(overall(totals)) }
    static func oracleRatio(_ totals: RunTotals) -> Double? { oracleRatio(overall(totals)) }
    static func unboundedOracleRatio(_ totals: RunTotals) -> Double? { unboundedOracleRatio(overall(totals)) }

    /// The whole run's sums in the shape of a batch's.
    static func overall(_ totals: RunTotals) -> BatchTotals {
        var sum = BatchTotals()
        for batch in totals.batches { sum.add(batch) }
        return sum
    }

    /// The ratio in each batch where it is defined.
    static func batchValues(_ totals: RunTotals, _ ratio: Ratio) -> [Double] {
        totals.batches.compactMap(ratio)
    }
}

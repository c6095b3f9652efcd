/// What one auction came to, for the totals: every amount in USD CPM micros, every time in
/// whole milliseconds.
struct AuctionRecord: Sendable {
    /// The winning source's index, or -1 for no fill.
    var winner: Int32 = -1
    /// The winner's realised price (the bid, or the fill's drawn eCPM); 0 for no fill.
    var realisedMicros: Int64 = 0
    /// The winner's value as the engine knows it (the bid, or the configured eCPM); 0 for no fill.
    var knownMicros: Int64 = 0
    /// Auction end − start.
    var durationMilliseconds: Int64 = 0
    /// The best realised price among valid answers arriving before their source's limit.
    var oracleMicros: Int64 = 0
    /// The best realised price among valid answers, whenever they arrive.
    var unboundedOracleMicros: Int64 = 0
    /// The best value *as the engine knows it* (bid, configured eCPM) among valid answers
    /// arriving before their source's limit.
    var knownOracleMicros: Int64 = 0

    var isFilled: Bool { winner >= 0 }
}

/// What became of one source over a run, counted from the engine's traces.
struct SourceCounts: Hashable, Sendable {
    /// Asked (its trace line has a start offset).
    var asked = 0
    /// Not asked (no start offset: a waterfall tier never reached, a line item under the floor).
    var notAsked = 0
    /// Brought an ad that took part: `won` or `lost`.
    var fills = 0
    /// `won`.
    var wins = 0
    /// `no_fill`.
    var noFills = 0
    /// `error`.
    var errors = 0
    /// `timeout`, or `late` (an answer at its limit instant: the engine calls it `late` or
    /// `timeout` depending on which of the two it processes first, so they are counted together).
    var timeouts = 0
    /// Asked and `cancelled` (it could no longer win).
    var cancelled = 0
    /// Any other status (a future one).
    var other = 0
    /// Not asked because its network was paused (R24, `network_paused`); also in ``notAsked``.
    var paused = 0
    /// Σ realised micros of its wins.
    var revenue = WideSum()
    /// Σ known micros of its wins.
    var knownRevenue = WideSum()
    /// The width of a bucket of ``latencies``, in milliseconds.
    static let latencyBucketMilliseconds = 10
    /// Answers (any outcome with a latency) by time to answer in 10 ms buckets (bucket k: 10k to
    /// 10k + 9 ms), the last holding ``RunTotals/histogramLimit`` and beyond. (10 ms keeps a
    /// sweep of many values small: 301 counts per source and configuration.)
    var latencies = [Int](repeating: 0, count: RunTotals.histogramLimit / SourceCounts.latencyBucketMilliseconds + 1)

    /// Counts one answer that took `milliseconds`.
    mutating func addLatency(_ milliseconds: Double) {
        guard milliseconds.isFinite else { return }
        let whole = Int(min(max(milliseconds.rounded(.down), 0), Double(RunTotals.histogramLimit)))
        latencies[whole / SourceCounts.latencyBucketMilliseconds] += 1
    }

    mutating func add(_ other: SourceCounts) {
        asked += other.asked
        notAsked += other.notAsked
        fills += other.fills
        wins += other.wins
        noFills += other.noFills
        errors += other.errors
        timeouts += other.timeouts
        cancelled += other.cancelled
        self.other += other.other
        paused += other.paused
        revenue.add(other.revenue)
        knownRevenue.add(other.knownRevenue)
        for index in latencies.indices where index < other.latencies.count {
            latencies[index] += other.latencies[index]
        }
    }
}

/// The sums of one batch of auctions (a contiguous range of indices), for batch-means intervals.
struct BatchTotals: Hashable, Sendable {
    var requests = 0
    var filled = 0
    var realised = WideSum()
    var known = WideSum()
    var oracle = WideSum()
    var unboundedOracle = WideSum()
    var knownOracle = WideSum()

    mutating func add(_ other: BatchTotals) {
        requests += other.requests
        filled += other.filled
        realised.add(other.realised)
        known.add(other.known)
        oracle.add(other.oracle)
        unboundedOracle.add(other.unboundedOracle)
        knownOracle.add(other.knownOracle)
    }
}

/// What one window of a timed run's auctions came to (by the instant each auction started).
struct WindowTotals: Sendable {
    /// One source's counts in the window.
    struct Source: Sendable {
        var asked = 0
        var wins = 0
        var paused = 0
        var timeouts = 0
        /// Of ``timeouts``, those ended by a pause of its network while it was waited for.
        var pauseEnded = 0
        /// The time its timed-out requests were waited for, ms: from being asked to the
        /// auction's end, at most the request's limit.
        var timeoutWaitMilliseconds = 0.0
    }

    var requests = 0
    var filled = 0
    var realised = WideSum()
    /// Filled auctions by duration in whole milliseconds (up to ``RunTotals/histogramLimit``),
    /// only the durations that occur: a window of few auctions keeps few counts.
    var timesToAd: [UInt16: Int] = [:]
    var sources: [Source]

    /// ``timesToAd`` as a histogram indexed by milliseconds.
    var timesToAdHistogram: [Int] {
        var histogram = [Int](repeating: 0, count: RunTotals.histogramLimit + 1)
        for (milliseconds, count) in timesToAd { histogram[Int(milliseconds)] += count }
        return histogram
    }

    init(sourceCount: Int) {
        sources = Array(repeating: Source(), count: sourceCount)
    }

    mutating func add(_ record: AuctionRecord) {
        requests += 1
        realised.add(record.realisedMicros)
        if record.isFilled {
            filled += 1
            timesToAd[UInt16(min(max(record.durationMilliseconds, 0), Int64(RunTotals.histogramLimit))), default: 0] += 1
            if Int(record.winner) < sources.count { sources[Int(record.winner)].wins += 1 }
        }
    }

    mutating func add(_ other: WindowTotals) {
        requests += other.requests
        filled += other.filled
        realised.add(other.realised)
        for (milliseconds, count) in other.timesToAd { timesToAd[milliseconds, default: 0] += count }
        for index in sources.indices where index < other.sources.count {
            sources[index].asked += other.sources[index].asked
            sources[index].wins += other.sources[index].wins
            sources[index].paused += other.sources[index].paused
            sources[index].timeouts += other.sources[index].timeouts
            sources[index].pauseEnded += other.sources[index].pauseEnded
            sources[index].timeoutWaitMilliseconds += other.sources[index].timeoutWaitMilliseconds
        }
    }
}

/// A network (or one of its line items, on its own) paused or resumed by the engine's health
/// (R24), at an instant of the run's virtual time (a timed run's, or its shard's clock for a
/// run of N auctions).
struct HealthEventRecord: Hashable, Sendable {
    var network: String
    /// The line item paused or resumed on its own (of the simulated placement); `nil` for
    /// the whole network.
    var lineItem: String?
    /// `true` for a pause, `false` for a resume.
    var paused: Bool
    /// The pause's cause (`failures`, `probe_failed`, `restored`); empty for a resume.
    var cause: String
    var atMilliseconds: Int64
    /// The instant it is tried again (a pause's), else 0.
    var retryAtMilliseconds: Int64
    var failures: Int
    var outcomes: Int
    /// The shard whose engine it happened in.
    var shard: Int
}

/// Everything a report is built from, for one configuration: exact integer sums, so adding up
/// shards in any order gives the same totals.
struct RunTotals: Sendable {
    /// The longest auction the histograms hold, in milliseconds (the engine's maximum deadline);
    /// longer ones count in the last bucket.
    static let histogramLimit = 3000

    var realised = Moments()
    var known = Moments()
    var filled = Moments()
    var duration = Moments()
    var oracle = WideSum()
    var unboundedOracle = WideSum()
    /// Auctions by duration in whole milliseconds.
    var durations = [Int](repeating: 0, count: RunTotals.histogramLimit + 1)
    /// Filled auctions by duration (time to ad).
    var timesToAd = [Int](repeating: 0, count: RunTotals.histogramLimit + 1)
    var sources: [SourceCounts]
    var batches: [BatchTotals]
    /// A timed run's windows, by window index (only those with an auction; at most
    /// ``SimulationOptions/maximumWindows``).
    var windows: [Int: WindowTotals] = [:]
    /// The first ``HealthFigures/listedEvents`` pauses and resumes, by shard in shard order,
    /// then in the order they happened (the rest are only counted).
    var healthEvents: [HealthEventRecord] = []
    /// Every pause (``healthEvents`` lists the first).
    var pauses = 0
    /// Every resume.
    var resumes = 0
    /// In a market with countries, each winning source's wins and realised micros per country:
    /// `[country index: (wins, revenue)]` by source index (what a learning run reports per
    /// country); empty in a one-country market.
    var countryWins: [Int: [Int: (wins: Int, revenue: WideSum)]] = [:]

    /// Counts a pause or resume, and lists it while fewer than ``HealthFigures/listedEvents``
    /// are.
    mutating func add(_ event: HealthEventRecord) {
        if event.paused { pauses += 1 } else { resumes += 1 }
        if healthEvents.count < HealthFigures.listedEvents { healthEvents.append(event) }
    }

    init(sourceCount: Int, batchCount: Int) {
        sources = Array(repeating: SourceCounts(), count: sourceCount)
        batches = Array(repeating: BatchTotals(), count: batchCount)
    }

    var requests: Int { realised.count }

    mutating func add(_ record: AuctionRecord, batch: Int) {
        realised.add(record.realisedMicros)
        known.add(record.knownMicros)
        filled.add(record.isFilled ? 1 : 0)
        duration.add(record.durationMilliseconds)
        oracle.add(record.oracleMicros)
        unboundedOracle.add(record.unboundedOracleMicros)
        let bucket = Int(min(max(record.durationMilliseconds, 0), Int64(RunTotals.histogramLimit)))
        durations[bucket] += 1
        if record.isFilled { timesToAd[bucket] += 1 }
        batches[batch].requests += 1
        if record.isFilled { batches[batch].filled += 1 }
        batches[batch].realised.add(record.realisedMicros)
        batches[batch].known.add(record.knownMicros)
        batches[batch].oracle.add(record.oracleMicros)
        batches[batch].unboundedOracle.add(record.unboundedOracleMicros)
        batches[batch].knownOracle.add(record.knownOracleMicros)
    }

    mutating func add(_ other: RunTotals) {
        realised.add(other.realised)
        known.add(other.known)
        filled.add(other.filled)
        duration.add(other.duration)
        oracle.add(other.oracle)
        unboundedOracle.add(other.unboundedOracle)
        for index in durations.indices {
            durations[index] += other.durations[index]
            timesToAd[index] += other.timesToAd[index]
        }
        for index in sources.indices where index < other.sources.count {
            sources[index].add(other.sources[index])
        }
        for index in batches.indices where index < other.batches.count {
            batches[index].add(other.batches[index])
        }
        for (index, window) in other.windows {
            windows[index, default: WindowTotals(sourceCount: sources.count)].add(window)
        }
        healthEvents.append(contentsOf: other.healthEvents.prefix(max(0, HealthFigures.listedEvents - healthEvents.count)))
        pauses += other.pauses
        resumes += other.resumes
        for (source, countries) in other.countryWins {
            for (country, tally) in countries {
                countryWins[source, default: [:]][country, default: (0, WideSum())].wins += tally.wins
                countryWins[source, default: [:]][country, default: (0, WideSum())].revenue.add(tally.revenue)
            }
        }
    }
}

/// The per-auction figures compared across configurations run on the same draws.
enum PairedMetric: Int, CaseIterable, Sendable {
    case realised, known, filled, duration

    func value(of record: AuctionRecord) -> Int64 {
        switch self {
        case .realised: record.realisedMicros
        case .known: record.knownMicros
        case .filled: record.isFilled ? 1 : 0
        case .duration: record.durationMilliseconds
        }
    }
}

/// Σx_j·x_k over auctions for every pair of K configurations run on the same draws (the upper
/// triangle, diagonal included), for the variance of any paired difference:
/// Σ(x_k − x_j)² = Σx_k² − 2·Σx_j·x_k + Σx_j².
struct CrossProducts: Sendable {
    let configurations: Int
    private(set) var products: [WideSum]

    init(configurations: Int) {
        self.configurations = configurations
        products = Array(repeating: WideSum(), count: configurations * (configurations + 1) / 2)
    }

    private func slot(_ j: Int, _ k: Int) -> Int {
        let (low, high) = j <= k ? (j, k) : (k, j)
        return low * configurations - low * (low - 1) / 2 + (high - low)
    }

    mutating func add(_ row: [Int64]) {
        for j in 0..<configurations {
            for k in j..<configurations {
                products[slot(j, k)].addProduct(row[j], row[k])
            }
        }
    }

    mutating func add(_ other: CrossProducts) {
        for index in products.indices where index < other.products.count {
            products[index].add(other.products[index])
        }
    }

    func product(_ j: Int, _ k: Int) -> WideSum {
        products[slot(j, k)]
    }
}

/// The totals of K configurations run on the same auctions and draws.
struct MultiTotals: Sendable {
    var runs: [RunTotals]
    /// Cross products by ``PairedMetric``.
    var crossProducts: [CrossProducts]
    /// The most ended shards held at once before their merge (``ShardScheduler``), for tests.
    var peakHeldShards = 0

    init(configurations: Int, sourceCounts: [Int], batchCount: Int) {
        runs = sourceCounts.map { RunTotals(sourceCount: $0, batchCount: batchCount) }
        crossProducts = PairedMetric.allCases.map { _ in CrossProducts(configurations: configurations) }
    }

    /// Adds auction `index`'s records, one per configuration.
    mutating func add(_ records: [AuctionRecord], batch: Int) {
        for (configuration, record) in records.enumerated() {
            runs[configuration].add(record, batch: batch)
        }
        guard runs.count > 1 else { return }
        for metric in PairedMetric.allCases {
            crossProducts[metric.rawValue].add(records.map { metric.value(of: $0) })
        }
    }

    mutating func add(_ other: MultiTotals) {
        for index in runs.indices where index < other.runs.count {
            runs[index].add(other.runs[index])
        }
        for index in crossProducts.indices where index < other.crossProducts.count {
            crossProducts[index].add(other.crossProducts[index])
        }
    }

    /// The paired difference configuration `k` − configuration `j` of `metric`, per auction:
    /// its n, Σd, Σd².
    func difference(_ metric: PairedMetric, from j: Int, to k: Int) -> Moments {
        let a = moments(metric, j)
        let b = moments(metric, k)
        var sum = b.sum
        sum.add(negated(a.sum))
        var squares = b.sumOfSquares
        squares.add(a.sumOfSquares)
        let cross = crossProducts[metric.rawValue].product(j, k)
        squares.add(negated(cross))
        squares.add(negated(cross))
        return Moments(count: b.count, sum: sum, sumOfSquares: squares)
    }

    private func moments(_ metric: PairedMetric, _ configuration: Int) -> Moments {
        let run = runs[configuration]
        switch metric {
        case .realised: return run.realised
        case .known: return run.known
        case .filled: return run.filled
        case .duration: return run.duration
        }
    }

    private func negated(_ sum: WideSum) -> WideSum {
        var result = WideSum()
        result.subtract(sum)
        return result
    }
}

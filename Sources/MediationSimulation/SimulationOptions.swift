/// How a simulation runs: how many auctions, from which seed, at what rate, and how the work is
/// split.
///
/// ``jobs`` never changes a report. Without network health (or when no network is ever paused)
/// only ``auctions``, ``seed``, ``rate``, ``window`` and ``batches`` can: ``shardSize`` and
/// ``concurrency`` only change how fast it comes (every draw is keyed by the auction's index in
/// the run and every total is an exact integer sum; see `docs/simulation.md`). With health on,
/// a network's health carries from one auction to the next within a shard and starts fresh at
/// each shard's first auction, so ``shardSize`` and ``concurrency`` are inputs too.
///
/// A **timed run** (``rate`` set, ``timed(duration:rate:seed:jobs:window:)``) starts auction `i`
/// at `i ÷ rate` seconds of virtual time from the run's start, whatever the others do, and
/// reports figures per ``window``; each of its shards starts its clock at its first auction's
/// instant, so a market's outages apply at the same instants in every shard.
public struct SimulationOptions: Hashable, Sendable {
    /// The default shard size: 10,000 auctions.
    public static let defaultShardSize = 10_000
    /// The default number of auctions in flight per shard.
    public static let defaultConcurrency = 32
    /// The default number of batches for batch-means intervals.
    public static let defaultBatches = 20
    /// The default width of a timed run's windows: one minute.
    public static let defaultWindow: Duration = .seconds(60)
    /// The virtual time a shard of a timed run covers by default: one hour (health state starts
    /// fresh at each shard's start).
    public static let timedShardDuration: Duration = .seconds(3600)
    /// The highest ``rate``, requests per second.
    public static let maximumRate: Double = 10_000
    /// The most windows a timed run reports: 1440 (a day of one-minute windows). A run keeps a
    /// fixed amount per window, so this bounds what it keeps whatever its duration.
    public static let maximumWindows = 1440
    /// The window widths a timed run picks from by default, seconds: the first that gives at
    /// most ``maximumWindows`` windows (then whole days).
    static let defaultWindowSeconds: [Int64] = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400]

    /// The number of auctions (requests) to run, at least 1.
    public var auctions: Int
    /// The seed of every draw.
    public var seed: UInt64
    /// The number of shards run at once, each on its own thread with its own clock and engine
    /// (default 1).
    public var jobs: Int
    /// The auctions per shard: shard `s` runs auctions `s × shardSize ..< (s + 1) × shardSize`.
    public var shardSize: Int
    /// The auctions in flight at once within a shard, on its one virtual timeline (default 32);
    /// 1 runs them one after another.
    public var concurrency: Int
    /// The number of batches (contiguous ranges of auction indices) for the intervals of ratios
    /// (default 20; at most one per auction).
    public var batches: Int
    /// Where the run counts the auctions it has finished, for a progress bar (default none;
    /// it never changes a report).
    public var progress: SimulationProgress?
    /// Requests per second of a timed run: auction `i` starts at `i ÷ rate` s of virtual time
    /// from the run's start (`nil`, the default: each shard's auctions follow each other as
    /// fast as ``concurrency`` allows, and a market may not have outages).
    public var rate: Double?
    /// The width of a timed run's windows (default one minute): its report has figures per
    /// window (``SimulationReport/windows``).
    public var window: Duration = SimulationOptions.defaultWindow

    /// Creates options.
    /// - Parameters:
    ///   - auctions: the number of auctions, at least 1.
    ///   - seed: the seed (default 1).
    ///   - jobs: shards run at once (default 1).
    ///   - shardSize: auctions per shard (default 10,000).
    ///   - concurrency: auctions in flight per shard (default 32).
    ///   - batches: batches for ratio intervals (default 20).
    public init(
        auctions: Int,
        seed: UInt64 = 1,
        jobs: Int = 1,
        shardSize: Int = SimulationOptions.defaultShardSize,
        concurrency: Int = SimulationOptions.defaultConcurrency,
        batches: Int = SimulationOptions.defaultBatches,
        progress: SimulationProgress? = nil
    ) {
        self.auctions = auctions
        self.seed = seed
        self.jobs = jobs
        self.shardSize = shardSize
        self.concurrency = concurrency
        self.batches = batches
        self.progress = progress
    }

    /// The options of a timed run: `duration × rate` auctions (rounded up), auction `i` starting
    /// at `i ÷ rate` s, in shards of one hour of virtual time each (``timedShardDuration``).
    /// - Parameters:
    ///   - duration: the virtual time the run covers.
    ///   - rate: requests per second.
    ///   - seed: the seed (default 1).
    ///   - jobs: shards run at once (default 1).
    ///   - window: the width of the report's windows (default ``defaultWindow(covering:)``: one
    ///     minute up to a day's run, wider beyond).
    /// - Returns: the options (checked when the run starts).
    public static func timed(duration: Duration, rate: Double, seed: UInt64 = 1, jobs: Int = 1, window: Duration? = nil) -> SimulationOptions {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let auctions = rate.isFinite && rate > 0 ? Int(min((seconds * rate).rounded(.up), 2e9)) : 0
        let perShard = rate.isFinite && rate > 0 ? Int(min((3600 * rate).rounded(.up), 2e9)) : 1
        var options = SimulationOptions(auctions: auctions, seed: seed, jobs: jobs, shardSize: max(1, perShard))
        options.rate = rate
        options.window = window ?? defaultWindow(covering: duration)
        return options
    }

    /// The default window of a timed run covering `duration`: one minute (``defaultWindow``),
    /// or the first of 2, 5, 10, 15 and 30 minutes, 1, 2, 3, 6 and 12 hours, then whole days,
    /// that gives at most ``maximumWindows`` windows.
    /// - Parameter duration: the virtual time the run covers.
    /// - Returns: the window's width.
    public static func defaultWindow(covering duration: Duration) -> Duration {
        let seconds = max(0, duration.inSeconds)
        for width in defaultWindowSeconds where seconds / Double(width) <= Double(maximumWindows) {
            return .seconds(width)
        }
        return .seconds(86_400 * Int64((seconds / 86_400 / Double(maximumWindows)).rounded(.up)))
    }

    /// The number of windows of a timed run (`nil` without a ``rate``): those from its start to
    /// its last auction's.
    var windowCount: Int? {
        guard let rate, rate > 0, auctions >= 1, window > .zero else { return nil }
        let last = Double(auctions - 1) / rate
        return Int(min((last / window.inSeconds).rounded(.down), 1e12)) + 1
    }

    /// The instant auction `index` starts in a timed run, from the run's start (`nil` without a
    /// ``rate``): `index ÷ rate` seconds, in whole nanoseconds.
    /// - Parameter index: an auction index, from 0.
    public func arrival(ofAuction index: Int) -> Duration? {
        rate.map { .nanoseconds(Int64((Double(index) * 1e9 / $0).rounded())) }
    }

    /// The window of auction `index` in a timed run: ⌊arrival ÷ window⌋.
    func window(ofAuction index: Int) -> Int? {
        guard let arrival = arrival(ofAuction: index) else { return nil }
        return Int(arrival / window)
    }

    /// The number of shards.
    public var shardCount: Int { auctions <= 0 || shardSize <= 0 ? 0 : (auctions + shardSize - 1) / shardSize }

    /// The auction indices of shard `shard`.
    /// - Parameter shard: a shard index, from 0.
    /// - Returns: its range (empty past the last shard).
    public func range(ofShard shard: Int) -> Range<Int> {
        let start = min(auctions, shard * shardSize)
        return start..<min(auctions, start + shardSize)
    }

    /// The batches actually used: ``batches``, at most one per auction.
    var effectiveBatches: Int { max(1, min(batches, auctions)) }

    /// The batch of auction `index`: `index × B / auctions`.
    func batch(ofAuction index: Int) -> Int {
        index * effectiveBatches / auctions
    }

    /// Checks every field.
    /// - Throws: ``SimulationError`` (`invalid_options`) naming the first field out of range.
    func validate() throws(SimulationError) {
        func fail(_ message: String) -> SimulationError { SimulationError(code: .invalidOptions, message: message) }
        guard auctions >= 1 else { throw fail("auctions must be at least 1, found \(auctions)") }
        guard auctions <= 1_000_000_000 else { throw fail("auctions must be at most 1,000,000,000, found \(auctions)") }
        guard jobs >= 1 else { throw fail("jobs must be at least 1, found \(jobs)") }
        guard shardSize >= 1 else { throw fail("the shard size must be at least 1, found \(shardSize)") }
        guard concurrency >= 1 else { throw fail("concurrency must be at least 1, found \(concurrency)") }
        guard batches >= 2 else { throw fail("batches must be at least 2, found \(batches)") }
        if let rate {
            guard rate.isFinite, rate > 0, rate <= SimulationOptions.maximumRate else { throw fail("the rate must be above 0 and at most \(Int(SimulationOptions.maximumRate)) requests per second, found \(rate)") }
            guard Double(auctions) / rate <= 366 * 86_400 else { throw fail("a timed run covers at most a year of virtual time: \(auctions) auctions at \(rate) per second is longer") }
            guard window >= .seconds(1) else { throw fail("the window must be at least one second") }
            if let count = windowCount, count > SimulationOptions.maximumWindows {
                let seconds = Double(auctions) / rate
                let least = Int((seconds / Double(SimulationOptions.maximumWindows)).rounded(.up))
                let width = window.components.attoseconds == 0 ? String(window.components.seconds) : String(window.inSeconds)
                throw fail("a timed run reports at most \(SimulationOptions.maximumWindows) windows: \(width) s windows over \(Int(seconds.rounded(.up))) s make \(Int((seconds / window.inSeconds).rounded(.up))); give a window of at least \(least) s")
            }
        }
    }
}

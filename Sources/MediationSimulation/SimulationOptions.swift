/// How a simulation runs: how many auctions, from which seed, and how the work is split.
///
/// Only ``auctions``, ``seed`` and ``batches`` can change a report; ``jobs``, ``shardSize`` and
/// ``concurrency`` only change how fast it comes (every draw is keyed by the auction's index in
/// the run and every total is an exact integer sum; see `docs/simulation.md`).
public struct SimulationOptions: Hashable, Sendable {
    /// The default shard size: 10,000 auctions.
    public static let defaultShardSize = 10_000
    /// The default number of auctions in flight per shard.
    public static let defaultConcurrency = 32
    /// The default number of batches for batch-means intervals.
    public static let defaultBatches = 20

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
    }
}

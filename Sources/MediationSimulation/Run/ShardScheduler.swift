import Mediation

/// Runs shards on up to `jobs` threads and merges their totals in shard order, as they end.
///
/// Each shard is a pure function of (configurations, market, seed, shard index, shard size):
/// its own ``ManualClock`` and engines, its own auction indices. Shards start in index order,
/// at most `jobs` at once, and a shard's totals are added as soon as every earlier shard's are
/// (exact integer sums, so any order would give the same totals; the health events are listed
/// in shard order). A shard that ends before an earlier one is held until that one ends, and
/// no shard starts while the shards held and running reach ``maximumHeld(jobs:)``: what a run
/// keeps does not grow with its number of shards (a timed run's duration).
enum ShardScheduler {
    /// The most ended shards a run on `jobs` jobs holds before their merge: 2 × jobs.
    static func maximumHeld(jobs: Int) -> Int { 2 * jobs }

    /// Runs every shard of `options` for `networks` (one per configuration, the same auctions
    /// and draws for each) and returns the merged totals, or the failure of the first shard (in
    /// shard order) that failed.
    static func run(_ networks: [SimulatedNetworks], placementID: String, options: SimulationOptions) async -> Result<MultiTotals, SimulationError> {
        let sourceCounts = networks.map { $0.sourcesByPlacement[placementID]?.count ?? 0 }
        let shardCount = options.shardCount
        let jobs = max(1, min(options.jobs, shardCount))
        let limit = maximumHeld(jobs: jobs)
        options.progress?.begin(total: options.auctions * networks.count)
        return await withTaskGroup(of: (Int, Result<MultiTotals, SimulationError>).self) { group in
            var totals = MultiTotals(configurations: networks.count, sourceCounts: sourceCounts, batchCount: options.effectiveBatches)
            var held: [Int: Result<MultiTotals, SimulationError>] = [:]
            var nextToStart = 0, nextToMerge = 0, running = 0, failed = false
            while true {
                while !failed, running < jobs, nextToStart < shardCount, held.count + running < limit {
                    let shard = nextToStart
                    group.addTask { (shard, await runShard(shard, networks: networks, placementID: placementID, options: options, sourceCounts: sourceCounts)) }
                    nextToStart += 1
                    running += 1
                }
                guard let (shard, result) = await group.next() else { break }
                running -= 1
                if case .failure = result { failed = true }
                held[shard] = result
                totals.peakHeldShards = max(totals.peakHeldShards, held.count)
                while let next = held.removeValue(forKey: nextToMerge) {
                    switch next {
                    case .success(let shardTotals): totals.add(shardTotals)
                    case .failure(let error):
                        group.cancelAll()
                        return .failure(error)
                    }
                    nextToMerge += 1
                }
            }
            return .success(totals)
        }
    }

    /// Runs shard `shard` once per configuration and adds up its auctions, pairing each
    /// auction's records across configurations.
    private static func runShard(_ shard: Int, networks: [SimulatedNetworks], placementID: String, options: SimulationOptions, sourceCounts: [Int]) async -> Result<MultiTotals, SimulationError> {
        let range = options.range(ofShard: shard)
        var records: [[AuctionRecord]] = []
        var totals = MultiTotals(configurations: networks.count, sourceCounts: sourceCounts, batchCount: options.effectiveBatches)
        for (configuration, simulated) in networks.enumerated() {
            switch await ShardRunner.run(simulated, placementID: placementID, range: range, shard: shard, options: options) {
            case .success(let output):
                options.progress?.advance(by: range.count)
                records.append(output.records)
                for index in output.sources.indices {
                    totals.runs[configuration].sources[index].add(output.sources[index])
                }
                totals.runs[configuration].windows = output.windows
                totals.runs[configuration].healthEvents = output.healthEvents
                totals.runs[configuration].pauses = output.pauses
                totals.runs[configuration].resumes = output.resumes
                // In a market with countries, each win by the auction's country (drawn again
                // from the seed and the auction's index, as the run drew it).
                if let draws = simulated.countrySignals?.draws {
                    for (offset, record) in output.records.enumerated() where record.winner >= 0 {
                        let country = draws.draw(seed: simulated.seed, auction: UInt64(range.lowerBound + offset)).country
                        totals.runs[configuration].countryWins[Int(record.winner), default: [:]][country, default: (0, WideSum())].wins += 1
                        totals.runs[configuration].countryWins[Int(record.winner), default: [:]][country, default: (0, WideSum())].revenue.add(record.realisedMicros)
                    }
                }
            case .failure(let error):
                return .failure(error)
            }
        }
        var row = [AuctionRecord](repeating: AuctionRecord(), count: networks.count)
        for offset in 0..<range.count {
            for configuration in networks.indices { row[configuration] = records[configuration][offset] }
            totals.add(row, batch: options.batch(ofAuction: range.lowerBound + offset))
        }
        return .success(totals)
    }
}

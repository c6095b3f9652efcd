import Mediation

/// Runs shards on up to `jobs` threads and merges their totals in shard order.
///
/// Each shard is a pure function of (configurations, market, seed, shard index, shard size):
/// its own ``ManualClock`` and engines, its own auction indices. A job takes the next shard
/// index from a shared counter; the totals of every shard are kept by index and added up in
/// index order (they are exact integer sums, so any order would give the same totals).
enum ShardScheduler {
    /// Runs every shard of `options` for `networks` (one per configuration, the same auctions
    /// and draws for each) and returns the merged totals.
    static func run(_ networks: [SimulatedNetworks], placementID: String, options: SimulationOptions) async -> Result<MultiTotals, SimulationError> {
        let sourceCounts = networks.map { $0.sourcesByPlacement[placementID]?.count ?? 0 }
        let shardCount = options.shardCount
        let next = Locked(0)
        let jobs = max(1, min(options.jobs, shardCount))
        options.progress?.begin(total: options.auctions * networks.count)
        let results = await withTaskGroup(of: [(Int, Result<MultiTotals, SimulationError>)].self) { group in
            for _ in 0..<jobs {
                group.addTask {
                    var done: [(Int, Result<MultiTotals, SimulationError>)] = []
                    while let shard = next.withLock({ (value: inout Int) -> Int? in
                        guard value < shardCount else { return nil }
                        defer { value += 1 }
                        return value
                    }) {
                        let result = await runShard(shard, networks: networks, placementID: placementID, options: options, sourceCounts: sourceCounts)
                        done.append((shard, result))
                        if case .failure = result { break }
                    }
                    return done
                }
            }
            var all: [(Int, Result<MultiTotals, SimulationError>)] = []
            for await part in group { all.append(contentsOf: part) }
            return all.sorted { $0.0 < $1.0 }
        }
        var totals = MultiTotals(configurations: networks.count, sourceCounts: sourceCounts, batchCount: options.effectiveBatches)
        for (_, result) in results {
            switch result {
            case .success(let shard): totals.add(shard)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(totals)
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

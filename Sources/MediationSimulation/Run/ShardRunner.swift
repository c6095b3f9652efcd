import Mediation
import MediationVirtualTime

/// Runs one shard of auctions of one placement through a real ``MediationEngine`` built on the
/// simulated networks, on a ``ManualClock`` of its own.
///
/// The driver runs on the clock (`perform`): it starts `concurrency` worker tasks on the clock,
/// each running auctions one after another on the one virtual timeline (so up to `concurrency`
/// are in flight), and moves time on until every auction has ended. Every auction
/// draws its sources' answers from streams keyed by its own index, so its outcome does not
/// depend on which auctions run beside it or when it starts.
enum ShardRunner {
    /// How far the driver moves virtual time per step: far beyond any auction (3 s at most).
    static let stretch: Duration = .seconds(86_400)

    /// The environment of a shard's engine: its clock, the run's seed, and auction ids that
    /// follow from the seed and the shard's first auction (so an exploring placement's draws,
    /// keyed by the auction id, repeat; R23).
    static func environment(clock: ManualClock, seed: UInt64, firstAuction: Int) -> MediationEnvironment {
        var environment = MediationEnvironment(clock: clock, seed: seed)
        environment.auctionIDSeed = SplitMix64.mix(seed ^ SplitMix64.mix(UInt64(firstAuction) &+ SplitMix64.gamma))
        return environment
    }

    /// Runs auctions `range` of `placementID`.
    /// - Returns: one record per auction (in index order) and the counts of every source.
    static func run(_ networks: SimulatedNetworks, placementID: String, range: Range<Int>, concurrency: Int) async -> Result<(records: [AuctionRecord], sources: [SourceCounts]), SimulationError> {
        guard let models = networks.sourcesByPlacement[placementID] else {
            return .failure(SimulationError(code: .unknownPlacement, message: "no placement \"\(placementID)\" was prepared"))
        }
        let clock = ManualClock()
        let engine: MediationEngine
        do {
            engine = try MediationEngine(
                configuration: networks.configuration,
                registry: networks.registry,
                environment: ShardRunner.environment(clock: clock, seed: networks.seed, firstAuction: range.lowerBound)
            )
        } catch {
            return .failure(SimulationError(code: .invalidConfiguration, path: error.path, message: error.message))
        }
        let collector = ShardCollector(start: range.lowerBound, count: range.count, models: models, seed: networks.seed)
        let finished = await clock.perform { () -> Bool in
            // `concurrency` workers on the clock, each running one auction after another; an
            // auction that ends lets its worker start the next one at the same instant.
            for _ in 0..<min(concurrency, range.count) {
                clock.startTask {
                    while let index = collector.nextAuction() {
                        let outcome = await engine.runAuction(placementID: placementID, context: SimulatedNetworks.context(forAuction: UInt64(index)))
                        collector.record(outcome, auction: index)
                    }
                }
            }
            // The workers start each next auction themselves, so time can run without a stop
            // between instants: `advance(to:)` wakes every sleeper due by its target one at a
            // time, in deadline order, and runs the work each sets off before the next, exactly
            // as stepping from one wake-up to the next would, without the stops' cost.
            while true {
                await clock.advance(to: clock.now + ShardRunner.stretch)
                if collector.finished == range.count { return true }
                guard clock.nextDeadline != nil else { return false }
            }
        }
        guard finished, collector.missing == 0 else {
            return .failure(SimulationError(code: .stalled, message: "auctions \(range) of \(placementID): \(range.count - collector.finished + collector.missing) did not end (virtual time had no wake-up left)"))
        }
        return .success(collector.result)
    }
}

/// Collects a shard's records and source counts as its auctions end (on the shard's clock).
final class ShardCollector: Sendable {
    private struct State {
        var next: Int
        var records: [AuctionRecord]
        var sources: [SourceCounts]
        var finished = 0
        var missing = 0
    }

    private let start: Int
    private let models: [SourceModel]
    private let seed: UInt64
    private let state: Locked<State>

    init(start: Int, count: Int, models: [SourceModel], seed: UInt64) {
        self.start = start
        self.models = models
        self.seed = seed
        state = Locked(State(
            next: start,
            records: Array(repeating: AuctionRecord(), count: count),
            sources: Array(repeating: SourceCounts(), count: models.count)
        ))
    }

    var finished: Int { state.withLock { $0.finished } }

    /// The index of the next auction to start, or `nil` when every auction of the shard started.
    func nextAuction() -> Int? {
        state.withLock { state in
            guard state.next < start + state.records.count else { return nil }
            defer { state.next += 1 }
            return state.next
        }
    }
    var missing: Int { state.withLock { $0.missing } }
    var result: (records: [AuctionRecord], sources: [SourceCounts]) { state.withLock { ($0.records, $0.sources) } }

    /// Records auction `auction`'s outcome: the winner's realised and known prices, the
    /// duration, the oracles (from the draws), and each source's status.
    func record(_ outcome: AuctionOutcome?, auction: Int) {
        guard let outcome else {
            state.withLock { state in
                state.finished += 1
                state.missing += 1
            }
            return
        }
        var record = AuctionRecord()
        for model in models {
            let values = model.oracleValues(of: model.draw(seed: seed, auction: UInt64(auction)))
            record.oracleMicros = max(record.oracleMicros, values.bounded)
            record.unboundedOracleMicros = max(record.unboundedOracleMicros, values.unbounded)
            record.knownOracleMicros = max(record.knownOracleMicros, values.known)
        }
        let trace = outcome.trace
        record.durationMilliseconds = Int64(trace.durationMilliseconds.rounded())
        if let winner = outcome.winner {
            let index = models.firstIndex { $0.lineItem.id == winner.lineItem.id } ?? -1
            record.winner = Int32(index)
            record.knownMicros = Int64((winner.eCPM * 1_000_000).rounded(.toNearestOrAwayFromZero))
            record.realisedMicros = (winner.ad as? SimulatedAd)?.realisedPriceMicros ?? record.knownMicros
            winner.ad.releaseResources() // the caller's ad; a simulated one holds nothing
        }
        state.withLock { state in
            state.records[auction - start] = record
            for index in 0..<min(trace.sourceCount, state.sources.count) {
                ShardCollector.count(trace.sourceSummary(at: index), into: &state.sources[index])
            }
            if record.winner >= 0 {
                state.sources[Int(record.winner)].revenue.add(record.realisedMicros)
                state.sources[Int(record.winner)].knownRevenue.add(record.knownMicros)
            }
            state.finished += 1
        }
    }

    /// Counts one trace line by its outcome and whether it was asked.
    private static func count(_ line: SourceLineSummary, into counts: inout SourceCounts) {
        guard line.wasAsked else {
            counts.notAsked += 1
            return
        }
        counts.asked += 1
        if let latency = line.latencyMilliseconds { counts.addLatency(latency) }
        switch line.outcome {
        case .won:
            counts.wins += 1
            counts.fills += 1
        case .lost: counts.fills += 1
        case .noFill: counts.noFills += 1
        case .error: counts.errors += 1
        case .timeout: counts.timeouts += 1
        case .cancelled: counts.cancelled += 1
        case .notAsked: counts.other += 1
        }
    }
}

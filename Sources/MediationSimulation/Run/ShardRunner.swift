import Foundation
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

    /// The environment of a shard's engine: its clock; the run's seed; a wall clock that follows
    /// the virtual one, so nothing the health stores depends on the machine's time; and auction
    /// ids that follow from the seed and the shard's first auction (so an exploring placement's
    /// draws, keyed by the auction id, repeat; R23).
    static func environment(clock: ManualClock, seed: UInt64, firstAuction: Int) -> MediationEnvironment {
        var environment = MediationEnvironment(clock: clock, seed: seed, wallClock: { Date(timeIntervalSince1970: 0).addingTimeInterval(clock.now.offset.inSeconds) })
        environment.auctionIDSeed = SplitMix64.mix(seed ^ SplitMix64.mix(UInt64(firstAuction) &+ SplitMix64.gamma))
        return environment
    }

    /// Runs auctions `range` of `placementID` (shard `shard`).
    ///
    /// Without a rate, `options.concurrency` workers run the auctions one after another from
    /// the clock's origin. With one (a timed run), the clock starts at the first auction's
    /// instant and auction `i` starts at its own (``SimulationOptions/arrival(ofAuction:)``),
    /// however many are in flight.
    /// - Returns: one record per auction (in index order), the counts of every source, a timed
    ///   run's windows and the health events.
    static func run(_ networks: SimulatedNetworks, placementID: String, range: Range<Int>, shard: Int, options: SimulationOptions) async -> Result<ShardOutput, SimulationError> {
        guard let models = networks.sourcesByPlacement[placementID] else {
            return .failure(SimulationError(code: .unknownPlacement, message: "no placement \"\(placementID)\" was prepared"))
        }
        let start = MediationInstant.origin + (options.arrival(ofAuction: range.lowerBound) ?? .zero)
        let clock = ManualClock(start: start)
        let segments = networks.configuration.placement(placementID)?.segments ?? []
        let collector = ShardCollector(start: range.lowerBound, count: range.count, models: models, segments: segments, seed: networks.seed, shard: shard, options: options)
        let engine: MediationEngine
        do {
            engine = try MediationEngine(
                configuration: networks.configuration,
                registry: networks.registry,
                environment: ShardRunner.environment(clock: clock, seed: networks.seed, firstAuction: range.lowerBound),
                onEvent: { collector.observe($0) }
            )
        } catch {
            return .failure(SimulationError(code: .invalidConfiguration, path: error.path, message: error.message))
        }
        let finished = await clock.perform { () -> Bool in
            if options.rate != nil {
                // A timed run: one task starts each auction at its own instant.
                clock.startTask {
                    for index in range {
                        let arrival = MediationInstant.origin + (options.arrival(ofAuction: index) ?? .zero)
                        if arrival > clock.now { try? await clock.sleep(until: arrival) }
                        clock.startTask {
                            let outcome = await engine.runAuction(placementID: placementID, context: SimulatedNetworks.context(forAuction: UInt64(index)), signals: networks.signals(forAuction: UInt64(index)))
                            collector.record(outcome, auction: index)
                        }
                    }
                }
            }
            // `concurrency` workers on the clock, each running one auction after another; an
            // auction that ends lets its worker start the next one at the same instant.
            for _ in 0..<(options.rate == nil ? min(options.concurrency, range.count) : 0) {
                clock.startTask {
                    while let index = collector.nextAuction() {
                        let outcome = await engine.runAuction(placementID: placementID, context: SimulatedNetworks.context(forAuction: UInt64(index)), signals: networks.signals(forAuction: UInt64(index)))
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

/// What one shard of one configuration came to.
struct ShardOutput: Sendable {
    var records: [AuctionRecord]
    var sources: [SourceCounts]
    var windows: [Int: WindowTotals]
    /// The first ``HealthFigures/listedEvents`` pauses and resumes.
    var healthEvents: [HealthEventRecord]
    /// Every pause.
    var pauses: Int
    /// Every resume.
    var resumes: Int
}

extension Duration {
    /// The duration in seconds.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// Collects a shard's records and source counts as its auctions end (on the shard's clock).
final class ShardCollector: Sendable {
    private struct State {
        var next: Int
        var records: [AuctionRecord]
        var sources: [SourceCounts]
        var windows: [Int: WindowTotals] = [:]
        /// The first pauses and resumes, and how many there were (``RunTotals/add(_:)``).
        var health = RunTotals(sourceCount: 0, batchCount: 0)
        var finished = 0
        var missing = 0
    }

    private let start: Int
    private let models: [SourceModel]
    /// Per segment id whose override chooses `sources`: the model index of each line of its
    /// auctions' traces (a trace's lines are the segment's sources, in the placement's order).
    private let segmentLines: [String: [Int]]
    /// The model index of each line item id.
    private let modelIndex: [String: Int]
    private let seed: UInt64
    private let shard: Int
    private let options: SimulationOptions
    private let state: Locked<State>

    init(start: Int, count: Int, models: [SourceModel], segments: [AudienceSegment] = [], seed: UInt64, shard: Int = 0, options: SimulationOptions? = nil) {
        self.start = start
        self.models = models
        var modelIndex: [String: Int] = [:]
        for (index, model) in models.enumerated() { modelIndex[model.lineItem.id] = index }
        self.modelIndex = modelIndex
        var segmentLines: [String: [Int]] = [:]
        for segment in segments {
            guard let ids = segment.override.sources else { continue }
            let chosen = Set(ids)
            segmentLines[segment.id] = models.indices.filter { chosen.contains(models[$0].lineItem.id) }
        }
        self.segmentLines = segmentLines
        self.seed = seed
        self.shard = shard
        self.options = options ?? SimulationOptions(auctions: max(1, count))
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
    var result: ShardOutput { state.withLock { ShardOutput(records: $0.records, sources: $0.sources, windows: $0.windows, healthEvents: $0.health.healthEvents, pauses: $0.health.pauses, resumes: $0.health.resumes) } }

    /// Keeps the engine's pauses and resumes (R24), in the order they are published.
    func observe(_ event: MediationEvent) {
        let record: HealthEventRecord
        switch event {
        case .networkPaused(let pause):
            record = HealthEventRecord(network: pause.networkID, lineItem: pause.lineItemID, paused: true, cause: pause.cause.rawValue, atMilliseconds: Int64(pause.at.milliseconds.rounded()), retryAtMilliseconds: Int64(pause.retryAt.milliseconds.rounded()), failures: pause.failures, outcomes: pause.outcomes, shard: shard)
        case .networkResumed(let networkID, _, let at, _, let lineItemID):
            record = HealthEventRecord(network: networkID, lineItem: lineItemID, paused: false, cause: "", atMilliseconds: Int64(at.milliseconds.rounded()), retryAtMilliseconds: 0, failures: 0, outcomes: 0, shard: shard)
        default:
            return
        }
        state.withLock { $0.health.add(record) }
    }

    /// Records auction `auction`'s outcome: the winner's realised and known prices, the
    /// duration, the oracles (from the draws), and each source's status.
    func record(_ outcome: MediationEngine.AuctionOutcome?, auction: Int) {
        guard let outcome else {
            state.withLock { state in
                state.finished += 1
                state.missing += 1
            }
            return
        }
        var record = AuctionRecord()
        // The oracles ask every source at the auction's start, so an outage applies at it.
        let arrival = options.arrival(ofAuction: auction)
        for model in models {
            let values = model.oracleValues(of: model.draw(seed: seed, auction: UInt64(auction), at: arrival))
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
        let window = options.window(ofAuction: auction)
        let lines = modelIndices(of: trace)
        state.withLock { state in
            state.records[auction - start] = record
            var windowTotals = window.map { state.windows[$0] ?? WindowTotals(sourceCount: models.count) }
            for index in 0..<trace.sourceCount {
                let model = lines?[index] ?? index
                guard model >= 0, model < state.sources.count else { continue }
                let line = trace.sourceSummary(at: index)
                ShardCollector.count(line, into: &state.sources[model])
                if windowTotals != nil {
                    if line.wasAsked { windowTotals?.sources[model].asked += 1 }
                    if case .timeout(let limit) = line.outcome {
                        windowTotals?.sources[model].timeouts += 1
                        if limit == .networkPaused { windowTotals?.sources[model].pauseEnded += 1 }
                        windowTotals?.sources[model].timeoutWaitMilliseconds += Self.waitedMilliseconds(forSourceAt: index, of: trace)
                    }
                    if case .notAsked(let reason) = line.outcome, reason == .networkPaused { windowTotals?.sources[model].paused += 1 }
                }
            }
            if let window, var totals = windowTotals {
                totals.add(record)
                state.windows[window] = totals
            }
            if record.winner >= 0 {
                state.sources[Int(record.winner)].revenue.add(record.realisedMicros)
                state.sources[Int(record.winner)].knownRevenue.add(record.knownMicros)
            }
            state.finished += 1
        }
    }

    /// The model index of each of `trace`'s lines, or `nil` when line `i` is model `i` (the
    /// auction ran all the placement's sources). A segment that chooses its sources runs fewer,
    /// in the placement's order: line `i` is then the segment's `i`-th source.
    private func modelIndices(of trace: AuctionTrace) -> [Int]? {
        guard trace.sourceCount != models.count else { return nil }
        if let segment = trace.segment, let lines = segmentLines[segment], lines.count == trace.sourceCount { return lines }
        return (0..<trace.sourceCount).map { modelIndex[trace.sourceTiming(at: $0).lineItemID] ?? -1 }
    }

    /// How long source `index` of `trace`, which timed out, was waited for, ms: from when it
    /// was asked to the auction's end, at most its limit (a pause of its network ends the wait
    /// early, R24). Reads the auction's record; builds no line.
    private static func waitedMilliseconds(forSourceAt index: Int, of trace: AuctionTrace) -> Double {
        guard index < trace.sourceCount else { return 0 }
        let line = trace.sourceTiming(at: index)
        let waited = trace.durationMilliseconds - (line.startOffsetMilliseconds ?? 0)
        return max(0, min(waited, line.limitMilliseconds ?? waited))
    }

    /// Counts one trace line by its outcome and whether it was asked.
    private static func count(_ line: SourceLineSummary, into counts: inout SourceCounts) {
        guard line.wasAsked else {
            counts.notAsked += 1
            if case .notAsked(let reason) = line.outcome, reason == .networkPaused { counts.paused += 1 }
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

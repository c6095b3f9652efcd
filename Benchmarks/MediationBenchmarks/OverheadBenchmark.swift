/// Benchmark 1: the auction's cost against its floor, a bare task-group race of the same four
/// in-process sources that answer at once.
enum OverheadBenchmark {
    static func run(quick: Bool) async -> BenchmarkResult {
        let samples = quick ? 40 : 300
        let batch = quick ? 100 : 200
        let measured = await AuctionVersusRace.run(sources: 4, samples: samples, batch: batch, warmup: quick ? 500 : 5_000)
        // The same auctions with adapters that hear no notices (receivesAuctionNotices false, as
        // Elo's, Nitx's and Qartvelo's): what building each source's private notice costs.
        let deaf = await AuctionVersusRace.run(sources: 4, samples: samples, batch: batch, warmup: quick ? 500 : 5_000, hearNotices: false)
        let deafRatio = Summary(zip(deaf.engine, deaf.floor).map { $0 / $1 })
        let engine = Summary(measured.engine)
        let floor = Summary(measured.floor)
        // Throughput from each batch: the median batch gives the median rate; the p99 of the
        // rate is the rate of the p99 (slowest) batch.
        let engineRate = Summary(measured.engine.map { 1e6 / $0 })
        let floorRate = Summary(measured.floor.map { 1e6 / $0 })
        let ratios = zip(measured.engine, measured.floor).map { $0 / $1 }
        let ratio = Summary(ratios)
        var result = BenchmarkResult(name: BenchmarkName.overhead.rawValue, title: "auction vs bare task-group race, 4 sources answering at once")
        result.figures = [
            Figure(name: "engine auction", unit: "µs/auction", summary: engine),
            Figure(name: "bare race (floor)", unit: "µs/race", summary: floor),
            Figure(name: "engine throughput", unit: "auctions/s (p99 = slowest 1% of batches)", summary: Summary(median: engineRate.median, p99: lowTail(measured.engine.map { 1e6 / $0 }), count: engineRate.count)),
            Figure(name: "floor throughput", unit: "races/s (p99 = slowest 1% of batches)", summary: Summary(median: floorRate.median, p99: lowTail(measured.floor.map { 1e6 / $0 }), count: floorRate.count)),
            Figure(name: "overhead ratio", unit: "engine / floor, per batch pair", summary: ratio),
            Figure(name: "engine, no notices", unit: "µs/auction (adapters that hear no notices)", summary: Summary(deaf.engine)),
            Figure(name: "ratio, no notices", unit: "engine / floor, per batch pair", summary: deafRatio),
        ]
        let overallRatio = engine.median / floor.median
        // Choosing a segment among 10 (and what it keeps for the reason), as each auction of a
        // placement with segments does: at most 5 % of the auction's own cost. Measured alone,
        // and as engine auctions with the 10 segments against the same without (paired batches).
        let choices = SegmentChoiceBenchmark.microsecondsPerChoice(samples: quick ? 20 : 100, batch: 1_000)
        let segmentChoice = choices.median
        result.figures.append(Figure(name: "segment choice, 10 segments", unit: "µs/auction (first match and the kept choice, per batch of 1,000)", summary: choices))
        let segmentRuns = await SegmentChoiceBenchmark.engineAuctions(count: samples * batch, warmup: quick ? 500 : 5_000)
        let segmentPlain = Summary(segmentRuns.plain)
        let segmentAdded = Summary(segmentRuns.segmented).median - segmentPlain.median
        result.figures.append(Figure(name: "auction, 10 segments", unit: "µs/auction (12 templates in rotation, each timed)", summary: Summary(segmentRuns.segmented)))
        result.figures.append(Figure(name: "auction, no segments", unit: "µs/auction (same templates, in turn with the above)", summary: segmentPlain))
        // Caps: the check before each auction with 10 caps active on every line item, against
        // the same check with no cap anywhere (its early exit): the added cost, at most 3 % of
        // the auction's own.
        let capsCheck = CapsCheckBenchmark.microsecondsPerCheck(samples: quick ? 20 : 100, batch: 1_000)
        let capsAdded = capsCheck.active.median - capsCheck.none.median
        result.figures.append(Figure(name: "caps check, 10 caps active", unit: "µs/auction (cappedSources, 4 line items, per batch of 1,000)", summary: capsCheck.active))
        result.figures.append(Figure(name: "caps check, no caps", unit: "µs/auction (the early exit, per batch of 1,000)", summary: capsCheck.none))
        result.targets = [
            TargetCheck(target: "10 active caps add <= 3 % to an auction", measured: "\(TablePrinter.format(capsAdded)) µs, \(TablePrinter.format(100 * capsAdded / engine.median)) % of \(TablePrinter.format(engine.median)) µs", met: capsAdded <= 0.03 * engine.median),
            TargetCheck(target: "overhead ratio <= 2.0", measured: "median of medians \(TablePrinter.format(overallRatio)) (per-pair median \(TablePrinter.format(ratio.median)))", met: overallRatio <= 2.0),
            TargetCheck(target: ">= 50,000 auctions/s with 4 sources", measured: "\(TablePrinter.format(1e6 / engine.median)) auctions/s at the median", met: 1e6 / engine.median >= 50_000),
            TargetCheck(target: "choosing among 10 segments <= 5 % of an auction", measured: "\(TablePrinter.format(segmentChoice)) µs, \(TablePrinter.format(100 * segmentChoice / engine.median)) % of \(TablePrinter.format(engine.median)) µs", met: segmentChoice <= 0.05 * engine.median),
            TargetCheck(target: "an auction with 10 segments <= 5 % over one without", measured: "medians \(TablePrinter.format(segmentPlain.median + segmentAdded)) against \(TablePrinter.format(segmentPlain.median)) µs: \(TablePrinter.format(segmentAdded)) µs, \(TablePrinter.format(100 * segmentAdded / segmentPlain.median)) %", met: segmentAdded <= 0.05 * segmentPlain.median),
        ]
        result.notes.append("\(samples) batches of \(batch) auctions each, engine and floor interleaved; each auction is awaited before the next starts")
        result.notes.append("the first figures' adapters hear their notices (a third-party adapter's default); 'no notices' runs the same auctions with adapters that hear none")
        result.failures = measured.violations + deaf.violations
        return result
    }

    /// The 1st percentile of a rate (its slow tail, the counterpart of a p99 latency).
    static func lowTail(_ rates: [Double]) -> Double {
        let sorted = rates.sorted()
        guard !sorted.isEmpty else { return 0 }
        let index = max(0, Int((0.01 * Double(sorted.count)).rounded(.up)) - 1)
        return sorted[index]
    }
}

extension Summary {
    /// A summary with a given median and tail figure.
    init(median: Double, p99: Double, count: Int) {
        self.init([])
        self.count = count
        self.median = median
        self.p99 = p99
        self.min = Swift.min(median, p99)
        self.max = Swift.max(median, p99)
    }
}

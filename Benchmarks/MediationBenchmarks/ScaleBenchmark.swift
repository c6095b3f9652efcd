/// Benchmark 2: how the auction's cost grows with its number of sources (1 to 256).
enum ScaleBenchmark {
    static let sourceCounts = [1, 4, 16, 64, 256]

    static func run(quick: Bool) async -> BenchmarkResult {
        var result = BenchmarkResult(name: BenchmarkName.scale.rawValue, title: "µs per auction and per source, 1 to 256 sources answering at once")
        var perSourceMedians: [Int: Double] = [:]
        for count in sourceCounts {
            let batch = max(2, 1024 / count)
            let samples = quick ? 20 : 100
            let measured = await AuctionVersusRace.run(sources: count, samples: samples, batch: batch, warmup: max(8, 4096 / count))
            let engine = Summary(measured.engine)
            let perSource = Summary(measured.engine.map { $0 / Double(count) })
            let floorPerSource = Summary(measured.floor.map { $0 / Double(count) })
            perSourceMedians[count] = perSource.median
            result.figures.append(Figure(name: "\(count) sources: auction", unit: "µs/auction", summary: engine))
            result.figures.append(Figure(name: "\(count) sources: per source", unit: "µs/source", summary: perSource))
            result.figures.append(Figure(name: "\(count) sources: floor per source", unit: "µs/source (bare race)", summary: floorPerSource))
            result.figures.append(Figure(name: "\(count) sources: ratio", unit: "engine / floor, per batch pair", summary: Summary(zip(measured.engine, measured.floor).map { $0 / $1 })))
            result.failures += measured.violations.map { "\(count) sources: \($0)" }
        }
        let flat = [4, 16, 64, 256].compactMap { perSourceMedians[$0] }
        let spread = (flat.max() ?? 0) / max(flat.min() ?? 1, 1e-9)
        result.targets = [
            TargetCheck(
                target: "cost per source flat from 4 to 256 sources (within 2x)",
                measured: "max/min of the per-source medians = \(TablePrinter.format(spread)) (4: \(TablePrinter.format(perSourceMedians[4] ?? 0)) µs, 256: \(TablePrinter.format(perSourceMedians[256] ?? 0)) µs)",
                met: spread <= 2.0
            ),
        ]
        result.notes.append("batches of max(2, 1024/n) auctions; \(quick ? 20 : 100) batches per size, engine and bare race interleaved")
        return result
    }
}

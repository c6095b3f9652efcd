import Mediation

/// Benchmark 5: resident memory after 100k and after 1M auctions (4 instant sources), and the
/// growth between them (a leak per auction would show here).
enum MemoryBenchmark {
    static func run(quick: Bool) async -> BenchmarkResult {
        let first = quick ? 10_000 : 100_000
        let second = quick ? 100_000 : 1_000_000
        let ledger = AdLedger()
        let auction = instantAuction(count: 4, ledger: ledger)
        let before = ProcessMemory.current()

        func runAuctions(_ count: Int) async {
            for _ in 0..<count {
                let outcome = await auction.run()
                outcome?.winner?.ad.releaseResources()
            }
        }
        await runAuctions(first)
        await settleLedger(ledger)
        let atFirst = ProcessMemory.current()
        await runAuctions(second - first)
        await settleLedger(ledger)
        let atSecond = ProcessMemory.current()

        var result = BenchmarkResult(name: BenchmarkName.memory.rawValue, title: "resident memory over \(label(first)) and \(label(second)) auctions (4 sources)")
        guard let before, let atFirst, let atSecond else {
            result.notes.append("/proc/self/status is not readable here: no memory figures")
            return result
        }
        let growthKiB = atSecond.residentKiB - atFirst.residentKiB
        result.figures = [
            Figure(name: "RSS before", unit: "KiB", summary: Summary(single: Double(before.residentKiB))),
            Figure(name: "RSS after \(label(first))", unit: "KiB", summary: Summary(single: Double(atFirst.residentKiB))),
            Figure(name: "RSS after \(label(second))", unit: "KiB", summary: Summary(single: Double(atSecond.residentKiB))),
            Figure(name: "growth \(label(first)) -> \(label(second))", unit: "KiB", summary: Summary(single: Double(growthKiB))),
            Figure(name: "peak RSS (VmHWM)", unit: "KiB", summary: Summary(single: Double(atSecond.peakKiB))),
        ]
        result.targets = [
            TargetCheck(target: "memory growth 100k -> 1M auctions < 1 MB", measured: "\(growthKiB) KiB\(quick ? " (quick run: \(label(first)) -> \(label(second)))" : "")", met: Double(growthKiB) * 1024 < 1_000_000),
        ]
        result.notes.append("single measurements (RSS is a level, not a rate); \(auction.lateAnswers.withLock { $0 }) late answers, released on arrival")
        result.failures = ledger.violations()
        return result
    }

    static func label(_ count: Int) -> String {
        count >= 1_000_000 ? "\(count / 1_000_000)M" : "\(count / 1000)k"
    }
}

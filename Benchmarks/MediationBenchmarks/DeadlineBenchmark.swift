import Mediation

/// Benchmark 3: deadline precision on the real clock. One source never answers and ignores
/// cancellation; the auction must answer at its 50 ms deadline. Lateness is measured by the
/// caller, on the wall clock, from the call to the answer, minus the 50 ms.
enum DeadlineBenchmark {
    static func run(quick: Bool) async -> BenchmarkResult {
        let deadline = Duration.milliseconds(50)
        let count = quick ? 40 : 240
        let hung = HungAdapter()
        let lineItem = LineItem.fixedPrice("hung", eCPM: 1.0)
        let placement = MediationConfiguration.Placement(id: "bench_deadline", format: .interstitial, deadline: deadline, sources: [lineItem])
        // Health off for the hung network: with it on (R24) the network is paused after its
        // 7th timeout and later auctions end at once without asking it (`network_paused`),
        // which is health's figure (`mediate simulate --outage`), not the deadline's.
        let auction = BenchAuction(placement: placement, adapters: [hung], health: .disabled)
        let wall = ContinuousClock()

        var lateness: [Double] = []
        var engineLateness: [Double] = []
        var sleepLateness: [Double] = []
        var wrongOutcomes = 0
        for _ in 0..<count {
            // The floor: the clock's own sleep to a 50 ms deadline, no engine.
            let sleepStart = wall.now
            try? await wall.sleep(until: sleepStart + deadline, tolerance: nil)
            sleepLateness.append((wall.now - sleepStart - deadline).microseconds / 1000)

            let start = wall.now
            guard let outcome = await auction.run() else {
                wrongOutcomes += 1
                continue
            }
            let elapsed = wall.now - start
            lateness.append((elapsed - deadline).microseconds / 1000)
            engineLateness.append(outcome.trace.endedAtMilliseconds - outcome.trace.deadlineMilliseconds)
            if outcome.winner != nil || outcome.trace.sources.first?.outcome != .timeout(.deadline) { wrongOutcomes += 1 }
        }
        let parked = hung.releaseAll()

        let summary = Summary(lateness)
        var result = BenchmarkResult(name: BenchmarkName.deadline.rawValue, title: "SystemClock, 50 ms deadline, one source that never returns")
        result.figures = [
            Figure(name: "answer past deadline (caller)", unit: "ms", summary: summary),
            Figure(name: "max past deadline (caller)", unit: "ms", summary: Summary(single: summary.max)),
            Figure(name: "end past deadline (trace)", unit: "ms", summary: Summary(engineLateness)),
            Figure(name: "bare ContinuousClock sleep (floor)", unit: "ms past its 50 ms deadline", summary: Summary(sleepLateness)),
        ]
        result.targets = [
            TargetCheck(target: "deadline overshoot p99 < 2 ms", measured: "p50 \(TablePrinter.format(summary.median)) ms, p99 \(TablePrinter.format(summary.p99)) ms, max \(TablePrinter.format(summary.max)) ms over \(count) auctions", met: summary.p99 < 2),
        ]
        result.notes.append("\(count) sequential auctions, each after a bare 50 ms sleep of the clock; the hung calls (\(parked)) were answered after the measurement")
        if summary.min < 0 { result.failures.append("an answer came \(TablePrinter.format(-summary.min)) ms before the deadline") }
        if wrongOutcomes > 0 { result.failures.append("\(wrongOutcomes) auctions did not end with the hung source timed out and no winner") }
        return result
    }
}

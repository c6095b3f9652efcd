import Foundation
import Mediation

// mediation-bench: the engine's release-mode benchmark (docs/performance.md). Run it with
//   swift build -c release --product mediation-bench
//   taskset -c 0 .build/release/mediation-bench [--json] [--quick] [--only NAME]
// from the package root (the HTTP benchmark starts the tests' loopback server from there).

let arguments: Arguments
do {
    arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("mediation-bench: \(error)\n\(Arguments.usage)\n".utf8))
    exit(2)
}

if arguments.help {
    print(Arguments.usage)
    exit(0)
}

/// Runs `body` in a detached task and blocks the main thread until it returns. The main code
/// stays synchronous: valgrind's tools (callgrind, dhat) stop with an internal error on an
/// async main's `dispatch_main`.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    let result = Locked<T?>(nil)
    Task.detached {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    guard let value = result.withLock({ $0 }) else {
        FileHandle.standardError.write(Data("mediation-bench: the run returned nothing\n".utf8))
        exit(1)
    }
    return value
}

if let count = arguments.profileAuctions {
    // No timing, no table: only the auctions, for an instruction or allocation count.
    let ran = runBlocking { await AuctionVersusRace.profile(auctions: count, hearNotices: !arguments.profileDeaf, races: arguments.profileRaces) }
    print("ran \(ran) \(arguments.profileRaces ? "bare races" : "engine auctions")")
    exit(0)
}

/// Writes a line to standard output at once (unbuffered, so a long run shows progress).
func emit(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Runs the selected benchmarks off the main actor and returns the report.
@Sendable
func runAll(_ arguments: Arguments) async -> RunReport {
    let machine = MachineInfo.current()
    let mode = arguments.quick ? "quick" : "full"
    if !arguments.json {
        emit(TablePrinter.header(machine, mode: mode))
    }
    var results: [BenchmarkResult] = []
    for name in BenchmarkName.allCases where arguments.runs(name) {
        let result: BenchmarkResult
        switch name {
        case .overhead: result = await OverheadBenchmark.run(quick: arguments.quick)
        case .scale: result = await ScaleBenchmark.run(quick: arguments.quick)
        case .deadline: result = await DeadlineBenchmark.run(quick: arguments.quick)
        case .placements: result = await PlacementsBenchmark.run(quick: arguments.quick)
        case .memory: result = await MemoryBenchmark.run(quick: arguments.quick)
        case .http: result = await HTTPBenchmark.run(quick: arguments.quick)
        case .revenue: result = await RevenueBenchmark.run(quick: arguments.quick)
        case .simulation: result = await SimulationSpeedBenchmark.run(quick: arguments.quick)
        case .learning: result = await LearningBenchmark.run(quick: arguments.quick)
        }
        if !arguments.json {
            emit(TablePrinter.render(result))
        }
        results.append(result)
    }
    let failures = results.flatMap { result in result.failures.map { "\(result.name): \($0)" } }
    return RunReport(
        machine: machine,
        mode: mode,
        benchmarks: results,
        allTargetsMet: results.allSatisfy { $0.targets.allSatisfy(\.met) },
        failures: failures
    )
}

let report = runBlocking { await runAll(arguments) }
if arguments.json {
    emit(JSONPrinter.render(report))
} else {
    let missed = report.benchmarks.flatMap { result in result.targets.filter { !$0.met }.map { "\(result.name): \($0.target)" } }
    emit("")
    emit(missed.isEmpty ? "All targets met." : "Targets missed: \(missed.joined(separator: "; "))")
}
if !report.failures.isEmpty {
    FileHandle.standardError.write(Data(("\n!!!!!!!! ACCOUNTING / CORRECTNESS FAILURES !!!!!!!!\n" + report.failures.map { "  \($0)\n" }.joined()).utf8))
    exit(1)
}

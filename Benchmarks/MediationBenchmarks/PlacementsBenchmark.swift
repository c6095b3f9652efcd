/// Benchmark 4: 10,000 banner placements refreshing for one simulated hour on virtual time.
enum PlacementsBenchmark {
    static func run(quick: Bool) async -> BenchmarkResult {
        var result = BenchmarkResult(name: BenchmarkName.placements.rawValue, title: "10,000 banner placements, one simulated hour")
        result.notes.append("not built yet")
        return result
    }
}

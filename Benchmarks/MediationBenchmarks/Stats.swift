/// Order statistics over repeated runs: the median and the 99th percentile (nearest rank).
struct Summary: Encodable {
    /// The number of samples.
    var count: Int
    /// The median sample.
    var median: Double
    /// The 99th percentile (nearest rank: the smallest sample at or above 99 % of all samples).
    var p99: Double
    /// The smallest sample.
    var min: Double
    /// The largest sample.
    var max: Double

    /// Summarises `samples` (an empty list gives zeros).
    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        guard let first = sorted.first, let last = sorted.last else {
            median = 0; p99 = 0; min = 0; max = 0
            return
        }
        min = first
        max = last
        median = Summary.rank(sorted, fraction: 0.5)
        p99 = Summary.rank(sorted, fraction: 0.99)
    }

    /// A summary of one measurement (median = p99 = the value).
    init(single value: Double) {
        self.init([value])
    }

    private static func rank(_ sorted: [Double], fraction: Double) -> Double {
        if fraction == 0.5, sorted.count % 2 == 0 {
            return (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        let index = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
    }
}

extension Duration {
    /// This length of time in microseconds.
    var microseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1e6 + Double(parts.attoseconds) / 1e12
    }
}

/// Times `body` on the monotonic wall clock.
func measure(_ body: () async -> Void) async -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    await body()
    return clock.now - start
}

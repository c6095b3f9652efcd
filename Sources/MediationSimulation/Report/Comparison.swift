/// One figure of two runs on the same draws, and its difference B − A with a 95 % interval.
public struct FigureDifference: Hashable, Sendable, Codable {
    /// How the interval is computed.
    public enum Method: String, Hashable, Sendable, Codable {
        /// From the per-auction differences: mean ± t · s / √n (common random numbers make them
        /// small where the configurations agree).
        case paired
        /// From the difference of the ratio in each batch: ± t · s_B / √B around the overall
        /// difference.
        case batchMeans = "batch_means"
    }

    /// The figure's name, as in ``SimulationReport``'s JSON, e.g. `revenue_per_1000_requests`.
    public var figure: String
    /// Its value in run A (`nil` when undefined, e.g. a mean eCPM with no fill).
    public var a: Double?
    /// Its value in run B.
    public var b: Double?
    /// B − A (`nil` when either is undefined).
    public var difference: Double?
    /// The 95 % interval of B − A (`nil` when it cannot be estimated: under two auctions or
    /// batches with a value).
    public var interval: ConfidenceInterval?
    /// How ``interval`` is computed.
    public var method: Method

    /// Creates a difference.
    public init(figure: String, a: Double?, b: Double?, difference: Double?, interval: ConfidenceInterval?, method: Method) {
        self.figure = figure
        self.a = a
        self.b = b
        self.difference = difference
        self.interval = interval
        self.method = method
    }

    /// Whether the interval excludes 0: the difference is significant at the 5 % level.
    public var isSignificant: Bool {
        guard let interval else { return false }
        return interval.lower > 0 || interval.upper < 0
    }
}

/// Two configurations of one placement run on the same auctions and the same draws (common
/// random numbers), with each figure's difference B − A.
public struct SimulationComparison: Hashable, Sendable, Codable {
    /// Run A's report.
    public var a: SimulationReport
    /// Run B's report.
    public var b: SimulationReport
    /// The differences, in a fixed order: `fill_rate`, `revenue_per_1000_requests`,
    /// `known_revenue_per_1000_requests`, `mean_auction_ms` (paired), `mean_winning_ecpm`,
    /// `oracle_ratio`, `unbounded_oracle_ratio` (batch means).
    public var differences: [FigureDifference]

    /// Creates a comparison.
    public init(a: SimulationReport, b: SimulationReport, differences: [FigureDifference]) {
        self.a = a
        self.b = b
        self.differences = differences
    }

    /// The difference of `figure`.
    /// - Parameter figure: a figure's name, e.g. `"revenue_per_1000_requests"`.
    public func difference(_ figure: String) -> FigureDifference? {
        differences.first { $0.figure == figure }
    }
}

/// The differences between two configurations' totals on the same draws.
enum Differences {
    /// Every compared figure, configuration `k` − configuration `j`.
    static func between(_ totals: MultiTotals, from j: Int, to k: Int) -> [FigureDifference] {
        [
            paired(totals, "fill_rate", .filled, j, k, divisor: 1),
            paired(totals, "revenue_per_1000_requests", .realised, j, k, divisor: 1_000_000),
            paired(totals, "known_revenue_per_1000_requests", .known, j, k, divisor: 1_000_000),
            paired(totals, "mean_auction_ms", .duration, j, k, divisor: 1),
            ratio(totals, "mean_winning_ecpm", Ratios.meanWinningECPM, j, k),
            ratio(totals, "oracle_ratio", Ratios.oracleRatio, j, k),
            ratio(totals, "unbounded_oracle_ratio", Ratios.unboundedOracleRatio, j, k),
        ]
    }

    /// A mean over auctions: the difference of the means, and the interval of the mean paired
    /// difference, both divided by `divisor`.
    private static func paired(_ totals: MultiTotals, _ figure: String, _ metric: PairedMetric, _ j: Int, _ k: Int, divisor: Double) -> FigureDifference {
        let a = mean(totals, metric, j).map { $0 / divisor }
        let b = mean(totals, metric, k).map { $0 / divisor }
        let difference = Estimators.mean(totals.difference(metric, from: j, to: k))
        return FigureDifference(
            figure: figure,
            a: a,
            b: b,
            difference: difference.map { $0.mean / divisor },
            interval: difference?.interval?.divided(by: divisor),
            method: .paired
        )
    }

    private static func mean(_ totals: MultiTotals, _ metric: PairedMetric, _ configuration: Int) -> Double? {
        let run = totals.runs[configuration]
        let moments: Moments
        switch metric {
        case .realised: moments = run.realised
        case .known: moments = run.known
        case .filled: moments = run.filled
        case .duration: moments = run.duration
        }
        return Estimators.mean(moments)?.mean
    }

    /// A ratio of sums: the difference of the overall ratios, with the batch-means interval of
    /// the batch differences.
    private static func ratio(_ totals: MultiTotals, _ figure: String, _ ratio: Ratios.Ratio, _ j: Int, _ k: Int) -> FigureDifference {
        let a = ratio(Ratios.overall(totals.runs[j]))
        let b = ratio(Ratios.overall(totals.runs[k]))
        let difference: Double? = if let a, let b { b - a } else { nil }
        var batchDifferences: [Double] = []
        for (batchA, batchB) in zip(totals.runs[j].batches, totals.runs[k].batches) {
            if let valueA = ratio(batchA), let valueB = ratio(batchB) { batchDifferences.append(valueB - valueA) }
        }
        return FigureDifference(
            figure: figure,
            a: a,
            b: b,
            difference: difference,
            interval: difference.flatMap { Estimators.batchInterval(center: $0, batchValues: batchDifferences) },
            method: .batchMeans
        )
    }
}

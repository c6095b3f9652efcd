extension MediationStatistics {
    /// The figures of one network or one line item over many auctions (``MediationStatistics``).
    ///
    /// - ``requests``: how often it was asked (a trace line with a start offset).
    /// - ``fills``: answers that brought an ad in time: outcome `won` or `lost` with an ad id
    ///   (a bid rejected for its price counts; a late or timed-out ad does not).
    /// - ``fillRate``: fills / requests; ``winRate``: wins / fills (`nil` when the divisor is 0).
    /// - ``timeouts``, ``errors``: outcomes `timeout` (any limit) and `error`.
    /// - ``latencyP50Milliseconds`` …: nearest-rank percentiles of the latencies of the answers
    ///   that arrived (ms): the value at rank ⌈p/100 × n⌉ of the n latencies sorted ascending
    ///   (so p50 of 10, 20, 30, 40 is 20, p99 of 100 values is the 99th); `nil` with no answer.
    /// - ``impressions``, ``revenueUSD``: the impressions its ads counted and their revenue in USD
    ///   (eCPM / 1000 each).
    public struct Figures: Hashable, Sendable, Codable {
        /// The network id, or the line item id for a line item's row.
        public var id: String
        /// The network id (equal to ``id`` for a network's row).
        public var network: String
        /// Times asked.
        public var requests: Int
        /// Answers with an ad in time.
        public var fills: Int
        /// Auctions won.
        public var wins: Int
        /// Outcomes `timeout`.
        public var timeouts: Int
        /// Outcomes `error`.
        public var errors: Int
        /// Impressions counted.
        public var impressions: Int
        /// Revenue of those impressions, USD.
        public var revenueUSD: Double
        /// fills / requests, from 0 to 1; `nil` with no request.
        public var fillRate: Double?
        /// wins / fills, from 0 to 1; `nil` with no fill.
        public var winRate: Double?
        /// Nearest-rank 50th percentile latency, ms.
        public var latencyP50Milliseconds: Double?
        /// Nearest-rank 95th percentile latency, ms.
        public var latencyP95Milliseconds: Double?
        /// Nearest-rank 99th percentile latency, ms.
        public var latencyP99Milliseconds: Double?

        private enum CodingKeys: String, CodingKey {
            case id, network, requests, fills, wins, timeouts, errors, impressions
            case revenueUSD = "revenue_usd"
            case fillRate = "fill_rate"
            case winRate = "win_rate"
            case latencyP50Milliseconds = "latency_p50_ms"
            case latencyP95Milliseconds = "latency_p95_ms"
            case latencyP99Milliseconds = "latency_p99_ms"
        }

        /// Creates a row.
        public init(
            id: String, network: String, requests: Int = 0, fills: Int = 0, wins: Int = 0, timeouts: Int = 0, errors: Int = 0,
            impressions: Int = 0, revenueUSD: Double = 0, fillRate: Double? = nil, winRate: Double? = nil,
            latencyP50Milliseconds: Double? = nil, latencyP95Milliseconds: Double? = nil, latencyP99Milliseconds: Double? = nil
        ) {
            self.id = id
            self.network = network
            self.requests = requests
            self.fills = fills
            self.wins = wins
            self.timeouts = timeouts
            self.errors = errors
            self.impressions = impressions
            self.revenueUSD = revenueUSD
            self.fillRate = fillRate
            self.winRate = winRate
            self.latencyP50Milliseconds = latencyP50Milliseconds
            self.latencyP95Milliseconds = latencyP95Milliseconds
            self.latencyP99Milliseconds = latencyP99Milliseconds
        }

        /// The nearest-rank percentile `p` (0 < p ≤ 100) of `values`: the value at rank
        /// ⌈p/100 × n⌉ of the values sorted ascending; `nil` for no values.
        /// - Parameters:
        ///   - p: the percentile, e.g. 95.
        ///   - values: the sample (any order).
        public static func nearestRank(_ p: Double, of values: [Double]) -> Double? {
            guard !values.isEmpty, p > 0, p <= 100 else { return nil }
            let sorted = values.sorted()
            let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
            return sorted[min(max(rank, 1), sorted.count) - 1]
        }
    }
}

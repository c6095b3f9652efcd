/// What a refreshing placement earned over a stretch of virtual time, shown in one visible view
/// that renders every new ad at once (``Simulation/runPlacement(configuration:market:placementID:duration:seed:)``).
public struct PlacementRunReport: Hashable, Sendable, Codable {
    /// One line item's impressions.
    public struct LineItemImpressions: Hashable, Sendable, Codable {
        /// The line item id.
        public var lineItemID: String
        /// The network id.
        public var network: String
        /// Impressions it served.
        public var impressions: Int
        /// Their realised revenue, USD.
        public var revenueUSD: Double

        private enum CodingKeys: String, CodingKey {
            case lineItemID = "line_item"
            case network
            case impressions
            case revenueUSD = "revenue_usd"
        }

        /// Creates a line.
        public init(lineItemID: String, network: String, impressions: Int, revenueUSD: Double) {
            self.lineItemID = lineItemID
            self.network = network
            self.impressions = impressions
            self.revenueUSD = revenueUSD
        }
    }

    /// The placement.
    public var placementID: String
    /// The seed.
    public var seed: UInt64
    /// The virtual time run, in seconds.
    public var durationSeconds: Double
    /// Auctions the placement ran (the first load and every refresh, R13).
    public var auctions: Int
    /// Auctions that filled.
    public var filledAuctions: Int
    /// Impressions counted (R12): each new ad shown once in the visible view.
    public var impressions: Int
    /// Σ realised price ÷ 1000 of the impressions, USD.
    public var revenueUSD: Double
    /// Σ known value (the engine's `shown` revenue) of the impressions, USD.
    public var knownRevenueUSD: Double
    /// Impressions per virtual hour.
    public var impressionsPerHour: Double
    /// Realised revenue per virtual hour, USD.
    public var revenuePerHourUSD: Double
    /// Per line item that served, in configuration order.
    public var lineItems: [LineItemImpressions]

    private enum CodingKeys: String, CodingKey {
        case placementID = "placement"
        case seed
        case durationSeconds = "duration_s"
        case auctions
        case filledAuctions = "filled_auctions"
        case impressions
        case revenueUSD = "revenue_usd"
        case knownRevenueUSD = "known_revenue_usd"
        case impressionsPerHour = "impressions_per_hour"
        case revenuePerHourUSD = "revenue_per_hour_usd"
        case lineItems = "line_items"
    }

    /// Creates a report.
    public init(placementID: String, seed: UInt64, durationSeconds: Double, auctions: Int, filledAuctions: Int, impressions: Int, revenueUSD: Double, knownRevenueUSD: Double, lineItems: [LineItemImpressions]) {
        self.placementID = placementID
        self.seed = seed
        self.durationSeconds = durationSeconds
        self.auctions = auctions
        self.filledAuctions = filledAuctions
        self.impressions = impressions
        self.revenueUSD = revenueUSD
        self.knownRevenueUSD = knownRevenueUSD
        impressionsPerHour = durationSeconds > 0 ? Double(impressions) * 3600 / durationSeconds : 0
        revenuePerHourUSD = durationSeconds > 0 ? revenueUSD * 3600 / durationSeconds : 0
        self.lineItems = lineItems
    }
}

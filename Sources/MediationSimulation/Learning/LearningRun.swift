/// One fixed-price line item's price on one day of a learning run.
public struct LearnedPrice: Hashable, Sendable, Codable {
    /// The line item id.
    public var lineItemID: String
    /// Its network id.
    public var network: String
    /// The eCPM it was priced at that day, USD CPM.
    public var eCPM: Double
    /// The market's true mean realised eCPM that day, USD CPM (what the limit prices it at).
    public var trueMean: Double
    /// The eCPM the learner chose at the end of the day, for the next, USD CPM.
    public var learned: Double
    /// The impressions it won that day (its revenue report's row).
    public var impressions: Int
    /// Its revenue that day, USD.
    public var revenueUSD: Double
    /// On a market with countries: its wins that day per country it won in, by country code
    /// (its revenue report's rows per country); empty otherwise. Not in the JSON report.
    public var impressionsByCountry: [String: Int] = [:]
    /// On a market with countries: its revenue that day per country it won in, USD, by country
    /// code; empty otherwise. Not in the JSON report.
    public var revenueUSDByCountry: [String: Double] = [:]

    enum CodingKeys: String, CodingKey {
        case lineItemID = "line_item", network
        case eCPM = "ecpm", trueMean = "true_mean", learned, impressions
        case revenueUSD = "revenue_usd"
    }
}

/// One learner's figures on one day.
public struct LearnerDay: Hashable, Sendable, Codable {
    /// The learner's name.
    public var learner: String
    /// Realised revenue per 1000 requests, USD.
    public var revenuePer1000Requests: Double
    /// ``revenuePer1000Requests`` ÷ the true-means limit's.
    public var ratioToLimit: Double?
    /// Filled requests ÷ requests.
    public var fillRate: Double
    /// The fixed-price line items' prices, in the placement's order.
    public var prices: [LearnedPrice]
    /// With a country named (``LearningOptions/country``): the learner's realised revenue in that
    /// country's auctions ÷ the limit's in the same auctions; `nil` otherwise, or when the limit
    /// earned nothing there that day (JSON `null`, always present).
    public var countryRatioToLimit: Double?

    enum CodingKeys: String, CodingKey {
        case learner
        case revenuePer1000Requests = "revenue_per_1000_requests"
        case ratioToLimit = "ratio_to_limit"
        case fillRate = "fill_rate"
        case prices
        case countryRatioToLimit = "country_ratio_to_limit"
    }

    /// Every key, `country_ratio_to_limit` as `null` when there is none (no country named, or
    /// no revenue of the limit there that day), so a reader finds the key on every day.
    /// - Throws: the encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(learner, forKey: .learner)
        try container.encode(revenuePer1000Requests, forKey: .revenuePer1000Requests)
        try container.encodeIfPresent(ratioToLimit, forKey: .ratioToLimit)
        try container.encode(fillRate, forKey: .fillRate)
        try container.encode(prices, forKey: .prices)
        try container.encode(countryRatioToLimit, forKey: .countryRatioToLimit)
    }
}

/// One simulated day: the limit and every learner on the same draws.
public struct LearningDay: Hashable, Sendable, Codable {
    /// The day, from 1.
    public var day: Int
    /// Its UTC date (`YYYY-MM-DD`), the day of its revenue report.
    public var date: String
    /// The true-means limit's realised revenue per 1000 requests, USD.
    public var limitRevenuePer1000Requests: Double
    /// Each learner's figures, in the run's order.
    public var learners: [LearnerDay]

    enum CodingKeys: String, CodingKey {
        case day, date
        case limitRevenuePer1000Requests = "limit_revenue_per_1000_requests"
        case learners
    }
}

/// A learner's figures over the whole run.
public struct LearnerSummary: Hashable, Sendable, Codable {
    /// The learner's name.
    public var learner: String
    /// Realised revenue per 1000 requests over every day, USD.
    public var revenuePer1000Requests: Double
    /// ``revenuePer1000Requests`` ÷ the limit's over every day.
    public var ratioToLimit: Double?
    /// The 95 % interval of ``ratioToLimit``: 1 + the paired interval of (learner − limit) ÷
    /// the limit's mean.
    public var ratioToLimitInterval: ConfidenceInterval?
    /// The lowest daily ratio to the limit from day 3 on (`nil` under 3 days).
    public var minimumDailyRatioFromDay3: Double?
    /// With a country named: the learner's revenue there over every day ÷ the limit's; `nil`
    /// otherwise, or when the limit earned nothing there (JSON `null`, always present).
    public var countryRatioToLimit: Double?

    enum CodingKeys: String, CodingKey {
        case learner
        case revenuePer1000Requests = "revenue_per_1000_requests"
        case ratioToLimit = "ratio_to_limit"
        case ratioToLimitInterval = "ratio_to_limit_interval"
        case minimumDailyRatioFromDay3 = "minimum_daily_ratio_from_day_3"
        case countryRatioToLimit = "country_ratio_to_limit"
    }

    /// Every key, `country_ratio_to_limit` as `null` when there is none (no country named, or
    /// no revenue of the limit there over the run, e.g. no auction drawn in it).
    /// - Throws: the encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(learner, forKey: .learner)
        try container.encode(revenuePer1000Requests, forKey: .revenuePer1000Requests)
        try container.encodeIfPresent(ratioToLimit, forKey: .ratioToLimit)
        try container.encodeIfPresent(ratioToLimitInterval, forKey: .ratioToLimitInterval)
        try container.encodeIfPresent(minimumDailyRatioFromDay3, forKey: .minimumDailyRatioFromDay3)
        try container.encode(countryRatioToLimit, forKey: .countryRatioToLimit)
    }
}

/// Learner B's revenue over the run minus learner A's, on the same draws.
public struct LearnerDifference: Hashable, Sendable, Codable {
    /// The name that stands for the true-means limit as ``b`` (no learner has it): the limit
    /// minus a learner, the most any learner could gain over that one on the same draws.
    public static let limit = "limit"

    /// Learner A (the baseline).
    public var a: String
    /// Learner B.
    public var b: String
    /// `revenue_per_1000_requests`, B − A, with its paired 95 % interval over every auction of
    /// every day.
    public var revenuePer1000Requests: FigureDifference

    enum CodingKeys: String, CodingKey {
        case a, b
        case revenuePer1000Requests = "revenue_per_1000_requests"
    }
}

/// A learning run: day after day on the market, each learner repricing its fixed-price line
/// items from its own revenue reports at the end of each day, beside the true-means limit.
public struct LearningRun: Hashable, Sendable, Codable {
    /// The placement.
    public var placementID: String
    /// The seed (each day's draws come from a seed derived from it and the day).
    public var seed: UInt64
    /// The days run.
    public var days: Int
    /// The auctions (requests) per day.
    public var auctionsPerDay: Int
    /// The drifts applied.
    public var drifts: [PriceDrift]
    /// The learners, in order.
    public var learners: [String]
    /// The days.
    public var daily: [LearningDay]
    /// The limit's realised revenue per 1000 requests over every day, USD.
    public var limitRevenuePer1000Requests: Double
    /// Each learner's figures over the run.
    public var summaries: [LearnerSummary]
    /// Every later learner against every earlier one (the last, usually `bayes`, against each
    /// baseline), then the limit against each learner (``LearnerDifference/limit`` as `b`): a
    /// learner can beat another with an interval above 0 only where the limit beats it so.
    public var differences: [LearnerDifference]
    /// On a market with countries, with `bayes` (or `thompson`) among the learners: how often its
    /// estimator's 90 % intervals held the market's true mean per (line item, country, day),
    /// by the cell's impressions; `nil` otherwise.
    public var calibration: [CalibrationBin]?
    /// The country whose figures the days and summaries add (``LearnerDay/countryRatioToLimit``),
    /// if one was named.
    public var country: String?

    enum CodingKeys: String, CodingKey {
        case placementID = "placement", seed, days
        case auctionsPerDay = "auctions_per_day"
        case drifts, learners, daily
        case limitRevenuePer1000Requests = "limit_revenue_per_1000_requests"
        case summaries, differences, calibration, country
    }

    /// The summary of `learner`.
    /// - Parameter learner: a learner's name.
    public func summary(_ learner: String) -> LearnerSummary? {
        summaries.first { $0.learner == learner }
    }

    /// The difference `b` − `a`, if both ran (in either order; the sign follows the arguments).
    /// - Parameters:
    ///   - b: a learner's name.
    ///   - a: another's.
    public func difference(_ b: String, minus a: String) -> FigureDifference? {
        if let found = differences.first(where: { $0.a == a && $0.b == b }) { return found.revenuePer1000Requests }
        guard let found = differences.first(where: { $0.a == b && $0.b == a }) else { return nil }
        var flipped = found.revenuePer1000Requests
        flipped.a = found.revenuePer1000Requests.b
        flipped.b = found.revenuePer1000Requests.a
        flipped.difference = flipped.difference.map { -$0 }
        flipped.interval = flipped.interval.map { ConfidenceInterval(lower: -$0.upper, upper: -$0.lower) }
        return flipped
    }
}

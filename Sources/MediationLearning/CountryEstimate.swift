/// The estimate of one line item's price in one country (``BayesianECPM``): the country's own
/// eCPM shrunk towards the line item's by a strength estimated from the data.
public struct CountryEstimate: Hashable, Sendable {
    /// The country, an upper-case ISO 3166-1 alpha-2 code.
    public var country: String
    /// The posterior mean, USD CPM.
    public var mean: Double
    /// The posterior standard deviation, USD CPM.
    public var standardDeviation: Double
    /// The lower end of the 90 % credible interval, USD CPM.
    public var lower: Double
    /// The upper end of the 90 % credible interval, USD CPM.
    public var upper: Double
    /// How far the country is pulled to its line item, from 0 (its own data) to 1 (the line
    /// item's price).
    public var shrinkage: Double
    /// The recency-weighted impressions.
    public var effectiveImpressions: Double
    /// The reported impressions in the window, unweighted.
    public var impressions: Int
    /// The reported days in the window.
    public var days: Int
    /// The first day of the country's current price level, `nil` when no change was found.
    public var levelStart: UTCDay?

    /// Whether the data says the country pays differently from `price` (the line item's pooled
    /// price): the 90 % interval excludes it.
    /// - Parameter price: a price, USD CPM.
    public func differs(from price: Double) -> Bool {
        price < lower || price > upper
    }
}

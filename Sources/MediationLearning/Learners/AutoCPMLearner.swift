/// A model of AppLovin MAX's Auto-CPM, from its documented rules: the network's reported eCPM
/// over the last 7 days, weighted towards recent days, used only when those 7 days hold at
/// least 1,000 impressions; else the manual price. Updated daily, per ad unit and country: a
/// line item's price from all its rows, and each country's from that country's rows (below
/// 1,000 impressions in 7 days, the country's manual price: its `ecpm_by_country` entry, else
/// the line item's manual price).
///
/// MAX does not publish its weights; this model weighs a day `7 − age` (the as-of day 7, six
/// days before it 1) and averages revenue over impressions with those weights:
/// `eCPM = 1000 · Σ w·revenue / Σ w·impressions`.
public struct AutoCPMLearner: ECPMLearner {
    /// `auto-cpm`.
    public let name = "auto-cpm"
    /// The days averaged, the as-of day included (7).
    public var windowDays = 7
    /// The impressions the window must hold (1,000).
    public var minimumImpressions = 1_000

    /// Creates the learner.
    public init() {}

    /// The weighted 7-day eCPM of each line item with enough impressions, else its manual price.
    /// - Parameter input: the reported days.
    public func prices(for input: LearnerInput) -> [Double] {
        zip(input.lineItems, input.manualECPMs).map { lineItem, manual in
            price(lineItem.observations, asOf: input.asOf) ?? manual
        }
    }

    /// Each country with rows: its weighted 7-day eCPM with enough impressions, else its manual
    /// price.
    /// - Parameter input: the reported days per country.
    public func countryPrices(for input: LearnerInput) -> [[String: Double]] {
        input.lineItems.indices.map { index in
            var prices: [String: Double] = [:]
            for (country, observations) in input.countries(of: index) {
                prices[country] = price(observations, asOf: input.asOf) ?? input.manualECPM(index, country: country)
            }
            return prices
        }
    }

    /// The weighted eCPM of `observations` over the window, `nil` below the minimum impressions.
    private func price(_ observations: [BayesianECPM.Observation], asOf: UTCDay) -> Double? {
        var impressions = 0
        var weightedRevenue = 0.0
        var weightedImpressions = 0.0
        for observation in observations {
            let age = asOf.daysSince1970 - observation.day.daysSince1970
            guard age >= 0, age < windowDays else { continue }
            let weight = Double(windowDays - age)
            impressions += observation.impressions
            weightedRevenue += weight * observation.revenueUSD
            weightedImpressions += weight * Double(observation.impressions)
        }
        guard impressions >= minimumImpressions, weightedImpressions > 0 else { return nil }
        let price = 1000 * weightedRevenue / weightedImpressions
        return price.isFinite && price > 0 ? price : nil
    }
}

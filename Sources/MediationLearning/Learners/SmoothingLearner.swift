import Foundation

/// A model of OpenMediation's exponential smoothing (its server's `WaterfallEcpmService`), from
/// its published code, per instance (line item) and country:
///
/// - The daily eCPMs of the last 7 days with impressions, oldest first, are smoothed
///   `s = α·x + (1 − α)·s` from `s = x₀`, with α = 0.9 when their coefficient of variation is
///   at least 0.15, 0.6 when it is above 0.03, else 0.3.
/// - Cold start, when there are at most 3 such days and the last one has under 50 impressions
///   (or there are none): the mean eCPM over them if they hold more than 100 impressions, else
///   the manual price (for a country: its `ecpm_by_country` entry, else the line item's). Its
///   coarser pools (the network's in the country, then the network's, then 1.0) come only
///   after a missing manual price, which a fixed-price line item always has.
public struct SmoothingLearner: ECPMLearner {
    /// `smoothing`.
    public let name = "smoothing"
    /// The days looked at, the as-of day included (7).
    public var windowDays = 7

    /// Creates the learner.
    public init() {}

    /// The smoothed eCPM of each line item (its countries' rows summed per day), or its
    /// cold-start price.
    /// - Parameter input: the reported days.
    public func prices(for input: LearnerInput) -> [Double] {
        zip(input.lineItems, input.manualECPMs).map { lineItem, manual in
            price(LearnerInput.daily(lineItem.observations), manual: manual, asOf: input.asOf)
        }
    }

    /// Each country with rows: its smoothed eCPM, or its cold-start price.
    /// - Parameter input: the reported days per country.
    public func countryPrices(for input: LearnerInput) -> [[String: Double]] {
        input.lineItems.indices.map { index in
            var prices: [String: Double] = [:]
            for (country, observations) in input.countries(of: index) {
                prices[country] = price(LearnerInput.daily(observations), manual: input.manualECPM(index, country: country), asOf: input.asOf)
            }
            return prices
        }
    }

    /// The smoothing constant for daily eCPMs whose coefficient of variation is `cv`.
    /// - Parameter cv: the standard deviation over the mean.
    public static func alpha(coefficientOfVariation cv: Double) -> Double {
        cv >= 0.15 ? 0.9 : (cv > 0.03 ? 0.6 : 0.3)
    }

    /// The price of one series of days (one row a day).
    private func price(_ observations: [BayesianECPM.Observation], manual: Double, asOf: UTCDay) -> Double {
        let days = observations
            .filter { observation in
                let age = asOf.daysSince1970 - observation.day.daysSince1970
                return age >= 0 && age < windowDays && observation.impressions > 0
            }
            .sorted { $0.day < $1.day }
        let price = days.count > 3 || (days.last.map { $0.impressions >= 50 } ?? false)
            ? smoothed(days.map { 1000 * $0.revenueUSD / Double($0.impressions) })
            : coldStart(days, manual: manual)
        return price.isFinite && price > 0 ? price : manual
    }

    private func smoothed(_ eCPMs: [Double]) -> Double {
        guard let first = eCPMs.first else { return .nan }
        let mean = eCPMs.reduce(0, +) / Double(eCPMs.count)
        let variance = eCPMs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(eCPMs.count)
        let cv = mean > 0 ? variance.squareRoot() / mean : 0
        let alpha = SmoothingLearner.alpha(coefficientOfVariation: cv)
        return eCPMs.dropFirst().reduce(first) { alpha * $1 + (1 - alpha) * $0 }
    }

    private func coldStart(_ days: [BayesianECPM.Observation], manual: Double) -> Double {
        let impressions = days.reduce(0) { $0 + $1.impressions }
        guard impressions > 100 else { return manual }
        return 1000 * days.reduce(0) { $0 + $1.revenueUSD } / Double(impressions)
    }
}

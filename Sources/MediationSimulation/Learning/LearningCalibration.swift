import Mediation
import MediationLearning

/// How often the estimator's 90 % intervals held the market's true mean, over the (line item,
/// country, day) cells of a learning run on a market with countries, for cells with the
/// impressions of one bin (`docs/learning.md`, "Calibration").
public struct CalibrationBin: Hashable, Sendable, Codable {
    /// The bin: `under 100`, `100 to 1000` or `over 1000` impressions in the estimate's window.
    public var impressions: String
    /// The cells estimated.
    public var cells: Int
    /// The cells whose 90 % interval contained the true mean price.
    public var covered: Int
    /// `covered / cells`; `nil` without cells.
    public var coverage: Double?
}

/// The cells counted so far, per bin.
struct CalibrationTally {
    /// The bins' names, in order.
    static let names = ["under 100", "100 to 1000", "over 1000"]
    var cells = [0, 0, 0]
    var covered = [0, 0, 0]

    /// The bin of a cell with `impressions` in its window.
    static func bin(_ impressions: Int) -> Int {
        impressions < 100 ? 0 : (impressions <= 1000 ? 1 : 2)
    }

    mutating func add(_ other: CalibrationTally) {
        for index in cells.indices {
            cells[index] += other.cells[index]
            covered[index] += other.covered[index]
        }
    }

    var bins: [CalibrationBin] {
        CalibrationTally.names.indices.map { index in
            CalibrationBin(impressions: CalibrationTally.names[index], cells: cells[index], covered: covered[index], coverage: cells[index] > 0 ? Double(covered[index]) / Double(cells[index]) : nil)
        }
    }
}

extension LearningState {
    /// The prices the engine orders `placement`'s tiers by in each country (``MarketTruth``'s
    /// tiers, USD CPM), as the engine ran them that day: a line item's price in
    /// `countryPrices` (its `ecpm_by_country`) where it has one for the country, else its
    /// price in `pricesUSD`.
    func order(_ pricesUSD: [Double], countryPrices: [[String: Double]] = [], market: Market, placement: MediationConfiguration.Placement) -> [[Double]]? {
        guard let countries = market.countries?.countries else { return nil }
        let tiers = TruthTier.tiers(of: placement, in: market)
        var byID: [String: Int] = [:]
        for (index, priced) in lineItems.enumerated() where index < pricesUSD.count { byID[priced.lineItem.id] = index }
        return countries.map { country in
            tiers.map { tier in
                guard let index = byID[tier.lineItemID] else { return tier.floors.first ?? 0 }
                return (index < countryPrices.count ? countryPrices[index][country.code] : nil) ?? pricesUSD[index]
            }
        }
    }

    /// The estimator's country cells of `learner`'s reports as of `day` against `truth` (the
    /// market's true mean price per tier and country that day): which intervals held it.
    func calibration(learner: Int, asOf day: UTCDay, truth: MarketTruth?) -> CalibrationTally {
        var tally = CalibrationTally()
        guard let truth else { return tally }
        let inputs = lineItems.indices.map { index in
            BayesianECPM.Input(
                placementID: placementID, lineItemID: lineItems[index].lineItem.id, network: lineItems[index].lineItem.network,
                configuredECPM: prices[learner][index], observations: reports[learner][index]
            )
        }
        for estimate in BayesianECPM().estimate(inputs, asOf: day) {
            guard let tier = truth.lineItemIDs.firstIndex(of: estimate.lineItemID) else { continue }
            for country in estimate.countries {
                guard let index = truth.countries.firstIndex(of: country.country), truth.cells[index][tier].takesPart else { continue }
                let mean = truth.cells[index][tier].meanPrice
                let bin = CalibrationTally.bin(country.impressions)
                tally.cells[bin] += 1
                if country.lower <= mean && mean <= country.upper { tally.covered[bin] += 1 }
            }
        }
        return tally
    }
}

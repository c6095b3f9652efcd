import Foundation
import Mediation

extension Market {
    /// This market on day `day` of a run (from 1): every network's and country's daily drift
    /// compounded over the days since day 1, and the shocks begun by then, apply to the bids.
    /// A one-country market is returned as it is.
    /// - Parameter day: the day, from 1.
    /// - Returns: the market of that day.
    public func onDay(_ day: Int) -> Market {
        var result = self
        result.countries?.day = day
        return result
    }

    /// This market with every fixed-price tier's floor fixed at its price in `configuration`,
    /// per country: runs of other configurations (a learner's repriced one) then change only
    /// what the engine believes a tier is worth, not when the network fills it. A learning run
    /// pins the floors to the configuration it starts from.
    /// - Parameter configuration: the configuration whose eCPMs are the floors.
    /// - Returns: the market with ``pinnedFloors`` set.
    public func pinningFloors(to configuration: MediationConfiguration) -> Market {
        var result = self
        guard let countries else { return result }
        var floors: [String: [String: Double]] = [:]
        for placement in configuration.placements {
            for lineItem in placement.sources where lineItem.pricing == .fixedPrice {
                var byCountry: [String: Double] = [:]
                for country in countries.countries {
                    byCountry[country.code] = Market.configuredECPM(of: lineItem, country: country.code)
                }
                floors[lineItem.id] = byCountry
            }
        }
        result.pinnedFloors = floors
        return result
    }

    /// A fixed-price line item's configured price in `country` as the engine values it, USD CPM
    /// (its `ecpm_by_country` entry for the country, else its eCPM, × its currency's rate to
    /// USD), or `nil` when it has none.
    static func configuredECPM(of lineItem: LineItem, country: String) -> Double? {
        (lineItem.eCPMByCountry[country] ?? lineItem.eCPM).map { $0 * lineItem.usdRate }
    }

    /// The floor of tier `lineItem` in `country`, USD CPM: the pinned one, else its price in
    /// the run's configuration.
    func floor(of lineItem: LineItem, country: String) -> Double? {
        pinnedFloors?[lineItem.id]?[country] ?? Market.configuredECPM(of: lineItem, country: country)
    }

    /// The mean bid of `network` for a user of value 1 in each country on the market's day,
    /// USD CPM, by country index (empty for a network without ``NetworkMarket/tiered``).
    func meanBids(of network: NetworkMarket) -> [Double] {
        guard let countries, let tiered = network.tiered else { return [] }
        let networkFactor = Foundation.pow(1 + tiered.dailyDrift, Double(countries.day - 1))
        return countries.countries.indices.map { index in
            tiered.baseECPM * (tiered.priceLevels[countries.countries[index].code] ?? 0) * networkFactor * countries.countryFactor(index)
        }
    }

    /// The tier model of `lineItem`, or `nil` when its network bids on its own per line item
    /// (a one-country market, or a network without ``NetworkMarket/tiered``).
    func tierModel(of lineItem: LineItem) -> TierModel? {
        guard let countries, let network = network(lineItem.network), let tiered = network.tiered else { return nil }
        var floors: [Int64] = []
        if lineItem.pricing == .fixedPrice {
            floors = countries.countries.map { country in
                floor(of: lineItem, country: country.code).flatMap { SourceModel.engineMicros(price: $0, usdRate: 1) } ?? .max
            }
        }
        return TierModel(
            auctions: AuctionDraws(countries: countries), networkKey: AuctionDraws.networkKey(network.id),
            fillRate: network.behaviour.fillRate ?? 1, meanBid: meanBids(of: network), bidSigma: tiered.bidSigma, floorMicros: floors
        )
    }

    /// Auction `auction`'s country and user value in a run seeded `seed` (the draws every
    /// network and source of the auction share), or `nil` in a one-country market.
    /// - Parameters:
    ///   - seed: the run's seed.
    ///   - auction: the auction's index in the run.
    /// - Returns: the country's code and the user value (mean 1 over auctions).
    package func auctionDraw(seed: UInt64, auction: UInt64) -> (country: String, userValue: Double)? {
        guard let countries else { return nil }
        let draw = AuctionDraws(countries: countries).draw(seed: seed, auction: auction)
        return (countries.countries[draw.country].code, draw.userValue)
    }

    /// `network`'s bid in auction `auction` of a run seeded `seed`, USD CPM (before rounding to
    /// micros), or `nil` when it has no demand there or does not bid by tiers.
    /// - Parameters:
    ///   - network: a network id.
    ///   - seed: the run's seed.
    ///   - auction: the auction's index.
    /// - Returns: the bid.
    package func bid(of network: String, seed: UInt64, auction: UInt64) -> Double? {
        guard let countries, let market = self.network(network), let tiered = market.tiered else { return nil }
        let model = TierModel(auctions: AuctionDraws(countries: countries), networkKey: AuctionDraws.networkKey(network), fillRate: market.behaviour.fillRate ?? 1, meanBid: meanBids(of: market), bidSigma: tiered.bidSigma, floorMicros: [])
        return model.bid(seed: seed, auction: auction).bid
    }
}

import Foundation

/// The countries of a market and what moves all networks in them: each country's share of the
/// traffic and daily drift, the spread of the user value every network sees, and shocks
/// (`docs/simulation.md`, "Countries and tiers"). A market without it is the one-country market
/// of earlier files: no country reaches the engine and every draw is as before.
public struct CountryMarket: Hashable, Sendable {
    /// One country of the market.
    public struct Country: Hashable, Sendable {
        /// ISO 3166-1 alpha-2, upper case, e.g. `"US"`; what the engine receives as the
        /// request's `device.country`.
        public var code: String
        /// Its share of the auctions, above 0; the shares of a market sum to 1.
        public var trafficShare: Double
        /// Its prices' change per day, every network's: a factor `(1 + dailyDrift)` a day from
        /// day 1 (0: none; −0.5 to 1).
        public var dailyDrift: Double

        /// Creates a country.
        /// - Parameters:
        ///   - code: ISO 3166-1 alpha-2.
        ///   - trafficShare: its share of the auctions.
        ///   - dailyDrift: its prices' change per day (default 0).
        public init(code: String, trafficShare: Double, dailyDrift: Double = 0) {
            self.code = code
            self.trafficShare = trafficShare
            self.dailyDrift = dailyDrift
        }
    }

    /// A change of every network's prices in one country from one day on.
    public struct Shock: Hashable, Sendable {
        /// The country's code.
        public var country: String
        /// The first day (from 1) it applies; it lasts to the end of the run.
        public var day: Int
        /// The multiplier of every network's bids there (0.25: a 75 % fall), above 0, at most
        /// 1000.
        public var factor: Double

        /// Creates a shock.
        /// - Parameters:
        ///   - country: the country's code.
        ///   - day: the first day (from 1).
        ///   - factor: the multiplier of the bids.
        public init(country: String, day: Int, factor: Double) {
            self.country = country
            self.day = day
            self.factor = factor
        }
    }

    /// The countries, in file order (set by ``init(countries:userValueSigma:shocks:day:)``, which
    /// also makes the cumulative shares the draw reads).
    public private(set) var countries: [Country]
    /// σ of the natural logarithm of the user value: one log-normal draw of mean 1 per auction,
    /// shared by every network (0: every user is worth the same).
    public var userValueSigma: Double
    /// The shocks.
    public var shocks: [Shock]
    /// The day of a learning run the market is on (from 1): drifts and shocks apply as of it.
    public var day: Int

    /// Each country's upper end in [0, 1] of the cumulative traffic shares, for the draw of an
    /// auction's country.
    let cumulativeShares: [Double]

    /// Creates the countries of a market.
    /// - Parameters:
    ///   - countries: at least one; codes unique; shares above 0 summing to 1 (they are
    ///     normalised by their sum for the draw).
    ///   - userValueSigma: σ of the log of the user value (0 to 3).
    ///   - shocks: the shocks (default none).
    ///   - day: the day the market is on (default 1).
    public init(countries: [Country], userValueSigma: Double, shocks: [Shock] = [], day: Int = 1) {
        self.countries = countries
        self.userValueSigma = userValueSigma
        self.shocks = shocks
        self.day = day
        let total = countries.reduce(0) { $0 + $1.trafficShare }
        var running = 0.0
        cumulativeShares = countries.map { country in
            running += country.trafficShare
            return total > 0 ? running / total : 1
        }
    }

    /// Equal when the inputs are (the cumulative shares follow from them).
    public static func == (lhs: CountryMarket, rhs: CountryMarket) -> Bool {
        lhs.countries == rhs.countries && lhs.userValueSigma == rhs.userValueSigma && lhs.shocks == rhs.shocks && lhs.day == rhs.day
    }

    /// Hashes the inputs.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(countries)
        hasher.combine(userValueSigma)
        hasher.combine(shocks)
        hasher.combine(day)
    }

    /// The index of `code` among ``countries``.
    /// - Parameter code: a country code.
    /// - Returns: its index, or `nil` when the market lacks it.
    public func index(of code: String) -> Int? {
        countries.firstIndex { $0.code == code }
    }

    /// The index of the country whose cumulative share first reaches `u`.
    func country(atUniform u: Double) -> Int {
        var low = 0
        var high = cumulativeShares.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulativeShares[middle] < u { low = middle + 1 } else { high = middle }
        }
        return max(0, high)
    }

    /// The factor of every network's bids in country `index` on ``day``: its drift compounded
    /// over the days since day 1, times every shock there that has begun.
    /// - Parameter index: a country's index.
    /// - Returns: the factor.
    public func countryFactor(_ index: Int) -> Double {
        let country = countries[index]
        var factor = Foundation.pow(1 + country.dailyDrift, Double(day - 1))
        for shock in shocks where shock.country == country.code && shock.day <= day {
            factor *= shock.factor
        }
        return factor
    }
}

/// How a network bids in a market with countries: one bid per auction, around the auction's
/// user value × ``baseECPM`` × its price level in the auction's country × the day's factors,
/// tested against each of its tiers' floors (`docs/simulation.md`, "Countries and tiers").
public struct TieredBid: Hashable, Sendable {
    /// The mean bid, USD CPM, for a user of value 1 in a country of price level 1 on day 1.
    public var baseECPM: Double
    /// σ of the natural logarithm of the bid's noise around its mean (a log-normal of mean 1).
    public var bidSigma: Double
    /// The multiplier of ``baseECPM`` in each country, by code; every country of the market has
    /// one.
    public var priceLevels: [String: Double]
    /// The network's prices' change per day: a factor `(1 + dailyDrift)` a day from day 1.
    public var dailyDrift: Double

    /// Creates a network's bidding.
    /// - Parameters:
    ///   - baseECPM: the mean bid at level 1, USD CPM.
    ///   - bidSigma: σ of the log of the bid's noise.
    ///   - priceLevels: the level by country code.
    ///   - dailyDrift: the change per day (default 0).
    public init(baseECPM: Double, bidSigma: Double, priceLevels: [String: Double], dailyDrift: Double = 0) {
        self.baseECPM = baseECPM
        self.bidSigma = bidSigma
        self.priceLevels = priceLevels
        self.dailyDrift = dailyDrift
    }
}

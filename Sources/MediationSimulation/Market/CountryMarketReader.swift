import Mediation

/// Reads a market file's countries (`countries`, `user_value`, `shocks`) and its networks'
/// tiered bidding (`base_ecpm`, `bid_sigma`, `price_level`, `daily_drift`).
extension MarketReader {
    /// A network's keys of tiered bidding.
    static let tieredKeys: Set<String> = ["base_ecpm", "bid_sigma", "price_level", "daily_drift"]
    /// The bounds of a daily drift (a factor 0.5 to 2 a day).
    static let dailyDriftRange: ClosedRange<Double> = -0.5...1
    /// The bounds of a shock's factor and of a price level.
    static let factorRange: ClosedRange<Double> = 0.000001...1000

    static func decodeCountries(_ object: ConfigurationObject) throws(ConfigurationError) -> CountryMarket? {
        guard let node = object["countries"] else {
            for key in ["user_value", "shocks"] where object[key] != nil {
                throw ConfigurationError(code: .invalidValue, path: JSONPath.root.appending(key).description, message: "applies only to a market with countries (add \"countries\")")
            }
            return nil
        }
        let path = JSONPath.root.appending("countries")
        guard case .array(let elements) = node, !elements.isEmpty else {
            throw ConfigurationReading.wrongType(node, expected: "a non-empty array of countries", at: path)
        }
        var countries: [CountryMarket.Country] = []
        for (index, element) in elements.enumerated() {
            let countryPath = path.appending(index: index)
            let country = try ConfigurationObject(element, at: countryPath, allowed: ["code", "traffic_share", "daily_drift", "description"])
            let code = try countryCode(try country.required("code"), at: countryPath.appending("code"))
            guard !countries.contains(where: { $0.code == code }) else {
                throw ConfigurationError(code: .duplicateID, path: countryPath.appending("code").description, message: "the country \"\(code)\" appears twice")
            }
            let share = try number(try country.required("traffic_share"), at: countryPath.appending("traffic_share"), in: 0.000001...1, unit: "(a share of the auctions)")
            let drift = try country["daily_drift"].map { (node) throws(ConfigurationError) -> Double in
                try number(node, at: countryPath.appending("daily_drift"), in: dailyDriftRange, unit: "(the change of its prices per day)")
            } ?? 0
            countries.append(CountryMarket.Country(code: code, trafficShare: share, dailyDrift: drift))
        }
        let total = countries.reduce(0) { $0 + $1.trafficShare }
        guard abs(total - 1) <= 0.0001 else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "the traffic shares must sum to 1, found \(DisplayText.number(total))")
        }
        var sigma = 0.0
        if let node = object["user_value"] {
            let userValuePath = JSONPath.root.appending("user_value")
            let userValue = try ConfigurationObject(node, at: userValuePath, allowed: ["sigma", "description"])
            sigma = try number(try userValue.required("sigma"), at: userValuePath.appending("sigma"), in: 0...3, unit: "(σ of the natural logarithm of the user value)")
        }
        var shocks: [CountryMarket.Shock] = []
        if let node = object["shocks"] {
            let shocksPath = JSONPath.root.appending("shocks")
            guard case .array(let elements) = node else {
                throw ConfigurationReading.wrongType(node, expected: "an array of shocks", at: shocksPath)
            }
            for (index, element) in elements.enumerated() {
                let shockPath = shocksPath.appending(index: index)
                let shock = try ConfigurationObject(element, at: shockPath, allowed: ["country", "day", "factor", "description"])
                let code = try countryCode(try shock.required("country"), at: shockPath.appending("country"))
                guard countries.contains(where: { $0.code == code }) else {
                    throw ConfigurationError(code: .invalidValue, path: shockPath.appending("country").description, message: "no country \"\(code)\" in countries")
                }
                let day = try ConfigurationReading.wholeNumber(try shock.required("day"), at: shockPath.appending("day"), in: 1...366, unit: "(the first day it applies)", rangeCode: .invalidValue)
                let factor = try number(try shock.required("factor"), at: shockPath.appending("factor"), in: factorRange, unit: "(the multiplier of the bids there)")
                shocks.append(CountryMarket.Shock(country: code, day: day, factor: factor))
            }
        }
        return CountryMarket(countries: countries, userValueSigma: sigma, shocks: shocks)
    }

    /// Reads a network's tiered bidding: `base_ecpm`, `bid_sigma` and `price_level` together
    /// (and only in a market with countries), `daily_drift` optional.
    static func decodeTiered(_ object: ConfigurationObject, countries: CountryMarket?) throws(ConfigurationError) -> TieredBid? {
        let path = object.path
        let present = tieredKeys.sorted().filter { object[$0] != nil }
        guard !present.isEmpty else { return nil }
        guard let countries else {
            throw ConfigurationError(code: .invalidValue, path: path.appending(present[0]).description, message: "applies only to a market with countries (add \"countries\")")
        }
        if object["price"] != nil {
            throw ConfigurationError(code: .invalidValue, path: path.appending("price").description, message: "a network that bids by tiers (base_ecpm, bid_sigma, price_level) draws no price per line item; remove price")
        }
        let base = try number(try object.required("base_ecpm"), at: path.appending("base_ecpm"), in: Market.priceMedianRange, unit: "USD CPM")
        let sigma = try number(try object.required("bid_sigma"), at: path.appending("bid_sigma"), in: Market.spreadRange, unit: "(σ of the natural logarithm)")
        let drift = try object["daily_drift"].map { (node) throws(ConfigurationError) -> Double in
            try number(node, at: path.appending("daily_drift"), in: dailyDriftRange, unit: "(the change of its prices per day)")
        } ?? 0
        let levelsPath = path.appending("price_level")
        let levelsNode = try object.required("price_level")
        guard case .object(let members) = levelsNode else {
            throw ConfigurationReading.wrongType(levelsNode, expected: "an object keyed by country code", at: levelsPath)
        }
        var levels: [String: Double] = [:]
        for member in members {
            let levelPath = levelsPath.appending(member.key)
            guard countries.index(of: member.key) != nil else {
                throw ConfigurationError(code: .invalidValue, path: levelPath.description, message: "no country \"\(ConfigurationText.excerpt(member.key))\" in countries")
            }
            levels[member.key] = try number(member.value, at: levelPath, in: factorRange, unit: "(the multiplier of base_ecpm there)")
        }
        if let missing = countries.countries.first(where: { levels[$0.code] == nil }) {
            throw ConfigurationError(code: .missingField, path: levelsPath.appending(missing.code).description, message: "every country needs a price level; \"\(missing.code)\" has none")
        }
        return TieredBid(baseECPM: base, bidSigma: sigma, priceLevels: levels, dailyDrift: drift)
    }

    /// A tier's fill and price come from its network's bid: a line item of a tiered network may
    /// not set its own.
    static func refuseTierOwnPrice(_ object: ConfigurationObject) throws(ConfigurationError) {
        for key in ["price", "fill_rate"] where object[key] != nil {
            throw ConfigurationError(code: .invalidValue, path: object.path.appending(key).description, message: "a tier fills from its network's bid (base_ecpm, bid_sigma, price_level); set \(key) on the network, not its line items")
        }
    }

    /// An ISO 3166-1 alpha-2 code: two upper-case ASCII letters.
    static func countryCode(_ node: JSONNode, at path: JSONPath) throws(ConfigurationError) -> String {
        let code = try ConfigurationReading.string(node, at: path)
        guard code.utf8.count == 2, code.utf8.allSatisfy({ (65...90).contains($0) }) else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "must be an ISO 3166-1 alpha-2 code in upper case, like \"US\", found \"\(ConfigurationText.excerpt(code))\"")
        }
        return code
    }
}

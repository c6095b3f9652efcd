extension ConfigurationLoader {
    /// The keys of a placement override object (``MediationConfiguration/PlacementOverride``); a
    /// segment or a variant adds its own (`id`, `when`, ...).
    package static let overrideKeys: Set<String> = ["sources", "ecpm", "floor", "refresh_seconds", "mode", "caps", "pacing_seconds"]

    /// Reads the override fields of `object` (whose keys the caller checked) for `placement`.
    /// - Parameters:
    ///   - object: a segment's or a variant's object.
    ///   - placement: the placement it changes (its sources as the file gives them).
    /// - Returns: the override.
    /// - Throws: ``ConfigurationError`` at the JSON path of the first mistake: `sources` not a
    ///   non-empty array of distinct ids of the placement's sources (`unknown_source` is
    ///   `invalid_value`), an `ecpm` for an unknown or bidding line item, a price out of range,
    ///   `refresh_seconds` on a placement that does not refresh or out of 30...86400, an unknown
    ///   `mode`, or a floor no remaining fixed price reaches (R19).
    package static func decodeOverride(_ object: ConfigurationObject, for placement: MediationConfiguration.Placement) throws(ConfigurationError) -> MediationConfiguration.PlacementOverride {
        let path = object.path
        let ids = Set(placement.sources.map(\.id))
        var result = MediationConfiguration.PlacementOverride()
        if let node = object["sources"] {
            let sourcesPath = path.appending("sources")
            guard case .array(let elements) = node else {
                throw ConfigurationReading.wrongType(node, expected: "an array of source ids", at: sourcesPath)
            }
            guard !elements.isEmpty else {
                throw ConfigurationError(code: .emptySources, path: sourcesPath.description, message: "an override's \"sources\" needs at least one of the placement's source ids")
            }
            var seen = Set<String>()
            var list: [String] = []
            for (index, element) in elements.enumerated() {
                let elementPath = sourcesPath.appending(index: index)
                let id = try ConfigurationReading.string(element, at: elementPath)
                guard ids.contains(id) else {
                    throw unknownSource(id, of: placement, at: elementPath)
                }
                guard seen.insert(id).inserted else {
                    throw ConfigurationError(code: .duplicateID, path: elementPath.description, message: "the source id \(ConfigurationText.quoted(id)) appears twice")
                }
                list.append(id)
            }
            result.sources = list
        }
        if let node = object["ecpm"] {
            let eCPMPath = path.appending("ecpm")
            guard case .object(let members) = node else {
                throw ConfigurationReading.wrongType(node, expected: "an object of USD prices by source id", at: eCPMPath)
            }
            for member in members {
                let memberPath = eCPMPath.appending(member.key)
                guard let lineItem = placement.sources.first(where: { $0.id == member.key }) else {
                    throw unknownSource(member.key, of: placement, at: memberPath)
                }
                guard lineItem.pricing == .fixedPrice else {
                    throw ConfigurationError(code: .pricingMismatch, path: memberPath.description, message: "the source \(ConfigurationText.quoted(member.key)) is a bidder: its price comes with each bid, so it takes no \"ecpm\"")
                }
                guard result.eCPM[member.key] == nil else {
                    throw ConfigurationError(code: .duplicateKey, path: memberPath.description, message: "the key \(ConfigurationText.quoted(member.key)) appears twice")
                }
                if let sources = result.sources, !sources.contains(member.key) {
                    throw ConfigurationError(code: .invalidValue, path: memberPath.description, message: "the source \(ConfigurationText.quoted(member.key)) is not in this override's \"sources\", so its price would never be used")
                }
                let price = try ConfigurationReading.positiveNumber(member.value, at: memberPath)
                try checkPriceRange(price, usdRate: 1, currency: "USD", at: memberPath)
                result.eCPM[member.key] = price
            }
        }
        if let node = object["floor"] {
            let floorPath = path.appending("floor")
            let floor = try ConfigurationReading.positiveNumber(node, at: floorPath)
            try checkPriceRange(floor, usdRate: 1, currency: "USD", at: floorPath)
            result.floor = floor
        }
        if let node = object["refresh_seconds"] {
            let refreshPath = path.appending("refresh_seconds")
            guard placement.refreshSeconds != nil else {
                throw ConfigurationError(code: .invalidRefresh, path: refreshPath.description, message: "\"refresh_seconds\" applies to banners only; this placement is \(placement.format)")
            }
            result.refreshSeconds = try ConfigurationReading.wholeNumber(node, at: refreshPath, in: refreshRange, unit: "seconds", rangeCode: .invalidRefresh)
        }
        if let node = object["mode"] {
            result.mode = try ConfigurationReading.choice(node, at: path.appending("mode"), ["parallel": MediationConfiguration.Placement.AuctionMode.parallel, "waterfall": .waterfall])
        }
        let applied = result.applied(to: placement)
        if let floor = applied.floor, result.floor != nil || result.sources != nil || !result.eCPM.isEmpty {
            // R19 for what the override leaves: some source must be able to reach the floor.
            try checkFloorCanBeMet(floor, sources: applied.sources, at: path.appending(result.floor != nil ? "floor" : result.sources != nil ? "sources" : "ecpm"))
        }
        let caps = try decodeCapSettings(object)
        if object["caps"] != nil { result.caps = caps.caps }
        result.pacingSeconds = caps.pacingSeconds
        return result
    }

    private static func unknownSource(_ id: String, of placement: MediationConfiguration.Placement, at path: JSONPath) -> ConfigurationError {
        let known = ConfigurationText.excerpt(placement.sources.map(\.id).joined(separator: ", "), limit: 200)
        return ConfigurationError(code: .invalidValue, path: path.description, message: "no source \(ConfigurationText.quoted(id)) in placement \(ConfigurationText.quoted(placement.id)); its sources: \(known)")
    }

    /// Reads a fixed-price source's `ecpm_by_country`: an object of prices in the source's
    /// currency keyed by upper-case ISO 3166-1 alpha-2 codes, e.g. `{"US": 4.2, "IN": 0.6}`.
    /// - Throws: `wrong_type`, `invalid_value` for a key that is not two capital letters or a
    ///   repeated one, `invalid_price` for a price out of range.
    static func decodeECPMByCountry(_ node: JSONNode, at path: JSONPath, usdRate: Double, currency: String) throws(ConfigurationError) -> [String: Double] {
        guard case .object(let members) = node else {
            throw ConfigurationReading.wrongType(node, expected: "an object of prices by country (ISO 3166-1 alpha-2, e.g. \"US\")", at: path)
        }
        var prices: [String: Double] = [:]
        for member in members {
            let memberPath = path.appending(member.key)
            guard CountryCode.isAlpha2(member.key) else {
                throw ConfigurationError(code: .invalidValue, path: memberPath.description, message: "expected an ISO 3166-1 alpha-2 country code in capitals such as \"US\", found \(ConfigurationText.quoted(String(member.key.prefix(16))))")
            }
            guard prices[member.key] == nil else {
                throw ConfigurationError(code: .duplicateKey, path: memberPath.description, message: "the country \(ConfigurationText.quoted(member.key)) appears twice")
            }
            let price = try ConfigurationReading.positiveNumber(member.value, at: memberPath)
            try checkPriceRange(price, usdRate: usdRate, currency: currency, at: memberPath)
            prices[member.key] = price
        }
        return prices
    }
}

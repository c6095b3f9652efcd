extension ConfigurationLoader {
    /// The keys a level with caps accepts: `caps` and `pacing_seconds`.
    static let capKeys: Set<String> = ["caps", "pacing_seconds"]
    /// The bounds of a sliding window and of pacing, in seconds: 1 s to 30 days.
    static let capWindowRange = 1...MediationConfiguration.Cap.maximumWindowSeconds
    /// The bounds of `full_screen_gap_seconds`: 0 to one day.
    static let fullScreenGapRange = 0...86_400

    /// Reads the `caps` and `pacing_seconds` of an object (the app, a placement, a network, a
    /// line item or a placement override).
    /// - Parameter object: the level's object.
    /// - Returns: its settings (empty when it has neither key).
    /// - Throws: ``ConfigurationError`` naming the path of the first mistake.
    static func decodeCapSettings(_ object: ConfigurationObject) throws(ConfigurationError) -> MediationConfiguration.CapSettings {
        var settings = MediationConfiguration.CapSettings()
        if let node = object["pacing_seconds"] {
            settings.pacingSeconds = try ConfigurationReading.wholeNumber(node, at: object.path.appending("pacing_seconds"), in: capWindowRange, unit: "seconds", rangeCode: .invalidValue)
        }
        if let node = object["caps"] {
            let path = object.path.appending("caps")
            guard case .array(let elements) = node else {
                throw ConfigurationReading.wrongType(node, expected: "an array of caps", at: path)
            }
            for (index, element) in elements.enumerated() {
                settings.caps.append(try decodeCap(element, at: path.appending(index: index)))
            }
        }
        return settings
    }

    /// Reads one cap: `{"impressions": N, "per_seconds": S}` or `{"impressions": N, "per": "session"}`.
    private static func decodeCap(_ node: JSONNode, at path: JSONPath) throws(ConfigurationError) -> MediationConfiguration.Cap {
        let object = try ConfigurationObject(node, at: path, allowed: ["impressions", "per_seconds", "per"])
        let impressions = try ConfigurationReading.wholeNumber(try object.required("impressions"), at: path.appending("impressions"), in: 1...MediationConfiguration.Cap.maximumImpressions, unit: "impressions", rangeCode: .invalidValue)
        switch (object["per_seconds"], object["per"]) {
        case (let seconds?, nil):
            let window = try ConfigurationReading.wholeNumber(seconds, at: path.appending("per_seconds"), in: capWindowRange, unit: "seconds", rangeCode: .invalidValue)
            return MediationConfiguration.Cap(impressions: impressions, window: .seconds(window))
        case (nil, let per?):
            return MediationConfiguration.Cap(impressions: impressions, window: try ConfigurationReading.choice(per, at: path.appending("per"), ["session": MediationConfiguration.Cap.Window.session]))
        case (nil, nil):
            throw ConfigurationError(code: .missingField, path: path.appending("per_seconds").description, message: "a cap needs a window: \"per_seconds\" (1 to 2592000) or \"per\": \"session\"")
        case (_?, _?):
            throw ConfigurationError(code: .invalidValue, path: path.appending("per").description, message: "a cap has one window: \"per_seconds\" or \"per\", not both")
        }
    }

    /// Reads the top-level `app` object: `caps`, `pacing_seconds`, `full_screen_gap_seconds`.
    /// - Parameter node: the `app` value, if present.
    /// - Returns: the app settings (the defaults when absent).
    /// - Throws: ``ConfigurationError`` naming the path of the first mistake.
    static func decodeApp(_ node: JSONNode?) throws(ConfigurationError) -> MediationConfiguration.AppSettings {
        guard let node else { return MediationConfiguration.AppSettings() }
        let path = JSONPath.root.appending("app")
        let object = try ConfigurationObject(node, at: path, allowed: capKeys.union(["full_screen_gap_seconds"]))
        var app = MediationConfiguration.AppSettings(caps: try decodeCapSettings(object))
        if let gap = object["full_screen_gap_seconds"] {
            app.fullScreenGapSeconds = try ConfigurationReading.wholeNumber(gap, at: path.appending("full_screen_gap_seconds"), in: fullScreenGapRange, unit: "seconds", rangeCode: .invalidValue)
        }
        return app
    }
}

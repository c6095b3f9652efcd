extension ConfigurationLoader {
    /// The keys of a `health` object (engine rule R24).
    static let healthKeys: Set<String> = ["enabled", "failures_to_open", "window", "backoff_ms", "max_backoff_ms", "probes"]

    /// Reads a `health` object (the top level's, or a network's over it, R24) into `base`:
    /// each key given replaces `base`'s value. `enabled` a boolean; `failures_to_open` and
    /// `window` whole numbers 1...64; `backoff_ms` and `max_backoff_ms` whole numbers
    /// 1000...86,400,000; `probes` a whole number 1...10. No key depends on another: a window
    /// narrower than `failures_to_open` is widened to it, and a `max_backoff_ms` under
    /// `backoff_ms` is raised to it, when the engine uses them.
    /// - Throws: ``ConfigurationError`` at the key's JSON path.
    static func decodeHealth(_ node: JSONNode?, at path: JSONPath, over base: NetworkHealthSettings) throws(ConfigurationError) -> NetworkHealthSettings {
        guard let node else { return base }
        let object = try ConfigurationObject(node, at: path, allowed: healthKeys)
        var settings = base
        if let enabled = object["enabled"] {
            guard case .bool(let value) = enabled else {
                throw ConfigurationReading.wrongType(enabled, expected: "a boolean", at: path.appending("enabled"))
            }
            settings.enabled = value
        }
        if let node = object["failures_to_open"] {
            settings.failuresToOpen = try ConfigurationReading.wholeNumber(node, at: path.appending("failures_to_open"), in: NetworkHealthSettings.failuresRange, unit: "failures", rangeCode: .invalidValue)
        }
        if let node = object["window"] {
            settings.window = try ConfigurationReading.wholeNumber(node, at: path.appending("window"), in: NetworkHealthSettings.windowRange, unit: "outcomes", rangeCode: .invalidValue)
        }
        if let node = object["backoff_ms"] {
            settings.backoff = .milliseconds(try ConfigurationReading.wholeNumber(node, at: path.appending("backoff_ms"), in: NetworkHealthSettings.backoffRange, unit: "milliseconds", rangeCode: .invalidValue))
        }
        if let node = object["max_backoff_ms"] {
            settings.maxBackoff = .milliseconds(try ConfigurationReading.wholeNumber(node, at: path.appending("max_backoff_ms"), in: NetworkHealthSettings.backoffRange, unit: "milliseconds", rangeCode: .invalidValue))
        }
        if let node = object["probes"] {
            settings.probes = try ConfigurationReading.wholeNumber(node, at: path.appending("probes"), in: NetworkHealthSettings.probesRange, unit: "probes", rangeCode: .invalidValue)
        }
        return settings
    }
}

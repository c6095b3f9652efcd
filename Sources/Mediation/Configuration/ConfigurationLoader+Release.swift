/// The configuration's release fields, at its top level: what a signed configuration carries
/// under its signature (``SignedConfiguration``).
///
/// - `config_version`: a whole number from 0 to 2^53 - 1; a signed configuration's is at least 1
///   and only grows from one release to the next (engine rule R22). A configuration without it
///   is version 0 (an unsigned bundled one).
/// - `issued_at`: when it was signed, RFC 3339 in UTC (`2026-12-01T14:00:00Z`, an optional
///   fraction of up to three digits). Informational: the engine orders releases by version,
///   never by a device's clock.
/// - `rollout`: `{"percent", "salt"}`, a staged rollout (``MediationConfiguration/Rollout``).
extension ConfigurationLoader {
    /// The largest `config_version`: 2^53 - 1, the largest whole number every JSON reader keeps
    /// exactly.
    package static let maximumConfigVersion = 9_007_199_254_740_991

    /// The release fields of a configuration's root object.
    struct Release {
        var version = 0
        var issuedAt: WallClockTime?
        var rollout: MediationConfiguration.Rollout?
    }

    /// Reads `config_version`, `issued_at` and `rollout` from the root object.
    func decodeRelease(_ object: ConfigurationObject) throws(ConfigurationError) -> Release {
        var release = Release()
        if let node = object["config_version"] {
            release.version = try ConfigurationReading.wholeNumber(node, at: JSONPath.root.appending("config_version"), in: 0...Self.maximumConfigVersion, unit: "(a version number)", rangeCode: .invalidValue)
        }
        if let node = object["issued_at"] {
            let path = JSONPath.root.appending("issued_at")
            let text = try ConfigurationReading.string(node, at: path)
            guard let time = WallClockTime(rfc3339: text) else {
                throw ConfigurationError(code: .invalidValue, path: path.description, message: "expected an RFC 3339 time in UTC such as \"2026-12-01T14:00:00Z\", found \(ConfigurationText.quoted(text))")
            }
            release.issuedAt = time
        }
        if let node = object["rollout"] {
            let path = JSONPath.root.appending("rollout")
            let rollout = try ConfigurationObject(node, at: path, allowed: ["percent", "salt"])
            let percentPath = path.appending("percent")
            guard case .number(let number) = try rollout.required("percent") else {
                throw ConfigurationReading.wrongType(try rollout.required("percent"), expected: "a number from 0 to 100", at: percentPath)
            }
            let salt = try ConfigurationReading.string(try rollout.required("salt"), at: path.appending("salt"))
            guard salt.count <= MediationConfiguration.Rollout.maximumSaltLength else {
                throw ConfigurationError(code: .invalidValue, path: path.appending("salt").description, message: "must be at most \(MediationConfiguration.Rollout.maximumSaltLength) characters")
            }
            guard let value = MediationConfiguration.Rollout(percent: number.doubleValue, salt: salt) else {
                throw ConfigurationError(code: .invalidValue, path: percentPath.description, message: "must be from 0 to 100 with at most two decimals, found \(ConfigurationText.excerpt(number.text, limit: 24))")
            }
            release.rollout = value
        }
        return release
    }
}

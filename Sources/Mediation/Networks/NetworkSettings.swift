import Foundation

/// A network's `credentials` and `options` from the config, read with their JSON paths: the one
/// options reader every network's factory uses, so each mistake has one wording whatever the
/// network.
///
/// Creating it rejects any credential or option the network does not know; each accessor
/// returns `nil` for an absent key and throws ``ConfigurationError`` at the key's path
/// (`networks.<id>.credentials.<key>` or `networks.<id>.options.<key>`) for a value of the
/// wrong type or outside its range:
///
/// | mistake | code | message |
/// | --- | --- | --- |
/// | unknown key | `unknown_key` | `unknown credential for <kind>; known: a, b` (or `option`) |
/// | missing or blank credential | `missing_field` | `required, not blank` (then the hint) |
/// | not a boolean | `wrong_type` | `must be true or false` |
/// | not a string | `wrong_type` | `must be a string` |
/// | not a whole number / number | `wrong_type` | `must be a whole number` / `must be a number` |
/// | out of range | `invalid_value` | `must be a whole number from A to B` / `must be a number from A to B` |
/// | not one of a set | `invalid_value` | `must be one of "a", "b"` |
public struct NetworkSettings: Sendable {
    /// The network's configuration.
    public let network: MediationConfiguration.Network
    /// The factory's kind, e.g. `"elo"`, named in the messages.
    public let kind: String

    /// Reads `network`'s settings for a factory of `kind`.
    /// - Parameters:
    ///   - network: the network's configuration.
    ///   - kind: the factory's kind, e.g. `"nitx"`.
    ///   - credentials: the credential keys the network knows.
    ///   - options: the option keys the network knows.
    /// - Throws: ``ConfigurationError`` `unknown_key` at the first unknown credential, then the
    ///   first unknown option, in key order.
    public init(_ network: MediationConfiguration.Network, kind: String, credentials: Set<String>, options: Set<String>) throws(ConfigurationError) {
        self.network = network
        self.kind = kind
        for key in network.credentials.keys.sorted() where !credentials.contains(key) {
            throw ConfigurationError(code: .unknownKey, path: credentialPath(key), message: Self.unknown("credential", kind, credentials))
        }
        for key in network.options.keys.sorted() where !options.contains(key) {
            throw ConfigurationError(code: .unknownKey, path: optionPath(key), message: Self.unknown("option", kind, options))
        }
    }

    /// The JSON path of credential `key`, e.g. `networks.elo.credentials.publisher_id`.
    /// The network id and the key are escaped as the loader escapes them (`networks["a.b"]`).
    public func credentialPath(_ key: String) -> String { network.path(of: "credentials", key) }
    /// The JSON path of option `key`, e.g. `networks.elo.options.share_geo`.
    public func optionPath(_ key: String) -> String { network.path(of: "options", key) }

    /// Credential `key`, trimmed of white space, required and not blank.
    /// - Parameter hint: what the credential is, added to the message, e.g. `the mobile source
    ///   code, SDK-AM-...`.
    /// - Throws: ``ConfigurationError`` `missing_field` when it is absent or blank.
    public func requiredCredential(_ key: String, hint: String? = nil) throws(ConfigurationError) -> String {
        let value = network.credentials[key]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !value.isEmpty else {
            throw ConfigurationError(code: .missingField, path: credentialPath(key), message: "required, not blank" + (hint.map { " (\($0))" } ?? ""))
        }
        return value
    }

    /// Credential `key` as written, or `nil` when absent.
    public func credential(_ key: String) -> String? { network.credentials[key] }

    /// Option `key` as written, or `nil` when absent.
    package func value(_ key: String) -> JSONValue? { network.options[key] }

    /// Option `key` as a boolean.
    /// - Throws: ``ConfigurationError`` `wrong_type` when it is not `true` or `false`.
    public func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let value = network.options[key] else { return nil }
        guard let bool = value.boolValue else { throw ConfigurationError(code: .wrongType, path: optionPath(key), message: "must be true or false") }
        return bool
    }

    /// Option `key` as a string.
    /// - Parameter nonEmpty: whether an empty string is refused (default `false`).
    /// - Throws: ``ConfigurationError`` `wrong_type` when it is not a string (or is empty when
    ///   `nonEmpty`).
    public func string(_ key: String, nonEmpty: Bool = false) throws(ConfigurationError) -> String? {
        guard let value = network.options[key] else { return nil }
        guard let text = value.stringValue, !(nonEmpty && text.isEmpty) else {
            throw ConfigurationError(code: .wrongType, path: optionPath(key), message: nonEmpty ? "must be a non-empty string" : "must be a string")
        }
        return text
    }

    /// Option `key` as a whole number in `range`.
    /// - Throws: ``ConfigurationError`` `wrong_type` when it is not a whole number,
    ///   `invalid_value` when it is outside `range`.
    public func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let value = network.options[key] else { return nil }
        guard let number = value.intValue else { throw ConfigurationError(code: .wrongType, path: optionPath(key), message: "must be a whole number") }
        guard range.contains(number) else {
            throw ConfigurationError(code: .invalidValue, path: optionPath(key), message: "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// Option `key` as a finite number in `range`.
    /// - Throws: ``ConfigurationError`` `wrong_type` when it is not a number,
    ///   `invalid_value` when it is not finite or outside `range`.
    public func number(_ key: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double? {
        guard let value = network.options[key] else { return nil }
        guard let number = value.doubleValue else { throw ConfigurationError(code: .wrongType, path: optionPath(key), message: "must be a number") }
        guard number.isFinite, range.contains(number) else {
            throw ConfigurationError(code: .invalidValue, path: optionPath(key), message: "must be a number from \(DisplayText.number(range.lowerBound)) to \(DisplayText.number(range.upperBound))")
        }
        return number
    }

    /// Option `key` as one of `Choice`'s raw values.
    /// - Throws: ``ConfigurationError`` `invalid_value` when it is not one of them.
    public func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, of type: Choice.Type) throws(ConfigurationError) -> Choice? where Choice.RawValue == String {
        try choice(key, among: Choice.allCases.map { ($0.rawValue, $0) })
    }

    /// Option `key` as one of the values `names` spells, in the order given.
    /// - Parameter names: each accepted spelling and its value.
    /// - Throws: ``ConfigurationError`` `invalid_value` when it is not one of the spellings.
    public func choice<Value>(_ key: String, among names: [(String, Value)]) throws(ConfigurationError) -> Value? {
        guard let value = network.options[key] else { return nil }
        guard let text = value.stringValue, let match = names.first(where: { $0.0 == text }) else {
            let list = names.map { "\"\($0.0)\"" }.joined(separator: ", ")
            throw ConfigurationError(code: .invalidValue, path: optionPath(key), message: "must be one of \(list)")
        }
        return match.1
    }

    /// `option_ignored` warnings for the sandbox-only options among `keys` that are set while
    /// the endpoint is a URL.
    public func sandboxOnlyWarnings(_ keys: [String]) -> [MediationConfiguration.Warning] {
        guard case .url = network.endpoint else { return [] }
        return keys.filter { network.options[$0] != nil }.map { key in
            MediationConfiguration.Warning(code: .optionIgnored, path: network.path(of: "options", key), message: "\(key) applies to the sandbox only; this network's endpoint is a URL")
        }
    }

    private static func unknown(_ what: String, _ kind: String, _ known: Set<String>) -> String {
        known.isEmpty ? "unknown \(what) for \(kind); it takes none" : "unknown \(what) for \(kind); known: \(known.sorted().joined(separator: ", "))"
    }
}

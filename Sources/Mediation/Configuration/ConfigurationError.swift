/// The configuration could not be loaded: where (``path``, a JSON path such as
/// `placements.home_banner.sources[2].ecpm`) and what is wrong, a sentence for a person
/// (engine rule R15). When loading fails, no adapter is built and no network is asked anything.
///
/// Inside the package it also carries a code from an open set (`unknown_key`, `invalid_value`,
/// …), which tests and `mediate validate` read.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of mistake the configuration makes.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, e.g. `"unknown_key"`.
        public var rawValue: String
        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The file does not exist (the CLI exits 66).
        public static let fileNotFound = Code(rawValue: "file_not_found")
        /// The file exists but cannot be read (the CLI exits 66).
        public static let unreadableFile = Code(rawValue: "unreadable_file")
        /// The text is not JSON: empty, invalid UTF-8, a syntax error, nested too deep, too large.
        public static let syntax = Code(rawValue: "syntax")
        /// A key the format does not define (a typo such as `ecmp`).
        public static let unknownKey = Code(rawValue: "unknown_key")
        /// A value of the wrong JSON type: a string where a number is expected (`"60"`), a
        /// fraction where a whole number is required (`30.5`), …
        public static let wrongType = Code(rawValue: "wrong_type")
        /// A required field is absent.
        public static let missingField = Code(rawValue: "missing_field")
        /// A key appears twice in one JSON object (other than a network or placement id).
        public static let duplicateKey = Code(rawValue: "duplicate_key")
        /// A network id, a placement id, or a source id within a placement appears twice.
        public static let duplicateID = Code(rawValue: "duplicate_id")
        /// A placement has an empty `sources` list.
        public static let emptySources = Code(rawValue: "empty_sources")
        /// A source names a network that `networks` does not define.
        public static let unknownNetwork = Code(rawValue: "unknown_network")
        /// A network's `adapter` is not a kind this build knows.
        public static let unknownAdapter = Code(rawValue: "unknown_adapter")
        /// `refresh_seconds` under 30 (R13), or set on a placement that is not a banner.
        public static let invalidRefresh = Code(rawValue: "invalid_refresh")
        /// A floor, eCPM or currency rate that is not a positive finite number (R2, R15).
        public static let invalidPrice = Code(rawValue: "invalid_price")
        /// A fixed-price source without `ecpm`, or a bidder with one.
        public static let pricingMismatch = Code(rawValue: "pricing_mismatch")
        /// A deadline or timeout that is not in 1...3000 ms (R3).
        public static let invalidDeadline = Code(rawValue: "invalid_deadline")
        /// A source's currency is not USD and `currency_rates` gives no rate for it (R9).
        public static let unknownCurrency = Code(rawValue: "unknown_currency")
        /// Banner `sizing` absent on a banner, or present on another format.
        public static let invalidSizing = Code(rawValue: "invalid_sizing")
        /// Any other value outside what the field allows (an unknown format, mode or endpoint).
        public static let invalidValue = Code(rawValue: "invalid_value")
        /// A line item (or a whole placement) that could never fill (engine rule R19): a
        /// network that does not serve the placement's format or slot, or a floor above every
        /// fixed eCPM of a placement without a bidder.
        public static let unfillable = Code(rawValue: "unfillable")

        /// The name.
        public var description: String { rawValue }
    }

    /// What kind of mistake it is.
    package var code: Code
    /// The stable name of what kind of mistake it is, e.g. `"file_not_found"`, `"syntax"`,
    /// `"unknown_key"`, `"invalid_value"`: a host tells a missing bundled file from a bad one
    /// by it, without reading ``message``.
    public var codeName: String { code.rawValue }
    /// The JSON path of the offending value, e.g. `placements.home_banner.sources[2].ecpm`;
    /// `$` is the document itself. Keys that are not plain identifiers are written `["a.b"]`.
    public var path: String
    /// What is wrong, for a person; never contains credentials.
    public var message: String

    /// Creates an error. However long the path or the message, the error stays one short line:
    /// control characters are escaped and each is cut (with `…`) past a few hundred characters.
    /// - Parameters:
    ///   - code: the kind of mistake.
    ///   - path: the JSON path of the offending value (`$` for the document).
    ///   - message: what is wrong.
    package init(code: Code, path: String, message: String) {
        self.code = code
        self.path = ConfigurationText.excerpt(path, limit: ConfigurationText.maximumPathLength)
        self.message = ConfigurationText.excerpt(message, limit: ConfigurationText.maximumMessageLength)
    }

    /// Creates the error a network's factory throws for a value of its own that is wrong (a
    /// credential or option it checks beyond ``NetworkSettings``), e.g. at
    /// `networks.house.options.creative`.
    /// - Parameters:
    ///   - path: the JSON path of the offending value (``NetworkSettings/optionPath(_:)``).
    ///   - message: what is wrong, for a person; never the credential itself.
    public init(path: String, message: String) {
        self.init(code: .invalidValue, path: path, message: message)
    }

    /// `path: message`, e.g. `placements.home_banner.refresh_seconds: must be at least 30, found 29`.
    public var description: String { "\(path): \(message)" }
}

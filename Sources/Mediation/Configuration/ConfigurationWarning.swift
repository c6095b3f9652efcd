extension MediationConfiguration {
    /// Something in the configuration that loads and can fill but may not do what its author meant
    /// (engine rule R19): an option a network clamps or ignores, a slot some creatives will not
    /// fit, a network answered by its sandbox. `mediate validate` and one-shot runs print them on
    /// standard error; ``MediationEngine/configurationWarnings`` lists them.
    public struct Warning: Hashable, Sendable, CustomStringConvertible {
        /// What kind of warning it is: an open set of stable names (the `(code)` of
        /// ``description``).
        package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            /// The code's name, e.g. `"option_clamped"`.
            public var rawValue: String
            /// Creates a code.
            public init(rawValue: String) { self.rawValue = rawValue }

            /// A network's endpoint is `"sandbox"`: its in-process simulated server answers, not a
            /// real ad server.
            public static let sandboxEndpoint = Code(rawValue: "sandbox_endpoint")
            /// An option's value was clamped into its range (e.g. Elo's `geo_precision`).
            public static let optionClamped = Code(rawValue: "option_clamped")
            /// An option the network ignores with this configuration (e.g. a sandbox-only option
            /// on a real endpoint).
            public static let optionIgnored = Code(rawValue: "option_ignored")
            /// A line item can fill, but not every ad its network may send fits the slot.
            public static let slotMayNotFit = Code(rawValue: "slot_may_not_fit")
            /// A placement's segment no audience can reach: an earlier segment takes every
            /// audience it matches, or its predicate matches none.
            public static let segmentUnreachable = Code(rawValue: "segment_unreachable")
            /// Every segment of a placement lists its `sources` and none lists this line item,
            /// so it is never asked.
            public static let lineItemUnused = Code(rawValue: "line_item_unused")

            /// The name.
            public var description: String { rawValue }
        }

        /// What kind of warning it is.
        package var code: Code
        /// The stable name of what kind of warning it is, e.g. `"sandbox_endpoint"`,
        /// `"segment_unreachable"`: a host filters its logs by it.
        public var codeName: String { code.rawValue }
        /// The JSON path it is about, e.g. `networks.elo.options.geo_precision`.
        public var path: String
        /// What it means, for a person; never contains credentials.
        public var message: String

        /// Creates a warning.
        /// - Parameters:
        ///   - code: the kind of warning.
        ///   - path: the JSON path it is about.
        ///   - message: what it means.
        package init(code: Code, path: String, message: String) {
            self.code = code
            self.path = ConfigurationText.excerpt(path, limit: ConfigurationText.maximumPathLength)
            self.message = ConfigurationText.excerpt(message, limit: ConfigurationText.maximumMessageLength)
        }

        /// The warning of a network's factory that clamped an option into its range
        /// (`option_clamped`), e.g. at `networks.elo.options.geo_precision`.
        /// - Parameters:
        ///   - path: the JSON path of the option (``NetworkSettings/optionPath(_:)``).
        ///   - message: what it did, for a person; never a credential.
        public static func optionClamped(at path: String, _ message: String) -> MediationConfiguration.Warning {
            MediationConfiguration.Warning(code: .optionClamped, path: path, message: message)
        }

        /// The warning of a network's factory that ignores an option with this configuration
        /// (`option_ignored`), e.g. a sandbox-only option on a real endpoint.
        /// - Parameters:
        ///   - path: the JSON path of the option (``NetworkSettings/optionPath(_:)``).
        ///   - message: why it is ignored, for a person; never a credential.
        public static func optionIgnored(at path: String, _ message: String) -> MediationConfiguration.Warning {
            MediationConfiguration.Warning(code: .optionIgnored, path: path, message: message)
        }

        /// `path: message (code)`.
        public var description: String { "\(path): \(message) (\(code))" }
    }
}

extension LineItem {
    /// What a network's factory says about one line item (engine rule R19): errors that make the
    /// line item unable to ever fill (the configuration is then invalid), and warnings.
    public struct Validation: Hashable, Sendable {
        /// Why the line item can never fill, each naming its JSON path (e.g.
        /// `placements.level_end.sources[0]`); the first one fails the engine's build.
        public var errors: [ConfigurationError]
        /// Things the author should know, each naming its JSON path.
        public var warnings: [MediationConfiguration.Warning]

        /// Creates a result.
        /// - Parameters:
        ///   - errors: why the line item can never fill.
        ///   - warnings: what the author should know.
        public init(errors: [ConfigurationError] = [], warnings: [MediationConfiguration.Warning] = []) {
            self.errors = errors
            self.warnings = warnings
        }

        /// Nothing to say: the line item can fill.
        public static let valid = LineItem.Validation()

        /// A line item that can never fill, for `reason`.
        /// - Parameters:
        ///   - path: the JSON path (usually the source's,
        ///     ``MediationConfiguration/Placement/path(of:)``).
        ///   - reason: why, for a person.
        public static func unfillable(at path: String, _ reason: String) -> LineItem.Validation {
            LineItem.Validation(errors: [ConfigurationError(code: .unfillable, path: path, message: reason)])
        }
    }
}

/// Formats configuration text for messages: short excerpts with control characters escaped,
/// so that an error or warning line stays one short line whatever the file holds.
package enum ConfigurationText {
    /// The most characters of a value an error message quotes.
    package static let excerptLength = 80
    /// The longest path kept in an error or a warning.
    package static let maximumPathLength = 240
    /// The longest message kept in an error or a warning.
    package static let maximumMessageLength = 480

    /// `text` with control characters escaped (``DisplayText/escaped(_:)``), cut to `limit`
    /// characters with `…` when longer.
    /// - Parameters:
    ///   - text: any text from a configuration.
    ///   - limit: the most characters kept (default ``excerptLength``).
    package static func excerpt(_ text: String, limit: Int = excerptLength) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            let piece = DisplayText.escaped(scalar)
            if count + piece.unicodeScalars.count > limit {
                return result + "…"
            }
            result += piece
            count += piece.unicodeScalars.count
        }
        return result
    }

    /// `text` quoted as an excerpt: `"…"` around ``excerpt(_:limit:)``.
    /// - Parameter text: any text from a configuration.
    package static func quoted(_ text: String) -> String {
        "\"" + excerpt(text) + "\""
    }

    /// `text` with the user info of its authority (what comes before the last `@` between
    /// `://`, or the scheme's `:`, and the next `/`, `?` or `#`) written `***`; `text` itself
    /// when it has none. A URL is quoted through this wherever a message may show it, so a
    /// password written into it never reaches an error, a warning or a log.
    /// - Parameter text: a URL as written (an endpoint, `--config-url`).
    package static func withoutUserInfo(_ text: String) -> String {
        guard let start = text.range(of: "://")?.upperBound ?? text.range(of: ":")?.upperBound else { return text }
        let authorityEnd = text[start...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? text.endIndex
        guard let at = text[start..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<start]) + "***" + String(text[at...])
    }
}

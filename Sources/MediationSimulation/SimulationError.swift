import Mediation

/// A simulation could not run: what is wrong (``code``), where when it is in a file (``path``,
/// a JSON path of the market file or the configuration) and a sentence for a person.
///
/// A struct over an open set of codes, like `ConfigurationError`, so adding a code breaks no
/// caller.
public struct SimulationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it is.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, e.g. `"invalid_market"`.
        public var rawValue: String
        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The configuration has no such placement.
        public static let unknownPlacement = Code(rawValue: "unknown_placement")
        /// The market does not describe a network or line item the run needs, or overrides one
        /// the configuration does not have (``path`` is in the market file).
        public static let invalidMarket = Code(rawValue: "invalid_market")
        /// The engine could not be built from the configuration (``path`` is in the configuration).
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
        /// An option is out of range (no auctions, no jobs …).
        public static let invalidOptions = Code(rawValue: "invalid_options")
        /// A sweep's parameter or values are malformed or do not apply to the placement.
        public static let invalidSweep = Code(rawValue: "invalid_sweep")
        /// A replay's recording is malformed (``path`` is `line N` of the NDJSON file, with the
        /// field's JSON path in it when there is one: `line 12: trace.sources[1].latency_ms`).
        public static let invalidRecording = Code(rawValue: "invalid_recording")
        /// A replay's recording cannot be read.
        public static let unreadableRecording = Code(rawValue: "unreadable_recording")
        /// Virtual time ran out of wake-ups before every auction ended (an engine bug).
        public static let stalled = Code(rawValue: "stalled")

        /// The name.
        public var description: String { rawValue }
    }

    /// What kind of problem it is.
    public var code: Code
    /// The JSON path of the offending value, when the problem is in a file.
    public var path: String?
    /// What is wrong, for a person.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of problem.
    ///   - path: the JSON path, when in a file.
    ///   - message: what is wrong.
    public init(code: Code, path: String? = nil, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    /// A market error (``Code/invalidMarket``) from the market reader's or checker's error.
    /// - Parameter error: the error naming a path of the market file.
    /// - Returns: the simulation error.
    public static func market(_ error: ConfigurationError) -> SimulationError {
        SimulationError(code: .invalidMarket, path: error.path, message: error.message)
    }

    /// `path: message`, or the message alone.
    public var description: String {
        path.map { "\($0): \(message)" } ?? message
    }
}

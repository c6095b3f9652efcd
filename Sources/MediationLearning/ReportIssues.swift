/// Where in an input file something is: `file:line:column` (1-based; columns count Unicode
/// scalars), or `file` alone for what concerns a whole file.
public struct ReportLocation: Hashable, Sendable, CustomStringConvertible {
    /// The file as it was named (e.g. on the command line), e.g. `reports/nitx.csv`.
    public var file: String
    /// The line, from 1; `nil` for the whole file.
    public var line: Int?
    /// The column, from 1; `nil` for the whole line.
    public var column: Int?

    /// Creates a location.
    public init(file: String, line: Int? = nil, column: Int? = nil) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, `file:line` or `file`.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if line != nil, let column { text += ":\(column)" }
        return text
    }
}

/// A mistake in a revenue report or events file: the whole input is refused, with where and
/// what, e.g. `reports/nitx.csv:7:23: revenue must be a finite number >= 0, found "-1"`.
public struct ReportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where the mistake is.
    public var location: ReportLocation
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(_ location: ReportLocation, _ message: String) {
        self.location = location
        self.message = message
    }

    /// `location: message`.
    public var description: String { "\(location): \(message)" }
}

/// Something in the reports that does not stop learning but deserves a look.
public struct ReportWarning: Hashable, Sendable, CustomStringConvertible {
    /// What kind of warning it is: a stable name.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, e.g. `"missing_day"`.
        public var rawValue: String
        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A report row's network and ad unit belong to no line item of the config (its row is
        /// not used).
        public static let unknownAdUnit = Code(rawValue: "unknown_ad_unit")
        /// A day between a network's first and last reported day has no row of that network.
        public static let missingDay = Code(rawValue: "missing_day")
        /// The app's own impressions of a line item (the events file) and the network's
        /// reported impressions differ by more than ``ReportAssembly/discrepancyThreshold``.
        public static let impressionDiscrepancy = Code(rawValue: "impression_discrepancy")
        /// A row repeats an earlier one exactly (same day, network, ad unit and country, same
        /// impressions and revenue), as overlapping exports make: it is counted once.
        public static let duplicateRow = Code(rawValue: "duplicate_row")
        /// Report rows are dated after the day the estimates are for (`--as-of`): they are not
        /// used.
        public static let afterAsOf = Code(rawValue: "after_as_of")

        /// The name.
        public var description: String { rawValue }
    }

    /// The kind of warning.
    public var code: Code
    /// Where it is.
    public var location: ReportLocation
    /// What it is.
    public var message: String

    /// Creates a warning.
    public init(code: Code, location: ReportLocation, message: String) {
        self.code = code
        self.location = location
        self.message = message
    }

    /// `location: message (code)`.
    public var description: String { "\(location): \(message) (\(code))" }
}

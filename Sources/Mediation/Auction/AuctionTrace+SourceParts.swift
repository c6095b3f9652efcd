extension AuctionTrace.Source {
    /// A source's answer that came after its outcome was set (R6a): when it came, and whether it
    /// brought an ad, which the engine released on arrival (R7). JSON: `{"at_ms", "released"}`.
    package struct LateAnswer: Hashable, Sendable, Codable {
        /// When it came, in milliseconds from the auction's start.
        public package(set) var atOffsetMilliseconds: Double
        /// Whether it brought an ad (released on arrival, exactly once).
        public package(set) var released: Bool

        private enum CodingKeys: String, CodingKey {
            case atOffsetMilliseconds = "at_ms"
            case released
        }

        /// Creates a record.
        /// - Parameters:
        ///   - atOffsetMilliseconds: when it came, ms from the auction's start.
        ///   - released: whether it brought an ad (released on arrival).
        public init(atOffsetMilliseconds: Double, released: Bool) {
            self.atOffsetMilliseconds = atOffsetMilliseconds
            self.released = released
        }
    }
}

extension AuctionTrace.Source {
    /// An error or a warning about one source in one auction, Prebid-style: a stable snake_case
    /// code and a short message for a person. JSON: `{"code", "message"}`.
    package struct Issue: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The stable code, e.g. `"http_error"`, `"timeout"`, `"adapter_warning"`.
        public package(set) var code: String
        /// What happened, for a person (bounded; escape it before printing).
        public package(set) var message: String

        /// Creates an issue.
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }

        /// `code: message`.
        public var description: String { "\(code): \(message)" }
    }
}

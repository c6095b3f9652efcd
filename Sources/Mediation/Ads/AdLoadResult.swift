/// An adapter's one answer to one ad request.
public enum AdLoadResult: Sendable {
    /// A bid: an ad with the network's own price for it, in eCPM (USD CPM, or the source's
    /// configured currency, which the engine converts once).
    case bid(any LoadedAd, eCPM: Double)
    /// A fill: an ad priced by its line item's configured eCPM (fixed-price sources).
    case fill(any LoadedAd)
    /// The network had no ad; the reason is the network's own.
    case noFill(AdLoadResult.NoFillReason)
    /// The request failed (network, server, decoding, creative or configuration problem).
    case failure(AdLoadResult.Error)

    /// The ad carried by a bid or a fill.
    public var ad: (any LoadedAd)? {
        switch self {
        case .bid(let ad, _), .fill(let ad): ad
        case .noFill, .failure: nil
        }
    }
}

extension AdLoadResult {
    /// Why a network had no ad. A no-fill is not an error.
    public struct NoFillReason: Hashable, Sendable, Codable, CustomStringConvertible {
        /// A stable, network-defined code, e.g. `"noBids"`, `"sessionDisabled"`.
        public var code: String
        /// A human-readable detail, if any.
        public var message: String?

        /// Creates a reason.
        public init(code: String, message: String? = nil) {
            self.code = code
            self.message = message
        }

        /// The network had no matching demand.
        public static let noInventory = AdLoadResult.NoFillReason(code: "noInventory")

        /// `code` or `code: message`.
        public var description: String {
            message.map { "\(code): \($0)" } ?? code
        }
    }
}

extension AdLoadResult {
    /// A failed ad request. A struct over an open set of kinds, with the network's numbered code,
    /// so adding a code breaks no caller.
    public struct Error: Swift.Error, Hashable, Sendable, Codable, CustomStringConvertible {
        /// What went wrong, broadly.
        public struct Kind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
            /// The kind's name.
            public var rawValue: String
            /// Creates a kind.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The network could not be reached (DNS, connection refused, TLS, dropped).
            public static let network = Kind(rawValue: "network")
            /// The server answered with an error status (4xx other than no-bid, 5xx).
            public static let server = Kind(rawValue: "server")
            /// The answer could not be decoded or broke the network's rules.
            public static let invalidResponse = Kind(rawValue: "invalidResponse")
            /// The adapter or its credentials are misconfigured.
            public static let configuration = Kind(rawValue: "configuration")
            /// The creative cannot be shown (too large, HTML where not supported …).
            public static let creative = Kind(rawValue: "creative")
            /// The network does not support what was asked (e.g. a format).
            public static let unsupported = Kind(rawValue: "unsupported")
            /// The adapter gave up on its own time budget.
            public static let timeout = Kind(rawValue: "timeout")
            /// The request was cancelled.
            public static let cancelled = Kind(rawValue: "cancelled")
            /// The name.
            public var description: String { rawValue }
        }

        /// The broad kind.
        public var kind: Kind
        /// The network's numbered code (documented per adapter), or 0.
        public var code: Int
        /// What happened, for a person.
        public var message: String
        /// The HTTP status behind the failure, when the network answered one (an error status, a
        /// refused redirect, engine rule R17); `nil` otherwise. JSON: `http_status`, omitted when
        /// `nil`.
        public var httpStatus: Int?

        private enum CodingKeys: String, CodingKey {
            case kind, code, message
            case httpStatus = "http_status"
        }

        /// Creates an error.
        /// - Parameters:
        ///   - kind: the broad kind.
        ///   - code: the network's numbered code (default 0).
        ///   - message: what happened (never user data, at most an origin of a URL).
        ///   - httpStatus: the HTTP status behind the failure, if any (default none).
        public init(kind: Kind, code: Int = 0, message: String, httpStatus: Int? = nil) {
            self.kind = kind
            self.code = code
            self.message = message
            self.httpStatus = httpStatus
        }

        /// `kind(code): message`.
        public var description: String {
            "\(kind)(\(code)): \(message)"
        }
    }
}

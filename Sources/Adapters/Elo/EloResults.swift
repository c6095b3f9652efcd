import Mediation

/// Why Elo served no ad (Elo seed, `AdLoadResult.NoFillReason`). A no-fill is not an error.
package enum EloNoFillReason: Sendable, Hashable {
    /// The server answered with no ad (HTTP 204, or an answer without a bid).
    case noBids
    /// No answer before the deadline (at most 3 s).
    case timeout
    /// A load after shutdown.
    case notConfigured
    /// Anything else, e.g. no format fits a slot under 72 pt.
    case other(String)

    /// The engine's reason, with codes `noBids`, `timeout`, `notConfigured` and `other` (with
    /// the message).
    package var engineReason: AdLoadResult.NoFillReason {
        switch self {
        case .noBids: AdLoadResult.NoFillReason(code: "noBids")
        case .timeout: AdLoadResult.NoFillReason(code: "timeout")
        case .notConfigured: AdLoadResult.NoFillReason(code: "notConfigured")
        case .other(let message): AdLoadResult.NoFillReason(code: "other", message: message)
        }
    }
}

/// A failed Elo load (Elo seed, `AdResult.error` and `EloErrorCategory`).
package struct EloError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad category.
    package enum Category: String, Sendable, Hashable {
        /// The answer could not be decoded or broke the protocol's rules.
        case decoding
        /// The request was cancelled (the caller's task, or ``EloClient/shutdown()``).
        case cancelled
        /// The client could not build a request (e.g. no ad unit id anywhere).
        case internalState
    }

    /// The category.
    public var category: Category
    /// What happened (never chat content or user data).
    public var message: String

    /// Creates an error.
    package init(_ category: Category, _ message: String) {
        self.category = category
        self.message = message
    }

    /// `category: message`.
    public var description: String { "\(category.rawValue): \(message)" }

    /// The engine's error: decoding -> `invalidResponse` (code 1), cancelled -> `cancelled`
    /// (code 2), internal state -> `configuration` (code 3).
    package var adapterError: AdLoadResult.Error {
        switch category {
        case .decoding: EloErrorCode.decoding.error(message)
        case .cancelled: EloErrorCode.cancelled.error(message)
        case .internalState: EloErrorCode.internalState.error(message)
        }
    }
}

/// The Elo client's answer to one load (Elo seed, `AdResult`).
package enum EloAdResult: Sendable {
    /// An ad with the server's price: USD CPM, finite and >= 0.
    case loaded(EloAd, eCPM: Double)
    /// No ad, with the reason (never `networkError`: that is ``networkError(detail:failure:)``).
    case noFill(EloNoFillReason)
    /// The server could not be reached, or answered an error status: what Elo's SDK reports as
    /// `.noFill(.networkError(detail:))`, and the engine's error for it (``EloErrorCode`` 10 to
    /// 16, the kind of the engine's one classification).
    case networkError(detail: String, failure: AdLoadResult.Error)
    /// A failure.
    case error(EloError)
}

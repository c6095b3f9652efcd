import Mediation

/// The Nitx adapter's numbered error codes, carried in ``AdLoadResult/Error/code``.
///
/// | code | kind | meaning |
/// | --- | --- | --- |
/// | 1 | network | the API could not be reached |
/// | 2 | server | the API answered an error status |
/// | 3 | invalidResponse | the answer could not be decoded |
/// | 4 | creative | an HTML creative (not rendered in v1, Nitx seed "Deviations") or an unknown creative type |
/// | 5 | unsupported | rewarded (not available in v1) |
/// | 6 | unsupported | no Nitx banner size fits the slot |
/// | 7 | configuration | the slot code is unknown to the API (404 on GET) |
/// | 8 | cancelled | the request was cancelled |
/// | 9 | timeout | the transport's backstop timed out |
/// | 10 | invalidResponse | the slot's format is not the requested one |
/// | 11 | configuration | the line item has no slot code (`ad_unit_id`) |
/// | 12 | server | a redirect was refused: off the API's origin, or past the transport's limit (R17) |
/// | 13 | invalidResponse | the answer's body was larger than the transport accepts |
/// | 14 | cancelled | the client was shut down: it sends nothing any more |
/// | 15 | configuration | the request could not be sent: a bad URL, or one off the API's origin (R17) |
///
/// A request that got no response takes its kind from the engine's one classification
/// (``AdLoadResult/Error/Kind/init(_:)``): 1, 8, 9, 12, 13 and 15.
package enum NitxErrorCode: Int, NetworkErrorCode {
    /// The API could not be reached.
    case network = 1
    /// The API answered an error status.
    case server = 2
    /// The answer could not be decoded.
    case invalidResponse = 3
    /// An HTML creative.
    case htmlCreative = 4
    /// Rewarded ads are a stub in v1.
    case rewardedUnavailable = 5
    /// No banner size fits the slot.
    case noBannerSizeFits = 6
    /// The slot code is unknown.
    case unknownSlot = 7
    /// The request was cancelled.
    case cancelled = 8
    /// The transport timed out.
    case timedOut = 9
    /// The slot serves another format.
    case formatMismatch = 10
    /// The line item has no slot code.
    case missingSlot = 11
    /// A redirect was refused (off the API's origin, or too many).
    case redirectRefused = 12
    /// The answer's body was too large.
    case responseTooLarge = 13
    /// The client was shut down.
    case shutDown = 14
    /// The request could not be sent (a bad URL, or off the API's origin).
    case requestRefused = 15

    /// The engine's kind for this code.
    package var kind: AdLoadResult.Error.Kind {
        switch self {
        case .network: .network
        case .server, .redirectRefused: .server
        case .invalidResponse, .formatMismatch, .responseTooLarge: .invalidResponse
        case .htmlCreative: .creative
        case .rewardedUnavailable, .noBannerSizeFits: .unsupported
        case .unknownSlot, .missingSlot, .requestRefused: .configuration
        case .cancelled, .shutDown: .cancelled
        case .timedOut: .timeout
        }
    }

    /// The code of a request that got no response.
    package static func transport(_ failure: HTTP.TransportError.Kind) -> NitxErrorCode {
        switch failure {
        case .connection: .network
        case .timedOut: .timedOut
        case .cancelled: .cancelled
        case .invalidRequest: .requestRefused
        case .redirectRefused: .redirectRefused
        case .responseTooLarge: .responseTooLarge
        }
    }
}

extension NitxErrorCode {
    /// The message of the rewarded stub, verbatim from the Nitx seed ("Rewarded").
    package static let rewardedMessage = "Rewarded ads are not available in v1"
}

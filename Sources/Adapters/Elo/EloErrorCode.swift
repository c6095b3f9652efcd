import Mediation

/// The Elo adapter's numbered error codes, carried in ``AdLoadResult/Error/code``.
///
/// | code | kind | meaning |
/// | --- | --- | --- |
/// | 1 | invalidResponse | the answer could not be decoded or broke the protocol's rules |
/// | 2 | cancelled | the request was cancelled (the engine's limit, or ``EloClient/shutdown()``) |
/// | 3 | configuration | no ad unit id configured or requested |
/// | 4 | unsupported | a placement format other than banner or native (no request) |
/// | 10 | network | the server could not be reached (refused, DNS, TLS, dropped) |
/// | 11 | timeout | the transport's backstop timed out |
/// | 12 | configuration | the request could not be sent: a bad URL, or one off the endpoint's origin (R17) |
/// | 13 | server | a redirect was refused: off the origin, or past the transport's limit (R17) |
/// | 14 | invalidResponse | the answer's body was larger than the transport accepts (R16) |
/// | 15 | server | the server answered an error status (5xx, other 4xx) |
/// | 16 | configuration | the server answered 401 or 403 (the publisher id is refused) |
///
/// Codes 10 to 16 are the failures to reach the server that Elo's SDK reports as
/// `.noFill(.networkError)` (Elo seed, `AdLoadResult.NoFillReason`); the engine classifies them as
/// the `error` they are, with the kind of its one classification
/// (``AdLoadResult/Error/Kind/init(_:)``, ``AdLoadResult/Error/Kind/init(httpStatus:)``), and the
/// message starts with `networkError: `.
package enum EloErrorCode: Int, NetworkErrorCode {
    /// The answer could not be decoded.
    case decoding = 1
    /// The request was cancelled.
    case cancelled = 2
    /// No ad unit id anywhere.
    case internalState = 3
    /// A format Elo does not serve.
    case unsupportedFormat = 4
    /// The server could not be reached.
    case network = 10
    /// The transport's backstop timed out.
    case timedOut = 11
    /// The request could not be sent.
    case requestRefused = 12
    /// A redirect was refused.
    case redirectRefused = 13
    /// The answer's body was too large.
    case responseTooLarge = 14
    /// The server answered an error status.
    case serverStatus = 15
    /// The server refused the credentials (401, 403).
    case unauthorized = 16

    /// The engine's kind for this code.
    package var kind: AdLoadResult.Error.Kind {
        switch self {
        case .decoding, .responseTooLarge: .invalidResponse
        case .cancelled: .cancelled
        case .internalState, .requestRefused, .unauthorized: .configuration
        case .unsupportedFormat: .unsupported
        case .network: .network
        case .timedOut: .timeout
        case .redirectRefused, .serverStatus: .server
        }
    }

    /// The code of a request that got no response.
    package static func transport(_ failure: HTTP.TransportError.Kind) -> EloErrorCode {
        switch failure {
        case .connection: .network
        case .timedOut: .timedOut
        case .cancelled: .cancelled
        case .invalidRequest: .requestRefused
        case .redirectRefused: .redirectRefused
        case .responseTooLarge: .responseTooLarge
        }
    }

    /// The code of an HTTP error status (at least 300): 16 for 401 and 403, else 15.
    package static func status(_ httpStatus: Int) -> EloErrorCode {
        AdLoadResult.Error.Kind(httpStatus: httpStatus) == .configuration ? .unauthorized : .serverStatus
    }
}

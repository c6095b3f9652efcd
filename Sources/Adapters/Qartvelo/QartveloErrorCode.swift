import Mediation

/// The Qartvelo adapter's numbered error codes (``AdLoadResult/Error/code``), documented in
/// `docs/networks/qartvelo.md`.
///
/// A request that got no response takes its kind from the engine's one classification
/// (``AdLoadResult/Error/Kind/init(_:)``): 10 to 15.
package enum QartveloErrorCode: Int, NetworkErrorCode {
    /// 1: a format other than banner was asked for (Qartvelo serves banners only). Kind
    /// `unsupported`.
    case unsupportedFormat = 1
    /// 2: the inline maximum height is under 32 pt or not finite. Kind `configuration`.
    case invalidInlineMaxHeight = 2
    /// 3: the slot width or the screen scale is not finite and positive. Kind `configuration`.
    case invalidSlot = 3
    /// 10: no HTTP response (connection refused, DNS, TLS). Kind `network`.
    case network = 10
    /// 11: the request was cancelled. Kind `cancelled`.
    case cancelled = 11
    /// 12: the transport's backstop timeout fired. Kind `timeout`.
    case timedOut = 12
    /// 13: the request could not be built (bad URL). Kind `configuration`.
    case invalidRequest = 13
    /// 14: a redirect was refused: off the origin of the request's URL, or past the transport's
    /// limit (engine rule R17). Kind `server`, with the redirect's HTTP status.
    case redirectRefused = 14
    /// 15: the answer's body was larger than the transport accepts. Kind `invalidResponse`.
    case responseTooLarge = 15
    /// 20: the server answered 401 or 403 (the app id is not registered). Kind `configuration`.
    case unauthorized = 20
    /// 21: the server answered another error status. Kind `server`.
    case serverStatus = 21
    /// 30: the answer is not valid JSON of the documented shape. Kind `invalidResponse`.
    case malformedResponse = 30
    /// 31: the ad breaks the rules (size out of bounds, density out of 0.5...8, unknown type,
    /// missing, malformed or over-long URL, a URL the adapter may not fetch). Kind
    /// `invalidResponse`.
    case invalidAd = 31
    /// 40: the HTML5 bundle is larger than 2 MB (2,097,152 bytes). Kind `creative`.
    case bundleTooLarge = 40
    /// 41: the HTML5 bundle download answered an error status. Kind `creative`.
    case bundleUnavailable = 41
    /// 50: the HTML5 ad was not ready within 6 s of rendering. Kind `creative`.
    case renderTimeout = 50

    /// The engine's kind for this code.
    package var kind: AdLoadResult.Error.Kind {
        switch self {
        case .unsupportedFormat: .unsupported
        case .invalidInlineMaxHeight, .invalidSlot, .invalidRequest, .unauthorized: .configuration
        case .network: .network
        case .cancelled: .cancelled
        case .timedOut: .timeout
        case .redirectRefused, .serverStatus: .server
        case .responseTooLarge, .malformedResponse, .invalidAd: .invalidResponse
        case .bundleTooLarge, .bundleUnavailable, .renderTimeout: .creative
        }
    }

    /// The code of a request that got no response.
    package static func transport(_ failure: HTTP.TransportError.Kind) -> QartveloErrorCode {
        switch failure {
        case .connection: .network
        case .timedOut: .timedOut
        case .cancelled: .cancelled
        case .invalidRequest: .invalidRequest
        case .redirectRefused: .redirectRefused
        case .responseTooLarge: .responseTooLarge
        }
    }
}

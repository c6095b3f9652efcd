import Mediation

/// The Qartvelo adapter's numbered error codes (``AdapterError/code``), documented in
/// `docs/networks/qartvelo.md`.
package enum QartveloErrorCode {
    /// 1: a format other than banner was asked for (Qartvelo serves banners only). Kind `unsupported`.
    package static let unsupportedFormat = 1
    /// 2: the inline maximum height is under 32 pt or not finite. Kind `configuration`.
    package static let invalidInlineMaxHeight = 2
    /// 3: the slot width or the screen scale is not finite and positive. Kind `configuration`.
    package static let invalidSlot = 3
    /// 10: no HTTP response (connection refused, DNS, TLS). Kind `network`.
    package static let network = 10
    /// 11: the request was cancelled. Kind `cancelled`.
    package static let cancelled = 11
    /// 12: the transport's backstop timeout fired. Kind `timeout`.
    package static let timedOut = 12
    /// 13: the request could not be built (bad URL). Kind `configuration`.
    package static let invalidRequest = 13
    /// 14: a redirect was refused: off the origin of the request's URL, or past the transport's
    /// limit (engine rule R17). Kind `server`, with the redirect's HTTP status.
    package static let redirectRefused = 14
    /// 15: the answer's body was larger than the transport accepts. Kind `invalidResponse`.
    package static let responseTooLarge = 15
    /// 20: the server answered 401 or 403 (the app id is not registered). Kind `configuration`.
    package static let unauthorized = 20
    /// 21: the server answered another error status. Kind `server`.
    package static let serverStatus = 21
    /// 30: the answer is not valid JSON of the documented shape. Kind `invalidResponse`.
    package static let malformedResponse = 30
    /// 31: the ad breaks the rules (size out of bounds, density out of 0.5...8, unknown type,
    /// missing, malformed or over-long URL, a URL the adapter may not fetch). Kind `invalidResponse`.
    package static let invalidAd = 31
    /// 40: the HTML5 bundle is larger than 2 MB (2,097,152 bytes). Kind `creative`.
    package static let bundleTooLarge = 40
    /// 41: the HTML5 bundle download answered an error status. Kind `creative`.
    package static let bundleUnavailable = 41
    /// 50: the HTML5 ad was not ready within 6 s of rendering. Kind `creative`.
    package static let renderTimeout = 50
}

/// The engine's one classification of a failure to reach a network, the same for every network
/// so that the trace's `error` outcomes, the statistics' error counts and network health mean
/// the same thing per network. Each network keeps its own numbered codes and result names (in
/// ``AdLoadResult/Error/code`` and the message); the kind is this one.
extension AdLoadResult.Error.Kind {
    /// The kind of a request that got no response:
    ///
    /// | transport error | kind |
    /// | --- | --- |
    /// | `connection` (refused, DNS, TLS, dropped) | `network` |
    /// | `timedOut` (the transport's backstop) | `timeout` |
    /// | `cancelled` | `cancelled` |
    /// | `invalidRequest` (a bad URL, or off the network's origin) | `configuration` |
    /// | `redirectRefused` (R17) | `server` |
    /// | `responseTooLarge` (R16) | `invalidResponse` |
    /// - Parameter failure: the transport error's kind.
    package init(_ failure: HTTP.TransportError.Kind) {
        switch failure {
        case .connection: self = .network
        case .timedOut: self = .timeout
        case .cancelled: self = .cancelled
        case .invalidRequest: self = .configuration
        case .redirectRefused: self = .server
        case .responseTooLarge: self = .invalidResponse
        }
    }

    /// The kind of an HTTP status a network answered instead of an ad: `configuration` for 401
    /// and 403 (the credentials are refused), `server` for every other status from 300 up
    /// (5xx, other 4xx, a redirect nobody followed); `nil` under 300 (an answer: the network's
    /// document says which of them is a no-fill).
    /// - Parameter httpStatus: the response's status code.
    public init?(httpStatus: Int) {
        switch httpStatus {
        case ..<300: return nil
        case 401, 403: self = .configuration
        default: self = .server
        }
    }
}

/// A network's numbered error codes (``AdLoadResult/Error/code``), each with its kind, documented
/// per network as an enum; the codes for requests that got no response follow the one
/// classification of ``AdLoadResult/Error/Kind/init(_:)``.
package protocol NetworkErrorCode: RawRepresentable, Hashable, Sendable, CaseIterable where RawValue == Int {
    /// The engine's kind for this code.
    var kind: AdLoadResult.Error.Kind { get }
    /// The network's code for a request that got no response of `failure`'s kind; its
    /// ``kind`` is `AdLoadResult.Error.Kind(failure)`.
    static func transport(_ failure: HTTP.TransportError.Kind) -> Self
}

extension NetworkErrorCode {
    /// An ``AdLoadResult/Error`` with this code's kind and number.
    /// - Parameters:
    ///   - message: what happened (never user data); cut to ``NetworkValueBounds/text(_:limit:)``.
    ///   - httpStatus: the HTTP status behind it, if any.
    public func error(_ message: String, httpStatus: Int? = nil) -> AdLoadResult.Error {
        AdLoadResult.Error(kind: kind, code: rawValue, message: NetworkValueBounds.text(message), httpStatus: httpStatus)
    }

    /// The error of a request that got no response: the network's code for it, the one
    /// classification's kind, the message `<transport kind>: <message>` and the status of a
    /// refused redirect or an oversized answer.
    /// - Parameters:
    ///   - failure: the transport's error.
    ///   - prefix: the network's own name for the result, put first in the message (e.g.
    ///     Elo's `networkError`); none by default.
    public static func error(for failure: HTTP.TransportError, prefix: String? = nil) -> AdLoadResult.Error {
        let text = "\(failure.kind.rawValue): \(failure.message)"
        return AdLoadResult.Error(
            kind: AdLoadResult.Error.Kind(failure.kind),
            code: transport(failure.kind).rawValue,
            message: NetworkValueBounds.text(prefix.map { "\($0): \(text)" } ?? text),
            httpStatus: failure.status
        )
    }
}

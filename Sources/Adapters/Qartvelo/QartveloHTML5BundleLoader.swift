import Foundation
import Mediation

/// An HTML5 ad's files, downloaded ahead of showing (Qartvelo seed, "HTML5 ads").
public struct QartveloHTML5Bundle: Hashable, Sendable {
    /// Where the bundle came from.
    public var url: URL
    /// The bundle's bytes (an archive of the ad's own files, served to the web view from the
    /// private `qartvelo-bundle` scheme).
    public var data: Data
}

/// Downloads HTML5 bundles ahead through the adapter's transport, at most 2 MB per ad
/// (Qartvelo seed, "HTML5 ads"). A larger bundle is a creative failure (code 40), so the
/// placement's next source fills.
struct QartveloHTML5BundleLoader: Sendable {
    /// The largest bundle accepted: 2 MB = 2 x 1024 x 1024 = 2,097,152 bytes.
    static let maximumBytes = 2 * 1024 * 1024

    /// The adapter's transport for URLs from its answers (``HTTP/OriginLockedTransport`` with
    /// ``HTTP/OriginLockedTransport/Reach/answerURLs(excludingHosts:)``).
    var transport: HTTP.OriginLockedTransport

    /// Downloads the bundle at `url`.
    ///
    /// A bundle is refused before download when the ad's `bundle_size` or the response's
    /// `Content-Length` says it is over the limit, and after download when its bytes are.
    /// - Parameters:
    ///   - url: the bundle's URL.
    ///   - declaredSize: the size the ad response declared, in bytes, if any.
    /// - Returns: the bundle, or an ``AdLoadResult/Error``: `creative` code 40 over 2 MB,
    ///   `creative` code 41 for an error status, `invalidResponse` code 31 for a URL the transport
    ///   does not permit, `network`/`cancelled`/`timeout`/`server` (a refused redirect) when no
    ///   response came.
    func load(from url: URL, declaredSize: Int?) async -> Result<QartveloHTML5Bundle, AdLoadResult.Error> {
        if let declaredSize, declaredSize > Self.maximumBytes {
            return .failure(Self.tooLarge(declaredSize))
        }
        guard transport.permits(url) else {
            return .failure(AdLoadResult.Error(kind: .invalidResponse, code: QartveloErrorCode.invalidAd.rawValue, message: "bundle_url is not a URL the adapter may fetch"))
        }
        let response: HTTP.Response
        do {
            response = try await transport.send(HTTP.Request(method: "GET", url: url))
        } catch {
            return .failure(QartveloTransportErrors.adapterError(for: error))
        }
        guard (200...299).contains(response.statusCode) else {
            return .failure(AdLoadResult.Error(kind: .creative, code: QartveloErrorCode.bundleUnavailable.rawValue, message: "HTML5 bundle download answered \(response.statusCode)", httpStatus: response.statusCode))
        }
        if let length = Self.contentLength(response), length > Self.maximumBytes {
            return .failure(Self.tooLarge(length))
        }
        guard response.body.count <= Self.maximumBytes else {
            return .failure(Self.tooLarge(response.body.count))
        }
        return .success(QartveloHTML5Bundle(url: url, data: response.body))
    }

    private static func tooLarge(_ bytes: Int) -> AdLoadResult.Error {
        AdLoadResult.Error(kind: .creative, code: QartveloErrorCode.bundleTooLarge.rawValue, message: "HTML5 bundle of \(bytes) bytes is over the 2 MB (\(maximumBytes) bytes) limit")
    }

    private static func contentLength(_ response: HTTP.Response) -> Int? {
        response.headers.first { $0.key.lowercased() == "content-length" }.flatMap { Int($0.value.trimmingCharacters(in: .whitespaces)) }
    }
}

/// Maps the transport's errors to the adapter's (messages cut to `NetworkValueBounds.text`,
/// the HTTP status kept for a refused redirect or an oversized answer).
enum QartveloTransportErrors {
    /// The ``AdLoadResult/Error`` for a request that got no response.
    static func adapterError(for error: HTTP.TransportError) -> AdLoadResult.Error {
        QartveloErrorCode.error(for: error)
    }
}

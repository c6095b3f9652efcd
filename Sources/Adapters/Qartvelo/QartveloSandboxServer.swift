import Foundation
import Mediation

/// Qartvelo's simulated ad server (host ``host``), answering the adapter's real requests with
/// the real response format:
/// - `POST /v1/banner`: 400 for a body that is not a banner request, 401 for an empty app id,
///   else 200 with a creative picked from ``creatives`` (inline requests: the one that shows
///   biggest once aspect-fit into the width and `max_height`; requests with `banner_height`:
///   the horizontal one closest in aspect ratio to the slot; others: the widest horizontal one
///   whose width in points fits), or 204 when none fits.
///   The answer carries the dashboard's `banner_refresh_seconds` (option, default 60).
/// - `GET /v1/bundles/{creative id}`: an HTML5 bundle of `sandbox_html5_bundle_bytes` bytes.
/// - `GET /v1/events/...`: 204 (impression and click tracking).
package struct QartveloSandboxServer: NetworkConnection.SandboxServer {
    /// The sandbox's host name.
    package static let host = "sandbox.qartvelo.test"
    /// The sandbox's base URL, `https://sandbox.qartvelo.test`.
    package static let baseURL: URL = URL(string: "https://\(host)") ?? URL(fileURLWithPath: "/")

    /// The dashboard settings the sandbox simulates.
    package var options: QartveloOptions
    /// The approved creatives, in upload order.
    package var creatives: [QartveloCreativeArtwork]

    /// Creates a sandbox server.
    /// - Parameters:
    ///   - options: `banner_refresh_seconds`, `sandbox_html5`, `sandbox_html5_bundle_bytes`.
    ///   - creatives: the approved creatives (default every upload size).
    package init(options: QartveloOptions = QartveloOptions(), creatives: [QartveloCreativeArtwork] = QartveloCreativeArtwork.uploadSizes) {
        self.options = options
        self.creatives = creatives
    }

    /// Answers one request.
    package func respond(to request: HTTP.Request) async -> HTTP.Response {
        let path = request.url.path
        switch (request.method, path) {
        case ("POST", "/v1/banner"):
            return banner(request)
        case ("GET", _) where path.hasPrefix("/v1/bundles/"):
            return HTTP.Response(statusCode: 200, headers: ["Content-Type": "application/zip"], body: Self.bundle(bytes: options.sandboxHTML5BundleBytes))
        case ("GET", _) where path.hasPrefix("/v1/events/"):
            return HTTP.Response(statusCode: 204)
        default:
            return HTTP.Response(statusCode: 404)
        }
    }

    private func banner(_ request: HTTP.Request) -> HTTP.Response {
        guard let body = request.body, let wire = try? JSONDecoder().decode(QartveloWireBannerRequest.self, from: body) else {
            return HTTP.Response(statusCode: 400)
        }
        guard !wire.app.id.isEmpty else { return HTTP.Response(statusCode: 401) }
        guard let artwork = select(for: wire) else { return HTTP.Response(statusCode: 204) }
        let creativeID = "qv-sbx-\(artwork.name)"
        let base = "https://\(Self.host)"
        let html5 = options.sandboxHTML5
        let ad = QartveloWireBannerResponse.Ad(
            creativeID: creativeID,
            type: html5 ? "html5" : "image",
            w: artwork.width,
            h: artwork.height,
            density: artwork.density,
            imageURL: html5 ? nil : URL(string: "\(base)/v1/creatives/\(artwork.name).png"),
            bundleURL: html5 ? URL(string: "\(base)/v1/bundles/\(creativeID)") : nil,
            bundleSize: html5 ? options.sandboxHTML5BundleBytes : nil,
            clickURL: URL(string: "https://advertiser.example/qartvelo/\(artwork.name)"),
            impressionURL: URL(string: "\(base)/v1/events/impression?creative=\(creativeID)"),
            clickTrackingURL: URL(string: "\(base)/v1/events/click?creative=\(creativeID)"),
            ttlSeconds: nil
        )
        let response = QartveloWireBannerResponse(id: wire.id, ad: ad, bannerRefreshSeconds: options.bannerRefreshSeconds, nofillReason: nil)
        guard let data = try? JSONEncoder.qartvelo.encode(response) else { return HTTP.Response(statusCode: 500) }
        return .json(data)
    }

    /// The server's creative choice for a request (pixels in, as on the wire).
    func select(for wire: QartveloWireBannerRequest) -> QartveloCreativeArtwork? {
        let width = Double(wire.screenWidth)
        if wire.bannerMode == "inline" {
            guard let maxHeight = wire.bannerMaxHeight else { return nil }
            return QartveloCreativeSelection.inline(width: width, maxHeight: Double(maxHeight), from: creatives)
        }
        if let height = wire.bannerHeight {
            return QartveloCreativeSelection.adaptive(slotWidth: width, slotHeight: Double(height), from: creatives)
        }
        let scale = wire.device.pxratio > 0 && wire.device.pxratio.isFinite ? wire.device.pxratio : 1
        return QartveloCreativeSelection.widestFit(width: width / scale, from: creatives)
    }

    /// A deterministic stand-in for an HTML5 bundle of `bytes` bytes.
    static func bundle(bytes: Int) -> Data {
        Data(repeating: 0x51, count: max(0, bytes))
    }
}

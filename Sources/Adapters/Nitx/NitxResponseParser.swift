import Foundation
import Mediation

/// What one slot answer means.
package enum NitxParsedAnswer: Sendable, Hashable {
    /// An ad: its creative id, the served format, the creative, and (POST mode) its impression id.
    case ad(creativeID: String, format: NitxFormat, creative: NitxCreative, impressionID: String?)
    /// No ad.
    case noFill(AdLoadResult.NoFillReason)
    /// A failure.
    case failure(AdLoadResult.Error)
}

/// Turns a slot answer (GET or POST) into an ad, a no-fill or a failure. Untrusted input
/// (engine rule R16): anything malformed is a failure, never a crash, and every value that
/// reaches the ad is bounded with `NetworkValueBounds`: ids cut to 128 characters, text to 256,
/// native assets' URLs and the click URL dropped past 2048 characters, a creative path past
/// 2048 characters or a `width` / `height` that is not a valid dimension (finite, positive, at
/// most 10,000 pt) make the answer invalid (code 3).
package enum NitxResponseParser {
    /// The no-fill reason of an empty answer (`204` or `"ad": null`).
    package static let noAd = AdLoadResult.NoFillReason(code: "noAd", message: "the slot has no ad")

    /// Parses `response` to a request for `requested`.
    /// - Parameters:
    ///   - response: the HTTP answer.
    ///   - requested: the format asked for.
    ///   - baseURL: the API base URL relative creative paths resolve against.
    package static func parse(_ response: HTTP.Response, requested: NitxFormat, baseURL: URL) -> NitxParsedAnswer {
        switch response.statusCode {
        case 204:
            return .noFill(noAd)
        case 200..<300:
            break
        case 404:
            return .failure(NitxErrorCode.unknownSlot.error("HTTP 404: the slot is unknown", httpStatus: 404))
        default:
            return .failure(NitxErrorCode.server.error("HTTP \(response.statusCode)", httpStatus: response.statusCode))
        }
        if response.body.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) { return .noFill(noAd) }
        let wire: NitxWireSlotResponse
        do {
            wire = try JSONDecoder().decode(NitxWireSlotResponse.self, from: response.body)
        } catch {
            return .failure(NitxErrorCode.invalidResponse.error("the slot answer is not valid JSON of the expected shape"))
        }
        guard let ad = wire.ad else { return .noFill(noAd) }

        var served = requested
        if let text = wire.slot?.format {
            guard let format = NitxFormat(rawValue: text), format.engineFormat == requested.engineFormat else {
                return .failure(NitxErrorCode.formatMismatch.error("the slot serves \(NetworkValueBounds.identifier(text)), not \(requested.rawValue)"))
            }
            served = format
        }

        let path = ad.path.flatMap { $0.isEmpty ? nil : $0 }
        let type = (ad.type ?? inferredType(path)).lowercased()
        switch type {
        case "html", "html5":
            return .failure(NitxErrorCode.htmlCreative.error("HTML creatives are not rendered in v1"))
        case "image", "video":
            break
        default:
            return .failure(NitxErrorCode.htmlCreative.error("creative type \(NetworkValueBounds.identifier(type)) is not supported"))
        }
        guard path != nil || ad.assets != nil else {
            return .failure(NitxErrorCode.invalidResponse.error("the ad has neither a creative path nor assets"))
        }
        if let path, !NetworkValueBounds.fits(path, limit: NetworkValueBounds.maximumURLLength) {
            return .failure(NitxErrorCode.invalidResponse.error("the creative path is longer than \(NetworkValueBounds.maximumURLLength) characters"))
        }
        for (name, value) in [("width", ad.width), ("height", ad.height)] {
            if let value, !NetworkValueBounds.isValidDimension(value) {
                return .failure(NitxErrorCode.invalidResponse.error("the ad's \(name) is not a valid size (finite, positive, at most \(Int(NetworkValueBounds.maximumAdDimension)) pt)"))
            }
        }
        let creative = NitxCreative(
            kind: type == "video" ? .video : .image,
            name: ad.name.map { NetworkValueBounds.text($0) },
            path: path,
            url: path.flatMap { URL(string: $0, relativeTo: baseURL)?.absoluteURL },
            clickURL: ad.clickURL.flatMap(boundedPath).flatMap { URL(string: $0, relativeTo: baseURL)?.absoluteURL },
            assets: assets(of: ad, kind: type, path: path)
        )
        let creativeID = NetworkValueBounds.identifier(ad.id?.value ?? path ?? "unknown")
        return .ad(creativeID: creativeID, format: served, creative: creative, impressionID: wire.impressionID.map { NetworkValueBounds.identifier($0) })
    }

    /// `path` when it is at most `NetworkValueBounds.maximumURLLength` characters, else `nil`.
    private static func boundedPath(_ path: String) -> String? {
        NetworkValueBounds.fits(path, limit: NetworkValueBounds.maximumURLLength) ? path : nil
    }

    /// The native assets: the structured ones when sent, else (a path-only ad) headline = the
    /// ad's name and image (or video) = the creative path (Nitx seed, "Native").
    /// Text is cut to `NetworkValueBounds.text`, asset URLs over 2048 characters are dropped,
    /// the rating is kept within 0 to 5.
    static func assets(of ad: NitxWireAd, kind: String, path: String?) -> NitxNativeAssets {
        func text(_ value: String?) -> String? { value.map { NetworkValueBounds.text($0) } }
        let name = text(ad.name)
        if let wire = ad.assets {
            return NitxNativeAssets(
                headline: text(wire.headline) ?? name, body: text(wire.body), cta: text(wire.cta), advertiser: text(wire.advertiser),
                icon: wire.icon.flatMap(boundedPath),
                image: wire.image.flatMap(boundedPath) ?? (kind == "image" ? path : nil),
                video: wire.video.flatMap(boundedPath) ?? (kind == "video" ? path : nil),
                rating: wire.rating.flatMap { $0.isFinite ? min(5, max(0, $0)) : nil }, price: text(wire.price)
            )
        }
        return NitxNativeAssets(headline: name, image: kind == "image" ? path : nil, video: kind == "video" ? path : nil)
    }

    private static func inferredType(_ path: String?) -> String {
        let lower = (path ?? "").lowercased()
        if lower.hasSuffix(".html") || lower.hasSuffix(".htm") { return "html" }
        if lower.hasSuffix(".mp4") || lower.hasSuffix(".mov") || lower.hasSuffix(".m4v") { return "video" }
        return "image"
    }
}

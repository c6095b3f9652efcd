import Foundation
import Mediation

/// What one slot answer means.
package enum NitxParsedAnswer: Sendable, Hashable {
    /// An ad: its creative id, the served format, the creative, and (POST mode) its impression id.
    case ad(creativeID: String, format: NitxFormat, creative: NitxCreative, impressionID: String?)
    /// No ad.
    case noFill(NoFillReason)
    /// A failure.
    case failure(AdapterError)
}

/// Turns a slot answer (GET or POST) into an ad, a no-fill or a failure. Untrusted input:
/// anything malformed is a failure, never a crash.
package enum NitxResponseParser {
    /// The no-fill reason of an empty answer (`204` or `"ad": null`).
    package static let noAd = NoFillReason(code: "noAd", message: "the slot has no ad")

    /// Parses `response` to a request for `requested`.
    /// - Parameters:
    ///   - response: the HTTP answer.
    ///   - requested: the format asked for.
    ///   - baseURL: the API base URL relative creative paths resolve against.
    package static func parse(_ response: HTTPResponse, requested: NitxFormat, baseURL: URL) -> NitxParsedAnswer {
        switch response.statusCode {
        case 204:
            return .noFill(noAd)
        case 200..<300:
            break
        case 404:
            return .failure(NitxErrorCode.unknownSlot.error("HTTP 404: the slot is unknown"))
        default:
            return .failure(NitxErrorCode.server.error("HTTP \(response.statusCode)"))
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
                return .failure(NitxErrorCode.formatMismatch.error("the slot serves \(text), not \(requested.rawValue)"))
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
            return .failure(NitxErrorCode.htmlCreative.error("creative type \(type) is not supported"))
        }
        guard path != nil || ad.assets != nil else {
            return .failure(NitxErrorCode.invalidResponse.error("the ad has neither a creative path nor assets"))
        }
        let creative = NitxCreative(
            kind: type == "video" ? .video : .image,
            name: ad.name,
            path: path,
            url: path.flatMap { URL(string: $0, relativeTo: baseURL)?.absoluteURL },
            clickURL: ad.clickURL.flatMap { URL(string: $0, relativeTo: baseURL)?.absoluteURL },
            assets: assets(of: ad, kind: type, path: path)
        )
        let creativeID = ad.id?.value ?? path ?? "unknown"
        return .ad(creativeID: creativeID, format: served, creative: creative, impressionID: wire.impressionID)
    }

    /// The native assets: the structured ones when sent, else (a path-only ad) headline = the
    /// ad's name and image (or video) = the creative path (Nitx seed, "Native").
    static func assets(of ad: NitxWireAd, kind: String, path: String?) -> NitxNativeAssets {
        if let wire = ad.assets {
            return NitxNativeAssets(
                headline: wire.headline ?? ad.name, body: wire.body, cta: wire.cta, advertiser: wire.advertiser,
                icon: wire.icon, image: wire.image ?? (kind == "image" ? path : nil), video: wire.video ?? (kind == "video" ? path : nil),
                rating: wire.rating.flatMap { $0.isFinite ? min(5, max(0, $0)) : nil }, price: wire.price
            )
        }
        return NitxNativeAssets(headline: ad.name, image: kind == "image" ? path : nil, video: kind == "video" ? path : nil)
    }

    private static func inferredType(_ path: String?) -> String {
        let lower = (path ?? "").lowercased()
        if lower.hasSuffix(".html") || lower.hasSuffix(".htm") { return "html" }
        if lower.hasSuffix(".mp4") || lower.hasSuffix(".mov") || lower.hasSuffix(".m4v") { return "video" }
        return "image"
    }
}

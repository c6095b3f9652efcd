import Foundation
import Mediation

/// Reads the server's answer to one bid request. Network input is untrusted: anything that
/// breaks the protocol (docs/networks/elo.md) is an invalid answer, never a crash.
enum EloResponseParser {
    /// What the answer means.
    enum Answer {
        /// A valid bid.
        case bid(EloAd, eCPM: Double, response: EloWireBidResponse)
        /// No bids: HTTP 204, an empty 2xx body, an `nbr`, or no bid in `seatbid`.
        case noBids
        /// A non-2xx status.
        case serverError(status: Int)
        /// The body broke the protocol.
        case invalid(String)
    }

    /// What the parser needs to know about the request.
    struct Context {
        var requestID: String
        var network: String
        var engineFormat: AdFormat
        var maxWidth: Int?
        var maxHeight: Int?
        var screenWidth: Double
        var tracker: EloTracker?
    }

    /// Interprets `response`. Every value that reaches the ad is bounded with
    /// `NetworkValueBounds` (engine rule R16): the price, the size (each side finite, positive
    /// and at most 10,000 pt; the height within the slot, the width cut to the slot's), the TTL
    /// (`exp`, cut to one day), the ids (cut to 128 characters), the text (cut to 256), the URLs
    /// (http(s), at most 2048 characters, else dropped) and the tracking lists (at most 64 URLs
    /// each).
    static func parse(_ response: HTTP.Response, context: Context) -> Answer {
        guard (200..<300).contains(response.statusCode) else { return .serverError(status: response.statusCode) }
        if response.statusCode == 204 || response.body.isEmpty { return .noBids }
        let decoded: EloWireBidResponse
        do {
            decoded = try JSONDecoder().decode(EloWireBidResponse.self, from: response.body)
        } catch {
            return .invalid("malformed bid response JSON")
        }
        guard decoded.id == context.requestID else { return .invalid("response id does not match the request id") }
        guard let bid = (decoded.seatbid ?? []).lazy.flatMap(\.bid).first else { return .noBids }
        if let currency = decoded.cur, currency.uppercased() != "USD" {
            return .invalid("currency \(NetworkValueBounds.identifier(currency)) is not USD")
        }
        guard NetworkValueBounds.isValidPrice(bid.price) else {
            return .invalid("price must be a finite number from 0 to \(Int(NetworkValueBounds.maximumPrice))")
        }
        guard let adID = decoded.bidid, !adID.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .invalid("missing bidid (ad opportunity id)")
        }
        guard !bid.crid.trimmingCharacters(in: .whitespaces).isEmpty else { return .invalid("missing creative id") }
        let creative = bid.ext.elo
        guard !creative.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return .invalid("blank title") }
        guard let format = EloAdFormat(rawValue: creative.format) else {
            return .invalid("unknown format \(NetworkValueBounds.identifier(creative.format))")
        }
        // A known format outside the slot's range (a strip in an unbounded slot, a card under
        // 192 pt) is not a broken answer: the ad says so (`EloAd.suits`), and the auction
        // rejects it as a size mismatch (203) and releases it (engine rule R8).
        for dimension in [bid.w, bid.h] {
            if let value = dimension, !NetworkValueBounds.isValidDimension(value) {
                return .invalid("ad size must be positive and at most \(Int(NetworkValueBounds.maximumAdDimension)) pt")
            }
        }
        if let height = bid.h, let maxHeight = context.maxHeight, height > Double(maxHeight) {
            return .invalid("ad height \(height) pt is taller than the slot's \(maxHeight) pt")
        }
        // Cards and strips are laid out at any width (as `EloAd.refit(to:)` does): a width
        // beyond the slot's (the screen's when the slot is unbounded) is cut to it.
        let slotWidth = context.maxWidth.map(Double.init) ?? context.screenWidth
        let defaultHeight = format == .card ? EloAdFormat.defaultCardHeight : EloAdFormat.defaultStripHeight
        let size = AdSize(
            width: bid.w.map { slotWidth > 0 ? min($0, slotWidth) : $0 } ?? slotWidth,
            height: bid.h ?? defaultHeight
        )
        let tracking = creative.tracking ?? EloWireTracking()
        func text(_ value: String?) -> String? { value.map { NetworkValueBounds.text($0) } }
        func url(_ value: String?) -> String? { value.flatMap { NetworkValueBounds.webURL($0) != nil ? $0 : nil } }
        let ad = EloAd(
            id: NetworkValueBounds.identifier(adID),
            creativeID: NetworkValueBounds.identifier(bid.crid),
            network: context.network,
            format: context.engineFormat,
            eloFormat: format,
            size: size,
            timeToLive: bid.exp.flatMap { $0 > 0 ? NetworkValueBounds.duration(wholeSeconds: $0) : nil },
            title: NetworkValueBounds.text(creative.title),
            description: text(creative.description),
            imageURL: url(creative.image_url),
            ctaText: text(creative.cta_text),
            clickURL: url(creative.click_url),
            ctaEnabled: creative.cta_enabled,
            tracking: EloWireTracking(
                render: tracking.render.map { NetworkValueBounds.prefix($0) },
                impression: tracking.impression.map { NetworkValueBounds.prefix($0) },
                click: tracking.click.map { NetworkValueBounds.prefix($0) }
            ),
            tracker: context.tracker,
            requestID: decoded.id,
            bidID: bid.id
        )
        return .bid(ad, eCPM: bid.price, response: decoded)
    }
}

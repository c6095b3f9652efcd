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

    /// Interprets `response`.
    static func parse(_ response: HTTPResponse, context: Context) -> Answer {
        guard (200..<300).contains(response.statusCode) else { return .serverError(status: response.statusCode) }
        if response.statusCode == 204 || response.body.isEmpty { return .noBids }
        let decoded: EloWireBidResponse
        do {
            decoded = try JSONDecoder().decode(EloWireBidResponse.self, from: response.body)
        } catch {
            return .invalid("malformed bid response JSON")
        }
        guard decoded.id == context.requestID else { return .invalid("response id does not match the request id") }
        let bids = (decoded.seatbid ?? []).flatMap(\.bid)
        guard let bid = bids.first else { return .noBids }
        if let currency = decoded.cur, currency.uppercased() != "USD" {
            return .invalid("currency \(currency) is not USD")
        }
        guard bid.price.isFinite, bid.price >= 0 else { return .invalid("price must be a finite number >= 0") }
        guard let adID = decoded.bidid, !adID.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .invalid("missing bidid (ad opportunity id)")
        }
        guard !bid.crid.trimmingCharacters(in: .whitespaces).isEmpty else { return .invalid("missing creative id") }
        let creative = bid.ext.elo
        guard !creative.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return .invalid("blank title") }
        guard let format = EloAdFormat(rawValue: creative.format) else { return .invalid("unknown format \(creative.format)") }
        guard format.fits(maxHeight: context.maxHeight) else {
            return .invalid("format \(format.rawValue) does not fit a slot of \(context.maxHeight ?? 0) pt")
        }
        for dimension in [bid.w, bid.h] {
            if let value = dimension, !(value.isFinite && value > 0) { return .invalid("ad size must be positive") }
        }
        let defaultHeight = format == .card ? EloAdFormat.defaultCardHeight : EloAdFormat.defaultStripHeight
        let size = AdSize(
            width: bid.w ?? context.maxWidth.map(Double.init) ?? context.screenWidth,
            height: bid.h ?? defaultHeight
        )
        let ad = EloAd(
            id: adID,
            creativeID: bid.crid,
            network: context.network,
            format: context.engineFormat,
            eloFormat: format,
            size: size,
            timeToLive: bid.exp.flatMap { $0 > 0 ? .seconds($0) : nil },
            title: creative.title,
            description: creative.description,
            imageURL: creative.image_url,
            ctaText: creative.cta_text,
            clickURL: creative.click_url,
            ctaEnabled: creative.cta_enabled,
            tracking: creative.tracking ?? EloWireTracking(),
            tracker: context.tracker
        )
        return .bid(ad, eCPM: bid.price, response: decoded)
    }
}

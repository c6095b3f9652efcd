import Foundation
import Mediation

/// Elo's simulated ad server for the sandbox transport. It speaks the real wire protocol
/// (docs/networks/elo.md):
/// - `POST /v1/bid`: a malformed body or no impression answers 400; a slot under 72 pt (no
///   format fits) answers 204; otherwise, with probability ``noBidRate``, 204 (no bids); else a
///   bid for the format the slot decides (card for >= 192 pt or unbounded, strip for 72 to
///   191 pt) at a seeded price in ``priceRange`` (USD CPM, whole cents). A price under the
///   impression's `bidfloor` answers 204.
/// - `GET /t/...` (tracking) and `POST /v1/events` (analytics) answer 204.
/// - Anything else answers 404.
/// The same seed and the same sequence of requests give the same answers.
package struct EloSandboxServer: NetworkConnection.SandboxServer {
    /// The sandbox host name.
    package static let host = "sandbox.elo.test"
    /// The sandbox base URL, `https://sandbox.elo.test`.
    package static let baseURL: URL = URL(string: "https://\(host)") ?? URL(fileURLWithPath: "/")

    /// The share of bid requests answered with no bids, 0 ... 1.
    package let noBidRate: Double
    /// The range prices are drawn from, USD CPM.
    package let priceRange: ClosedRange<Double>

    private let state: Locked<SandboxState>

    private struct SandboxState {
        var random: SeededRandom
        var served: Int = 0
    }

    private static let creatives: [(id: String, title: String, description: String, cta: String?)] = [
        ("elo-cr-travel", "Tbilisi weekend fares", "Round trips from 89 USD this month.", "Book"),
        ("elo-cr-course", "Learn Swift concurrency", "A six-week evening course with a mentor.", "Learn more"),
        ("elo-cr-coffee", "Single-origin coffee club", "A new roast at your door every two weeks.", nil),
        ("elo-cr-notes", "Notes that link themselves", "Capture ideas from chats into one searchable place.", "Install"),
    ]

    /// Creates a sandbox server.
    /// - Parameters:
    ///   - seed: the seed of the prices, no-bids and creatives.
    ///   - noBidRate: the share of no-bid answers, clamped to 0 ... 1 (default 0.1).
    ///   - priceRange: prices in USD CPM (default 0.50 ... 4.00).
    package init(seed: UInt64, noBidRate: Double = 0.1, priceRange: ClosedRange<Double> = 0.5...4.0) {
        self.noBidRate = noBidRate.isFinite ? min(max(noBidRate, 0), 1) : 0
        self.priceRange = priceRange
        self.state = Locked(SandboxState(random: SeededRandom(seed: seed)))
    }

    /// Answers one request.
    package func respond(to request: HTTP.Request) async -> HTTP.Response {
        let path = request.url.path
        if request.method == "GET", path.hasPrefix("/t/") { return HTTP.Response(statusCode: 204) }
        if request.method == "POST", path == "/v1/events" { return HTTP.Response(statusCode: 204) }
        guard request.method == "POST", path == "/v1/bid" else { return HTTP.Response(statusCode: 404) }
        guard let body = request.body,
              let bidRequest = try? JSONDecoder().decode(EloWireBidRequest.self, from: body),
              let imp = bidRequest.imp.first
        else { return HTTP.Response(statusCode: 400) }
        guard let format = EloAdFormat.choose(forMaxHeight: imp.native.h) else { return HTTP.Response(statusCode: 204) }

        let draw = state.withLock { state -> (noBid: Bool, price: Double, creative: Int, serial: Int) in
            let noBid = state.random.nextUnit() < noBidRate
            let unit = state.random.nextUnit()
            let creative = Int(state.random.next() % UInt64(Self.creatives.count))
            state.served += 1
            let raw = priceRange.lowerBound + unit * (priceRange.upperBound - priceRange.lowerBound)
            return (noBid, (raw * 100).rounded() / 100, creative, state.served)
        }
        if draw.noBid { return HTTP.Response(statusCode: 204) }
        if let floor = imp.bidfloor, draw.price < floor { return HTTP.Response(statusCode: 204) }

        let creative = Self.creatives[draw.creative]
        let adID = "elo-sb-\(draw.serial)"
        let height = format == .card ? EloAdFormat.defaultCardHeight : EloAdFormat.defaultStripHeight
        let width = Double(min(imp.native.w ?? 390, 390))
        let tracking = EloWireTracking(
            render: ["\(Self.baseURL.absoluteString)/t/render?ad=\(adID)"],
            impression: ["\(Self.baseURL.absoluteString)/t/impression?ad=\(adID)"],
            click: ["\(Self.baseURL.absoluteString)/t/click?ad=\(adID)"]
        )
        let response = EloWireBidResponse(
            id: bidRequest.id,
            bidid: adID,
            cur: "USD",
            seatbid: [EloWireSeatBid(bid: [EloWireBid(
                id: "bid-\(draw.serial)",
                impid: imp.id,
                price: draw.price,
                crid: creative.id,
                w: width,
                h: height,
                exp: 3600,
                ext: EloWireBidExt(elo: EloWireCreative(
                    format: format.rawValue,
                    title: creative.title,
                    description: creative.description,
                    image_url: "\(Self.baseURL.absoluteString)/img/\(creative.id).png",
                    cta_text: creative.cta,
                    click_url: "https://example.com/\(creative.id)",
                    cta_enabled: creative.cta != nil,
                    tracking: tracking
                ))
            )], seat: "elo")],
            nbr: nil
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(response) else { return HTTP.Response(statusCode: 500) }
        return .json(data)
    }
}

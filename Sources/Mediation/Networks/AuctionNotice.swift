/// What an auction decided for one source's request, as its adapter hears it through
/// ``AdNetworkAdapter/auctionDidEnd(_:)``: the win or loss notice of OpenRTB (`nurl` / `lurl`
/// with `${AUCTION_LOSS}`), plus the price the source had to beat.
///
/// A notice tells a network about its own request only: its line item, ad unit, outcome and
/// value, and one figure about the others, the price to beat (the "minimum bid to win" that
/// exchanges give a loser). It never carries another source's line item, price, creative or bid
/// id, nor chat content or user data. The host reads the whole auction through the engine's
/// events and traces.
public struct AuctionNotice: Sendable, Hashable, Codable {
    /// The auction's id (OpenRTB `${AUCTION_ID}`).
    public let auctionID: String
    /// The placement id, e.g. `"home_banner"`.
    public let placementID: String
    /// The line item whose request this was.
    public let lineItemID: String
    /// The ad unit id the request carried.
    public let adUnitID: String
    /// What became of the request: `won`, `lost` (with the OpenRTB loss reason), `noFill`,
    /// `error`, `timeout` or `cancelled` (with the value it could not beat); a network reads it
    /// through ``status``, ``won`` and ``lossReason``.
    package let outcome: SourceOutcome
    /// This source's own value in USD CPM when it brought an ad with a valid price; `nil`
    /// otherwise.
    public let eCPM: Double?
    /// The price this source had to beat, in USD CPM: for a loser the winning value (`nil` when
    /// the auction did not fill); for the winner the highest other valid value (`nil` when no
    /// other source brought a priced ad).
    public let priceToBeat: Double?
    /// The id of the ad this source brought (``LoadedAd/id``), if any. A loser's ad has been
    /// released already; the winner's belongs to its placement.
    public let adID: String?

    /// Whether this source's ad won the auction (OpenRTB's win notice, `nurl`).
    public var won: Bool { outcome == .won }

    /// What became of the request, as the trace writes it: `won`, `lost`, `no_fill`, `error`,
    /// `timeout` or `cancelled` (an auction decided before its answer came).
    public var status: String { outcome.status }

    /// The OpenRTB loss reason (`${AUCTION_LOSS}`) of a request that lost: 102 lost to a higher
    /// bid, 100 below the floor, 2 expired, 3 invalid response, 203 size not allowed, 204
    /// incorrect format; `nil` unless ``status`` is `lost`.
    public var lossReason: Int? {
        if case .lost(let reason) = outcome { return reason.rawValue }
        return nil
    }

    /// Creates a notice from its parts (the engine builds them; tests and test doubles may too).
    /// - Parameters:
    ///   - auctionID: the auction's id.
    ///   - placementID: the placement id.
    ///   - lineItemID: the source's own line item id.
    ///   - adUnitID: the ad unit id its request carried.
    ///   - outcome: what became of its request.
    ///   - eCPM: its own value in USD CPM, if it brought a priced ad.
    ///   - priceToBeat: the price it had to beat in USD CPM, if any.
    ///   - adID: the id of the ad it brought, if any.
    package init(
        auctionID: String,
        placementID: String,
        lineItemID: String,
        adUnitID: String,
        outcome: SourceOutcome,
        eCPM: Double?,
        priceToBeat: Double?,
        adID: String?
    ) {
        self.auctionID = auctionID
        self.placementID = placementID
        self.lineItemID = lineItemID
        self.adUnitID = adUnitID
        self.outcome = outcome
        self.eCPM = eCPM
        self.priceToBeat = priceToBeat
        self.adID = adID
    }
}

extension AuctionNotice {
    /// Hands the notice of every asked source of `trace` that `receives` to `deliver`, in
    /// config order, without building the trace's lines or any array.
    /// - Parameters:
    ///   - trace: the decided auction's trace.
    ///   - sourceCount: the number of sources the auction has (config order).
    ///   - receives: whether source `index`'s adapter hears notices.
    ///   - adUnitID: the ad unit id source `index`'s request carried.
    ///   - deliver: called with each asked source's index and notice.
    package static func forEachNotice(of trace: AuctionTrace, sourceCount: Int, to receives: (Int) -> Bool, adUnitID: (Int) -> String, _ deliver: (Int, AuctionNotice) -> Void) {
        let count = min(trace.sourceCount, sourceCount)
        let winningECPM = trace.winningECPM
        if let deferred = trace.deferredLines {
            // An auction's fresh trace: straight from its record.
            deferred.forEachNotice(auctionID: trace.auctionID, placementID: trace.placementID, count: count, winningECPM: winningECPM, receives: receives, adUnitID: adUnitID, deliver)
            return
        }
        for index in 0..<count where receives(index) {
            // A loser had to beat the winning value; the winner, the highest other valid value.
            let notice = trace.notice(at: index, adUnitID: adUnitID(index)) { won in
                won ? highestValue(in: trace, count: count, excluding: index) : winningECPM
            }
            if let notice { deliver(index, notice) }
        }
    }

    /// The highest valid value among the first `count` lines of `trace` but line `excluded`'s.
    private static func highestValue(in trace: AuctionTrace, count: Int, excluding excluded: Int) -> Double? {
        var highest: Double?
        for index in 0..<count where index != excluded {
            if let value = trace.sourceValue(at: index), value > (highest ?? -Double.infinity) { highest = value }
        }
        return highest
    }
}

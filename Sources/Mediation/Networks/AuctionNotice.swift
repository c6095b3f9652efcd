/// What an auction decided for one source's request, as its adapter hears it through
/// ``AdNetworkAdapter/auctionDidEnd(_:)``: the win or loss notice of OpenRTB (`nurl` / `lurl`
/// with `${AUCTION_LOSS}`), plus the value the source had to beat, which mediated networks are
/// rarely told.
///
/// Never carries chat content or user data.
public struct AuctionNotice: Sendable, Hashable {
    /// The auction's id (OpenRTB `${AUCTION_ID}`).
    public var auctionID: String
    /// The placement id, e.g. `"home_banner"`.
    public var placementID: String
    /// The line item whose request this was.
    public var lineItemID: String
    /// The ad unit id the request carried.
    public var adUnitID: String
    /// What became of the request: `won`, `lost` (with the OpenRTB loss reason), `noFill`,
    /// `error`, `timeout` or `cancelled`.
    public var outcome: SourceOutcome
    /// This source's value in USD CPM when it brought an ad with a valid price; `nil` otherwise.
    public var eCPM: Double?
    /// The winning value in USD CPM, or `nil` when the auction did not fill. For a loser this
    /// is the price it had to beat (the "minimum bid to win", less one micro).
    public var winningECPM: Double?
    /// The id of the ad this source brought (``LoadedAd/id``), if any. A loser's ad has been
    /// released already; the winner's belongs to its placement.
    public var adID: String?

    /// Creates a notice.
    /// - Parameters:
    ///   - auctionID: the auction's id.
    ///   - placementID: the placement id.
    ///   - lineItemID: the line item id.
    ///   - adUnitID: the ad unit id the request carried.
    ///   - outcome: what became of the request.
    ///   - eCPM: this source's value in USD CPM, if any.
    ///   - winningECPM: the winning value in USD CPM, if any.
    ///   - adID: the id of the ad this source brought, if any.
    public init(
        auctionID: String,
        placementID: String,
        lineItemID: String,
        adUnitID: String,
        outcome: SourceOutcome,
        eCPM: Double? = nil,
        winningECPM: Double? = nil,
        adID: String? = nil
    ) {
        self.auctionID = auctionID
        self.placementID = placementID
        self.lineItemID = lineItemID
        self.adUnitID = adUnitID
        self.outcome = outcome
        self.eCPM = eCPM
        self.winningECPM = winningECPM
        self.adID = adID
    }
}

/// What an auction decided for one source's request, as its adapter hears it through
/// ``AdNetworkAdapter/auctionDidEnd(_:)``: the win or loss notice of OpenRTB (`nurl` / `lurl`
/// with `${AUCTION_LOSS}`), plus the value the source had to beat, which mediated networks are
/// rarely told.
///
/// A notice is a view of the auction's trace (the trace, whose fields sit in one shared box, and
/// the source's position), so telling every source costs no copying. Never carries chat content
/// or user data.
public struct AuctionNotice: Sendable, Hashable {
    private let record: AuctionTrace
    private let index: Int
    /// The ad unit id the request carried.
    public let adUnitID: String

    /// Creates the notice of the source at `index` of `trace`.
    /// - Parameters:
    ///   - trace: the auction's trace.
    ///   - index: the source's position in `trace.sources` (config order); must be in range.
    ///   - adUnitID: the ad unit id the request carried.
    public init(trace: AuctionTrace, index: Int, adUnitID: String) {
        record = trace
        self.index = index
        self.adUnitID = adUnitID
    }

    private var line: SourceTrace? {
        record.sources.indices.contains(index) ? record.sources[index] : nil
    }

    /// The auction's id (OpenRTB `${AUCTION_ID}`).
    public var auctionID: String { record.auctionID }
    /// The placement id, e.g. `"home_banner"`.
    public var placementID: String { record.placementID }
    /// The line item whose request this was.
    public var lineItemID: String { line?.lineItemID ?? "" }
    /// What became of the request: `won`, `lost` (with the OpenRTB loss reason), `noFill`,
    /// `error`, `timeout` or `cancelled` (with the value it could not beat).
    public var outcome: SourceOutcome {
        record.sourceCount > index ? record.sourceSummary(at: index).outcome : .cancelled(couldNotBeat: record.winningECPM)
    }
    /// This source's value in USD CPM when it brought an ad with a valid price; `nil` otherwise.
    public var eCPM: Double? { line?.eCPM }
    /// The winning value in USD CPM, or `nil` when the auction did not fill. For a loser this
    /// is the price it had to beat (the "minimum bid to win", less one micro).
    public var winningECPM: Double? { record.winningECPM }
    /// The id of the ad this source brought (``LoadedAd/id``), if any. A loser's ad has been
    /// released already; the winner's belongs to its placement.
    public var adID: String? { line?.adID }
    /// The whole auction's trace, for an adapter that wants more (e.g. every source's latency).
    public var trace: AuctionTrace { record }

    /// Notices are equal when they are about the same source of equal traces.
    public static func == (lhs: AuctionNotice, rhs: AuctionNotice) -> Bool {
        lhs.index == rhs.index && lhs.adUnitID == rhs.adUnitID && lhs.record == rhs.record
    }

    /// Hashes the source's position, ad unit and auction id.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(index)
        hasher.combine(adUnitID)
        hasher.combine(record.auctionID)
    }
}

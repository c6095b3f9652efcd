/// What an auction decided for one source's request, as its adapter hears it through
/// ``AdNetworkAdapter/auctionDidEnd(_:)``: the win or loss notice of OpenRTB (`nurl` / `lurl`
/// with `${AUCTION_LOSS}`), plus the value the source had to beat, which mediated networks are
/// rarely told.
///
/// A notice is a view of the auction's trace (two words: the shared trace and the source's
/// line), so telling every source costs no copying. Never carries chat content or user data.
public struct AuctionNotice: Sendable, Hashable {
    private let record: AuctionRecord
    private let index: Int
    /// The ad unit id the request carried.
    public let adUnitID: String

    /// Creates the notice of the source at `index` of `trace`.
    /// - Parameters:
    ///   - trace: the auction's trace.
    ///   - index: the source's position in `trace.sources` (config order); must be in range.
    ///   - adUnitID: the ad unit id the request carried.
    public init(trace: AuctionTrace, index: Int, adUnitID: String) {
        self.init(record: AuctionRecord(trace: trace), index: index, adUnitID: adUnitID)
    }

    init(record: AuctionRecord, index: Int, adUnitID: String) {
        self.record = record
        self.index = index
        self.adUnitID = adUnitID
    }

    private var line: SourceTrace? {
        record.trace.sources.indices.contains(index) ? record.trace.sources[index] : nil
    }

    /// The auction's id (OpenRTB `${AUCTION_ID}`).
    public var auctionID: String { record.trace.auctionID }
    /// The placement id, e.g. `"home_banner"`.
    public var placementID: String { record.trace.placementID }
    /// The line item whose request this was.
    public var lineItemID: String { line?.lineItemID ?? "" }
    /// What became of the request: `won`, `lost` (with the OpenRTB loss reason), `noFill`,
    /// `error`, `timeout` or `cancelled` (with the value it could not beat).
    public var outcome: SourceOutcome {
        record.trace.sourceCount > index ? record.trace.sourceSummary(at: index).outcome : .cancelled(couldNotBeat: record.trace.winningECPM)
    }
    /// This source's value in USD CPM when it brought an ad with a valid price; `nil` otherwise.
    public var eCPM: Double? { line?.eCPM }
    /// The winning value in USD CPM, or `nil` when the auction did not fill. For a loser this
    /// is the price it had to beat (the "minimum bid to win", less one micro).
    public var winningECPM: Double? { record.trace.winningECPM }
    /// The id of the ad this source brought (``LoadedAd/id``), if any. A loser's ad has been
    /// released already; the winner's belongs to its placement.
    public var adID: String? { line?.adID }
    /// The whole auction's trace, for an adapter that wants more (e.g. every source's latency).
    public var trace: AuctionTrace { record.trace }

    /// Notices are equal when they are about the same source of equal traces.
    public static func == (lhs: AuctionNotice, rhs: AuctionNotice) -> Bool {
        lhs.index == rhs.index && lhs.adUnitID == rhs.adUnitID && lhs.record.trace == rhs.record.trace
    }

    /// Hashes the source's position, ad unit and auction id.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(index)
        hasher.combine(adUnitID)
        hasher.combine(record.trace.auctionID)
    }
}

/// An auction's trace, shared by the notices of all its sources.
final class AuctionRecord: Sendable {
    let trace: AuctionTrace

    init(trace: AuctionTrace) {
        self.trace = trace
    }
}

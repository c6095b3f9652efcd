/// Which auction source the current task works for: set by the auction around each adapter's
/// ``AdNetworkAdapter/loadAd(for:)`` call (a task-local value, inherited by the tasks the adapter
/// starts), read by ``RecordingTransport`` to attribute each HTTP exchange to its line item.
package struct SourceAttribution: Hashable, Sendable {
    /// The auction id.
    package var auctionID: String
    /// The placement id.
    package var placementID: String
    /// The line item id.
    package var lineItemID: String

    /// Creates an attribution.
    package init(auctionID: String, placementID: String, lineItemID: String) {
        self.auctionID = auctionID
        self.placementID = placementID
        self.lineItemID = lineItemID
    }

    /// The source the current task works for, or `nil` outside an auction's `loadAd` (e.g. an
    /// impression ping or an event batch sent later).
    @TaskLocal package static var current: SourceAttribution?
}

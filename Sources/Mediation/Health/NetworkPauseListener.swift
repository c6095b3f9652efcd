/// A running auction that hears when one of its networks (or line items) is paused while it
/// runs (engine rule R24), so that it stops waiting for their sources at once: the driver
/// (``AuctionRun``) feeds the pause to its state machine as an input.
protocol NetworkPauseListener: AnyObject, Sendable {
    /// Sources `indices` of the auction (by source index) belong to a network or a line item
    /// that was just paused until `retryAt`. Called outside the monitor's lock.
    func networkPaused(sourcesAt indices: [Int], until retryAt: MediationInstant)
}

extension AuctionRun: NetworkPauseListener {}

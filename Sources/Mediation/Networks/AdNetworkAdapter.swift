/// The seam every ad network implements: load one ad for one request, and hear what the
/// engine decided and what the app is doing.
///
/// One adapter is built per configured network by its ``NetworkAdapterFactory``; the engine
/// shares it between every placement and auction that uses the network, so it must be safe to
/// call concurrently.
///
/// Contract for implementers:
/// - ``loadAd(for:)`` answers exactly once per call with one ``AdLoadResult``: a bid, a fill, a
///   no-fill with the network's reason, or a failure. It never throws into the engine.
/// - Honour cancellation promptly: when the calling task is cancelled (the auction was decided,
///   or the source's limit passed) stop work and release anything loaded. The engine never
///   waits for an adapter past the source's limit, so an adapter that ignores cancellation only
///   wastes its own work.
/// - Never block the calling thread; do I/O through an async seam such as ``HTTP/Transport``,
///   wait only on the environment's ``MediationClock``, and start any task of your own with
///   ``MediationClock/startTask(_:)`` so that virtual time knows about it.
/// - Treat everything from the network as untrusted: a malformed answer is an
///   ``AdLoadResult/Error/Kind/invalidResponse`` failure, never a crash.
/// - Never put chat content or user data into errors, reasons or log lines.
/// - The hooks (``auctionDidEnd(_:)``, the life-cycle calls) are optional: each has a default
///   that does nothing. They must return promptly.
public protocol AdNetworkAdapter: Sendable {
    /// Loads one ad.
    /// - Parameter request: the request, with this line item's ad unit id and the instant its
    ///   answer must arrive by (``AdRequest/deadline``, the source's effective limit).
    /// - Returns: the network's one answer.
    func loadAd(for request: AdRequest) async -> AdLoadResult

    /// The auction this adapter took part in was decided: what became of its request (won; lost
    /// with the OpenRTB loss reason and the value it had to beat; or no fill, error, timeout,
    /// cancelled). Called once per request the auction made, after the losers were released
    /// and before the winner reaches its placement. Must not block. Default: does nothing.
    /// - Parameter notice: the result for this adapter's request.
    func auctionDidEnd(_ notice: AuctionNotice)

    /// Whether this adapter hears its notices (``auctionDidEnd(_:)``). Read once, when the
    /// engine builds the configuration's auctions; when `false`, auctions neither build nor
    /// send this adapter's notices. Default: `true`. An adapter whose ``auctionDidEnd(_:)``
    /// does nothing (as Elo's, Nitx's and Qartvelo's) returns `false` and saves each auction
    /// building a notice per request.
    var receivesAuctionNotices: Bool { get }

    /// The app went to the background (engine rule R18): flush queued events now, because the
    /// process may be suspended. The engine awaits this before its own
    /// ``MediationEngine/setForeground(_:)`` returns. Default: does nothing.
    func didEnterBackground() async

    /// The app is returning to the foreground (R18). Default: does nothing.
    func willEnterForeground() async

    /// The app is about to resign active (R18): an incoming call, the app switcher, or the way
    /// to termination (an app is always made inactive before it is terminated). Flush queued
    /// events now, as on background. The engine awaits this before its own
    /// ``MediationEngine/willResignActive()`` returns. Default: does nothing.
    func willResignActive() async

    /// The engine is shutting down (R18): stop timers, drop queued events that may no longer be
    /// sent, forget user identifiers, and send nothing afterwards, not even for ads handed out
    /// earlier. Called once. Default: does nothing.
    func shutdown() async

    /// The host replaced its request signals (``MediationEngine/updateRequestTemplate(_:)``),
    /// e.g. after the user answered the app's own consent prompt. Called synchronously for every
    /// adapter before `updateRequestTemplate` returns (also after ``shutdown()``), so that a
    /// withdrawal (`template.privacy.userConsent == false`) is honoured at once: the adapter
    /// deletes from its storage what the user withdrew (Nitx: its consent record and profile;
    /// Elo: the stored user identifier and user data), so that nothing of it can leave the
    /// device afterwards, after a relaunch included. Each request carries the current signals
    /// too (``AdRequest/privacy``), so an adapter applies the same rule there. It may write its
    /// own storage; it must not wait on the network, must not call back into the engine, and
    /// must return promptly. Default: does nothing.
    /// - Parameter template: the new signals.
    func requestTemplateDidChange(_ template: RequestTemplate)

    /// The host asked to forget the user (``MediationEngine/forgetUser()``, e.g. an erasure
    /// request): erase every identifier and stored datum of the user the network keeps (user
    /// ids, profiles, consent records, anonymous install or visitor ids, replaced by new ones),
    /// tell the network when its document has a forget call, and from then on send no old
    /// identifier, not even in the tracking of ads handed out earlier. Called once per request
    /// of the host, also after ``shutdown()`` (then it must send nothing). Default: does nothing,
    /// right for an adapter that stores and sends no identifier.
    func forgetUser() async

    /// The adapter's status for diagnostics (`mediate networks`): version, request mode,
    /// initialisation and the privacy it will apply to requests built from `template`. Must not
    /// send anything. Default: an empty ``NetworkStatus``.
    /// - Parameter template: the host's current request signals (privacy, device).
    func status(for template: RequestTemplate) async -> NetworkStatus
}

extension AdNetworkAdapter {
    /// Does nothing.
    public func auctionDidEnd(_ notice: AuctionNotice) {}
    /// `true`: the adapter hears its notices.
    public var receivesAuctionNotices: Bool { true }
    /// Does nothing.
    public func didEnterBackground() async {}
    /// Does nothing.
    public func willEnterForeground() async {}
    /// Does nothing.
    public func willResignActive() async {}
    /// Does nothing.
    public func shutdown() async {}
    /// Does nothing.
    public func requestTemplateDidChange(_ template: RequestTemplate) {}
    /// Does nothing.
    public func forgetUser() async {}
}

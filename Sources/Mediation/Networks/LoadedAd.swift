/// An ad a network loaded and holds ready to show.
///
/// Contract for implementers:
/// - ``id`` is unique per showing: two loads of the same creative give two ids.
/// - ``releaseResources()`` is idempotent and never blocks; the engine calls it exactly once
///   on every ad that does not become (or stops being) a placement's unshown ad, and never on
///   an ad that was shown (engine rules R7, R12).
/// - The hooks (``recordImpression()``, ``recordClick()`` …) are the engine telling the network
///   what happened, once each; adapters send their tracking from them. They must not block.
/// - An ad whose impression cannot count yet (an HTML5 ad still loading) or may not count now (a
///   frequency cap) says so in ``impressionReadiness`` (engine rule R12a); an ad that learns
///   something later (it became ready, its creative failed) tells the ``AdEventSink`` the engine
///   hands it in ``attach(_:)`` when it becomes a placement's current ad. Both are optional.
public protocol LoadedAd: AnyObject, Sendable {
    /// Unique per showing.
    var id: String { get }
    /// The network's creative id (the same for every showing of one creative).
    var creativeID: String { get }
    /// The network's id of the request this ad answered, when its answer carries one (the
    /// trace's `request_id`, bounded by the engine, R16). Default `nil`.
    var requestID: String? { get }
    /// The network's id of the bid, when its answer carries one (the trace's `bid_id`,
    /// bounded by the engine). Default `nil`.
    var bidID: String? { get }
    /// The network's id as the config names it, e.g. `"elo"`.
    var network: String { get }
    /// The ad's format.
    var format: AdFormat { get }
    /// The ad's size in points.
    var size: AdSize { get }
    /// How long after loading the ad may be shown (the network's TTL); `nil` uses the
    /// format's default (R14). The engine uses at most the format's default (R16).
    var timeToLive: Duration? { get }
    /// A refresh interval in whole seconds that the network's server asked for (Qartvelo's
    /// `banner_refresh_seconds`); `nil` keeps the placement's own. The placement clamps it to
    /// 30 s ... 1 day, with a warning (R13, R16).
    var serverRefreshSeconds: Int? { get }

    /// Frees what the ad holds (creative data, web views, cached files). Idempotent.
    func releaseResources()

    /// The host rendered the ad in a view (before it is necessarily visible).
    func recordRender()
    /// The ad counted its impression (rendered in a visible view), once.
    func recordImpression()
    /// The user clicked the ad (only after its impression).
    func recordClick()
    /// The slot changed size after the ad loaded.
    /// - Parameter slot: the new slot bounds in points.
    /// - Returns: the ad's refitted size when it can refit in place without a new request,
    ///   or `nil` when it cannot (the next refresh asks for the new size).
    func refit(to slot: SlotSize) -> AdSize?

    /// Whether the ad is meant for a slot of `slot`'s bounds, beyond its size fitting them
    /// (engine rule R8): a network whose formats each take a range of slot heights says `false`
    /// for a slot outside its format's range (an Elo strip takes slots 72 to 191 pt high, its
    /// card 192 pt or more or unbounded), and the auction rejects the ad like one whose size
    /// does not fit: loss reason 203, released. It only ever rejects: an ad whose size does not
    /// fit is rejected whatever this says. Must be cheap and must not block. Default: `true`.
    /// - Parameter slot: the slot of the auction, in points (the placement's, narrowed by a
    ///   resize, the width bounded by the screen's).
    /// - Returns: whether the ad may fill that slot.
    func suits(_ slot: SlotSize) -> Bool

    /// Whether the ad's impression may count now (engine rule R12a), read each time the host
    /// reports the ad shown. Must not block. Default: ``ImpressionReadiness/ready``.
    var impressionReadiness: ImpressionReadiness { get }

    /// The ad became its placement's current ad: `events` is where it tells the placement,
    /// later and from any thread, that it became ready (``AdEventSink/impressionReady()``) or
    /// that its creative failed (``AdEventSink/renderFailed(_:)``: the placement then falls back
    /// to its next source, with no host wiring). Called at most once per placement that holds the
    /// ad; must not block. An ad run outside a placement (a one-shot auction) is never attached.
    /// Default: does nothing.
    /// - Parameter events: the placement's sink for this ad.
    func attach(_ events: AdEventSink)
}

extension LoadedAd {
    /// No request id in the network's answer.
    public var requestID: String? { nil }
    /// No bid id in the network's answer.
    public var bidID: String? { nil }
    /// No network TTL: the format's default applies.
    public var timeToLive: Duration? { nil }
    /// No server-side refresh interval.
    public var serverRefreshSeconds: Int? { nil }
    /// Does nothing.
    public func recordRender() {}
    /// Does nothing.
    public func recordImpression() {}
    /// Does nothing.
    public func recordClick() {}
    /// Cannot refit.
    public func refit(to slot: SlotSize) -> AdSize? { nil }
    /// Meant for every slot its size fits.
    public func suits(_ slot: SlotSize) -> Bool { true }
    /// Always ready.
    public var impressionReadiness: ImpressionReadiness { .ready }
    /// Does nothing.
    public func attach(_ events: AdEventSink) {}
}

/// What an ad says when the host reports it shown (engine rule R12a).
public enum ImpressionReadiness: Hashable, Sendable {
    /// Its impression may count now.
    case ready
    /// It cannot count yet (e.g. an HTML5 ad still loading its files): the engine tells it it
    /// was rendered (`recordRender()`), refuses the report with this reason, and counts the
    /// impression when the ad calls ``AdEventSink/impressionReady()`` while its placement is
    /// seen. The reason names no user data.
    case notReady(String)
    /// It may not count now (e.g. a frequency cap): the report is refused with this reason and
    /// nothing is recorded; a later report may count. The reason names no user data.
    case notAllowed(String)
}

/// Where a loaded ad tells its placement what happened to it after it was handed out (engine
/// rule R12a), given by the engine in ``LoadedAd/attach(_:)``. Both calls return at once (the
/// placement handles them on its own task) and may come from any thread; calls about an ad
/// that is no longer its placement's current ad are ignored.
public struct AdEventSink: Sendable {
    private let ready: @Sendable () -> Void
    private let failed: @Sendable (AdLoadResult.Error) -> Void

    /// Creates a sink (the engine makes one per placement and ad; tests may make their own).
    /// - Parameters:
    ///   - impressionReady: called by ``impressionReady()``.
    ///   - renderFailed: called by ``renderFailed(_:)``.
    public init(impressionReady: @escaping @Sendable () -> Void, renderFailed: @escaping @Sendable (AdLoadResult.Error) -> Void) {
        ready = impressionReady
        failed = renderFailed
    }

    /// The ad became ready: an impression the host already reported (refused as not ready)
    /// counts now if the placement is still seen.
    public func impressionReady() {
        ready()
    }

    /// The ad's creative cannot be shown (e.g. an HTML5 ad not ready in time): the placement
    /// retires it and runs a new auction without its line item, as for
    /// ``Placement/reportRenderFailure(_:)``.
    /// - Parameter error: what failed (no user data).
    public func renderFailed(_ error: AdLoadResult.Error) {
        failed(error)
    }
}

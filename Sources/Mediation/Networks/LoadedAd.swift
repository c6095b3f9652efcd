/// An ad a network loaded and holds ready to show.
///
/// Contract for implementers:
/// - ``id`` is unique per showing: two loads of the same creative give two ids.
/// - ``releaseResources()`` is idempotent and never blocks; the engine calls it exactly once
///   on every ad that does not become (or stops being) a placement's unshown ad, and never on
///   an ad that was shown (engine rules R7, R12).
/// - The hooks (``recordImpression()``, ``recordClick()`` …) are the engine telling the network
///   what happened, once each; adapters send their tracking from them. They must not block.
public protocol LoadedAd: AnyObject, Sendable {
    /// Unique per showing.
    var id: String { get }
    /// The network's creative id (the same for every showing of one creative).
    var creativeID: String { get }
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
}

extension LoadedAd {
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
}

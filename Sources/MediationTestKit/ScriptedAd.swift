import Mediation

/// A ``LoadedAd`` for tests: every property is settable and every hook counts its calls, so a
/// test can assert "released exactly once" (engine rule R7), "one impression" (R12) and so on.
///
/// Sendable: all mutable state lives in one lock box.
public final class ScriptedAd: LoadedAd {
    private struct State {
        var creativeID: String
        var network: String
        var format: AdFormat
        var size: AdSize
        var timeToLive: Duration?
        var serverRefreshSeconds: Int?
        var refitsInPlace: Bool
        var releaseCount = 0
        var renderCount = 0
        var impressionCount = 0
        var clickCount = 0
        var refitRequests: [SlotSize] = []
    }

    /// Unique per showing.
    public let id: String
    private let state: Locked<State>

    /// Creates an ad.
    /// - Parameters:
    ///   - id: unique per showing.
    ///   - creativeID: the network's creative id (default: the id).
    ///   - network: the network id, e.g. `"elo"`.
    ///   - format: the ad's format (default banner).
    ///   - size: its size in points (default 320 x 50).
    ///   - timeToLive: the network's TTL; `nil` uses the format's default (R14).
    ///   - serverRefreshSeconds: a refresh interval the server asks for, in whole seconds (R13).
    ///   - refitsInPlace: whether ``refit(to:)`` succeeds (it then shrinks the size to fit the slot).
    public init(
        id: String,
        creativeID: String? = nil,
        network: String,
        format: AdFormat = .banner,
        size: AdSize = AdSize(width: 320, height: 50),
        timeToLive: Duration? = nil,
        serverRefreshSeconds: Int? = nil,
        refitsInPlace: Bool = false
    ) {
        self.id = id
        state = Locked(State(
            creativeID: creativeID ?? id,
            network: network,
            format: format,
            size: size,
            timeToLive: timeToLive,
            serverRefreshSeconds: serverRefreshSeconds,
            refitsInPlace: refitsInPlace
        ))
    }

    /// The network's creative id.
    public var creativeID: String {
        get { state.withLock { $0.creativeID } }
        set { state.withLock { $0.creativeID = newValue } }
    }

    /// The network id.
    public var network: String {
        get { state.withLock { $0.network } }
        set { state.withLock { $0.network = newValue } }
    }

    /// The ad's format.
    public var format: AdFormat {
        get { state.withLock { $0.format } }
        set { state.withLock { $0.format = newValue } }
    }

    /// The ad's size in points.
    public var size: AdSize {
        get { state.withLock { $0.size } }
        set { state.withLock { $0.size = newValue } }
    }

    /// The network's TTL; `nil` uses the format's default.
    public var timeToLive: Duration? {
        get { state.withLock { $0.timeToLive } }
        set { state.withLock { $0.timeToLive = newValue } }
    }

    /// The refresh interval the server asks for, in whole seconds.
    public var serverRefreshSeconds: Int? {
        get { state.withLock { $0.serverRefreshSeconds } }
        set { state.withLock { $0.serverRefreshSeconds = newValue } }
    }

    /// Whether ``refit(to:)`` succeeds.
    public var refitsInPlace: Bool {
        get { state.withLock { $0.refitsInPlace } }
        set { state.withLock { $0.refitsInPlace = newValue } }
    }

    /// How many times ``releaseResources()`` was called (R7: at most once, never on a shown ad).
    public var releaseCount: Int { state.withLock { $0.releaseCount } }
    /// Whether ``releaseResources()`` was called at least once.
    public var isReleased: Bool { releaseCount > 0 }
    /// How many times ``recordRender()`` was called.
    public var renderCount: Int { state.withLock { $0.renderCount } }
    /// How many times ``recordImpression()`` was called (R12: at most once).
    public var impressionCount: Int { state.withLock { $0.impressionCount } }
    /// How many times ``recordClick()`` was called.
    public var clickCount: Int { state.withLock { $0.clickCount } }
    /// The slots ``refit(to:)`` was asked to fit, in order.
    public var refitRequests: [SlotSize] { state.withLock { $0.refitRequests } }

    /// Counts the release.
    public func releaseResources() { state.withLock { $0.releaseCount += 1 } }
    /// Counts the render.
    public func recordRender() { state.withLock { $0.renderCount += 1 } }
    /// Counts the impression.
    public func recordImpression() { state.withLock { $0.impressionCount += 1 } }
    /// Counts the click.
    public func recordClick() { state.withLock { $0.clickCount += 1 } }

    /// Records the request; when ``refitsInPlace`` is set, shrinks the size to fit `slot`
    /// (keeping its proportions) and returns it, else returns `nil`.
    /// - Parameter slot: the new slot bounds in points.
    /// - Returns: the refitted size in points, or `nil`.
    public func refit(to slot: SlotSize) -> AdSize? {
        state.withLock { state in
            state.refitRequests.append(slot)
            guard state.refitsInPlace else { return nil }
            var scale = 1.0
            if let maxWidth = slot.maxWidth, state.size.width > maxWidth { scale = min(scale, maxWidth / state.size.width) }
            if let maxHeight = slot.maxHeight, state.size.height > maxHeight { scale = min(scale, maxHeight / state.size.height) }
            state.size = AdSize(width: state.size.width * scale, height: state.size.height * scale)
            return state.size
        }
    }
}

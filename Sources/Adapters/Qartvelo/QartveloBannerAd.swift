import Foundation
import Mediation

/// A loaded Qartvelo banner (Qartvelo seed, "Banner", "Inline banners", "HTML5 ads",
/// "Behaviour").
///
/// - Size: ``size`` is the slot's size in points under its ``layout``; ``refit(to:)`` follows a
///   width change in place, with no new request and no new impression.
/// - Impression: the first ``recordImpression()`` counts (once); for an HTML5 ad only once it
///   is also ready (``recordCreativeReady()``), whichever comes second.
/// - Clicks: each ``recordClick()`` after the impression counts one click; a click before the
///   impression is ignored. ``recordBadgeTap()`` (the "Ad" badge) is never a click.
/// - Render failure hook (HTML5 only): ``recordRender()`` starts a 6 s timer on the engine's
///   clock; if ``recordCreativeReady()`` has not come by then, the ad fails with `creative`
///   code 50, reports it once to its placement's ``AdEventSink`` (given by the engine in
///   ``attach(_:)``: the placement falls back to its next source, with no host wiring) and to
///   the handler set with ``onRenderFailure(_:)``, and counts no impression or click afterwards.
/// - In the engine (R12a): an HTML5 ad's ``impressionReadiness`` is `notReady` until it is ready,
///   so the placement refuses the host's report, records the render (starting the timer) and
///   counts the impression when the ad tells its sink it became ready while the banner is seen
///   (Qartvelo document: "The impression counts when the ad reports it is ready and the banner
///   is visible").
public final class QartveloBannerAd: LoadedAd {
    /// What the ad shows.
    public enum Creative: Hashable, Sendable {
        /// A static image, aspect-fit, never stretched or cropped.
        case image(URL)
        /// An HTML5 ad, whose bundle was downloaded ahead.
        case html5(URL)
    }

    /// How long an HTML5 ad may take to report ready after it rendered: 6 s.
    package static let readyTimeout: Duration = .seconds(6)
    /// The page the "Ad" badge opens (the Qartvelo Ads website); a badge tap is not a click.
    package static let badgeURL = URL(string: "https://qartvelo.ads")

    /// Unique per showing.
    public let id: String
    /// Qartvelo's creative id.
    public let creativeID: String
    /// The id of the request this ad answered (the adapter's `request_id`), bounded (R16).
    public let requestID: String?
    /// The network id as the configuration names it.
    public let network: String
    /// The network's TTL, if it sent one.
    public let timeToLive: Duration?
    /// The dashboard's `banner_refresh_seconds` as the server sent it (not raised here; the
    /// placement raises values under 30 to 30, R13).
    public let serverRefreshSeconds: Int?
    /// The image or HTML5 ad.
    public let creative: Creative
    /// The creative's natural size in points (artwork pixels / density).
    package let creativePoints: AdSize
    /// The advertiser's page, opened on a click.
    public let clickURL: URL?

    private let screen: AdRequest.Device.Screen
    private let clock: any MediationClock
    private let tracker: any QartveloEventTracking
    private let impressionURL: URL?
    private let clickTrackingURL: URL?
    private let state: Locked<State>

    private struct State {
        var layout: QartveloBannerLayout
        var frame: QartveloBannerLayout.Frame
        var bundle: QartveloHTML5Bundle?
        var released = false
        var ready = false
        var visibleBeforeReady = false
        var impressionRecorded = false
        var clickCount = 0
        var renderTimerStarted = false
        var renderTimer: Task<Void, Never>?
        var renderFailure: AdLoadResult.Error?
        var renderFailureHandler: (@Sendable (AdLoadResult.Error) -> Void)?
        var eventSink: AdEventSink?
    }

    /// Creates an ad (the adapter does this from a validated response).
    /// - Parameters:
    ///   - id: unique per showing.
    ///   - creativeID: Qartvelo's creative id.
    ///   - network: the network id.
    ///   - creative: image or HTML5.
    ///   - bundle: the HTML5 bundle, downloaded ahead (`nil` for images).
    ///   - layout: the sizing mode.
    ///   - creativePoints: the creative's natural size in points.
    ///   - frame: the initial frame (from `layout`).
    ///   - screen: the device's screen (for widths and the anchored height cap).
    ///   - timeToLive: the network's TTL.
    ///   - serverRefreshSeconds: `banner_refresh_seconds` from the answer.
    ///   - clickURL: the advertiser's page.
    ///   - impressionURL: the impression tracking URL.
    ///   - clickTrackingURL: the click tracking URL.
    ///   - clock: the engine's clock (the 6 s ready timer runs on it).
    ///   - tracker: where impressions, clicks and render failures go.
    ///   - requestID: the id of the request the ad answered.
    init(
        id: String,
        creativeID: String,
        network: String,
        creative: Creative,
        bundle: QartveloHTML5Bundle?,
        layout: QartveloBannerLayout,
        creativePoints: AdSize,
        frame: QartveloBannerLayout.Frame,
        screen: AdRequest.Device.Screen,
        timeToLive: Duration?,
        serverRefreshSeconds: Int?,
        clickURL: URL?,
        impressionURL: URL?,
        clickTrackingURL: URL?,
        clock: any MediationClock,
        tracker: any QartveloEventTracking,
        requestID: String? = nil
    ) {
        self.id = id
        self.creativeID = creativeID
        self.requestID = requestID.map(NetworkValueBounds.identifier)
        self.network = network
        self.creative = creative
        self.creativePoints = creativePoints
        self.screen = screen
        self.timeToLive = timeToLive
        self.serverRefreshSeconds = serverRefreshSeconds
        self.clickURL = clickURL
        self.impressionURL = impressionURL
        self.clickTrackingURL = clickTrackingURL
        self.clock = clock
        self.tracker = tracker
        state = Locked(State(layout: layout, frame: frame, bundle: bundle))
    }

    /// Always ``AdFormat/banner``.
    public var format: AdFormat { .banner }

    /// The ad's size in points (the slot's size; it changes on ``refit(to:)``).
    public var size: AdSize { state.withLock { $0.frame.size } }

    /// How the banner is sized (an inline ad's maximum height follows ``refit(to:)``).
    public var layout: QartveloBannerLayout { state.withLock { $0.layout } }

    /// The ad's frame: its size and where the creative sits in it, in points.
    public var frame: QartveloBannerLayout.Frame { state.withLock { $0.frame } }

    /// Whether the creative is an HTML5 ad.
    public var isHTML5: Bool {
        if case .html5 = creative { return true }
        return false
    }

    /// The HTML5 bundle, until ``releaseResources()``; `nil` for images.
    public var html5Bundle: QartveloHTML5Bundle? { state.withLock { $0.bundle } }

    /// Whether the impression has been counted.
    package var impressionRecorded: Bool { state.withLock { $0.impressionRecorded } }

    /// The clicks counted (each after the impression).
    package var clickCount: Int { state.withLock { $0.clickCount } }

    /// The render failure, once the HTML5 ad missed its 6 s ready deadline.
    package var renderFailure: AdLoadResult.Error? { state.withLock { $0.renderFailure } }

    /// Whether ``releaseResources()`` has run.
    package var isReleased: Bool { state.withLock { $0.released } }

    /// Frees the HTML5 bundle and stops the ready timer. Idempotent; never blocks.
    public func releaseResources() {
        let timer = state.withLock { state -> Task<Void, Never>? in
            guard !state.released else { return nil }
            state.released = true
            state.bundle = nil
            state.renderFailureHandler = nil
            state.eventSink = nil
            defer { state.renderTimer = nil }
            return state.renderTimer
        }
        timer?.cancel()
    }

    /// The host rendered the ad in a view. For an HTML5 ad not yet ready, starts the 6 s ready
    /// timer on the engine's clock (once; later renders do not restart it).
    public func recordRender() {
        guard isHTML5, claimRenderTimer() else { return }
        let clock = clock
        let deadline = clock.now + Self.readyTimeout
        let timer = clock.startTask { [weak self] in
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            self?.readyDeadlinePassed()
        }
        if !storeRenderTimer(timer) { timer.cancel() }
    }

    /// Marks the ready timer as started; `false` when it already was or is not needed.
    private func claimRenderTimer() -> Bool {
        state.withLock { state in
            guard !state.renderTimerStarted, !state.ready, !state.released, state.renderFailure == nil else { return false }
            state.renderTimerStarted = true
            return true
        }
    }

    /// Keeps the timer so readiness or release can cancel it; `false` when either came first.
    private func storeRenderTimer(_ timer: Task<Void, Never>) -> Bool {
        state.withLock { state in
            if state.ready || state.released { return false }
            state.renderTimer = timer
            return true
        }
    }

    /// The HTML5 ad reported it is ready (its web view loaded the bundle). Stops the ready
    /// timer; counts the impression now if the banner was already visible. Ignored after a
    /// render failure.
    public func recordCreativeReady() {
        let (timer, fireImpression, sink) = state.withLock { state -> (Task<Void, Never>?, Bool, AdEventSink?) in
            guard !state.ready, state.renderFailure == nil else { return (nil, false, nil) }
            state.ready = true
            state.renderFailureHandler = nil  // no failure can come any more
            let sink = state.released ? nil : state.eventSink
            state.eventSink = nil
            let timer = state.renderTimer
            state.renderTimer = nil
            guard state.visibleBeforeReady, !state.impressionRecorded else { return (timer, false, sink) }
            state.impressionRecorded = true
            return (timer, true, sink)
        }
        timer?.cancel()
        if fireImpression { trackImpression() }
        sink?.impressionReady()
    }

    /// Whether the engine may count the impression now (R12a): an HTML5 ad is `notReady` until
    /// ``recordCreativeReady()`` and `notAllowed` after it missed its 6 s deadline; an image is
    /// always `ready`.
    public var impressionReadiness: ImpressionReadiness {
        guard isHTML5 else { return .ready }
        return state.withLock { state in
            if state.renderFailure != nil { return .notAllowed("the HTML5 ad was not ready within 6 s") }
            return state.ready ? .ready : .notReady("the HTML5 ad is not ready yet")
        }
    }

    /// Keeps the placement's sink: it is told when the HTML5 ad becomes ready and when it misses
    /// its 6 s deadline (a failure that already happened is told at once). Dropped once the ad
    /// is ready or released.
    /// - Parameter events: the placement's sink for this ad.
    public func attach(_ events: AdEventSink) {
        let pending = state.withLock { state -> AdLoadResult.Error? in
            guard !state.released else { return nil }
            if let failure = state.renderFailure { return failure }
            if !state.ready { state.eventSink = events }
            return nil
        }
        if let pending { events.renderFailed(pending) }
    }

    /// The banner is visible: counts the impression the first time (for an HTML5 ad, once it
    /// is also ready). Ignored after a render failure.
    public func recordImpression() {
        let isHTML5 = isHTML5
        let fire = state.withLock { state -> Bool in
            guard !state.impressionRecorded, state.renderFailure == nil else { return false }
            if isHTML5, !state.ready {
                state.visibleBeforeReady = true
                return false
            }
            state.impressionRecorded = true
            return true
        }
        if fire { trackImpression() }
    }

    /// The user tapped the ad: one click, counted only after the impression (a click before
    /// it is ignored).
    public func recordClick() {
        let counted = state.withLock { state -> Bool in
            guard state.impressionRecorded else { return false }
            state.clickCount += 1
            return true
        }
        if counted {
            tracker.track(QartveloTrackedEvent(kind: .click, adID: id, creativeID: creativeID, url: clickTrackingURL))
        }
    }

    /// The user tapped the small "Ad" badge: it opens the Qartvelo Ads website and is not a
    /// click (Qartvelo seed, "Behaviour"). Counts and tracks nothing.
    /// - Returns: the page to open, `https://qartvelo.ads`.
    @discardableResult
    public func recordBadgeTap() -> URL? {
        Self.badgeURL
    }

    /// Sets a handler told (once) when the HTML5 ad misses its 6 s ready deadline, with
    /// `AdLoadResult.Error(kind: .creative, code: 50)`. A placement needs no such wiring (the
    /// engine's sink, ``attach(_:)``, already takes the ad to the render-failure path); this is for
    /// an ad the host holds outside a placement (a one-shot auction's winner). A failure that
    /// happened before the handler was set is delivered at once. The handler is dropped once the ad
    /// is ready or released, so it may capture the placement.
    /// - Parameter handler: called at most once, on the timer's task; must not block.
    public func onRenderFailure(_ handler: @escaping @Sendable (AdLoadResult.Error) -> Void) {
        let pending = state.withLock { state -> AdLoadResult.Error? in
            if let failure = state.renderFailure { return failure }
            state.renderFailureHandler = handler
            return nil
        }
        if let pending { handler(pending) }
    }

    /// Follows a change of the slot: a new width refits the creative in place (anchored
    /// adaptive: the new adaptive height; inline: the new fit; creative size: scaled down to
    /// the width when wider), with no request and no impression. The next request asks for
    /// the new size because the placement sends the new slot.
    /// - Parameter slot: the new slot bounds in points (`maxWidth` `nil` means the screen's
    ///   width; for inline ads a `maxHeight` of at least 32 pt replaces the old one).
    /// - Returns: the new size in points, or `nil` when the width is not finite and positive.
    public func refit(to slot: SlotSize) -> AdSize? {
        let width = QartveloAnchoredSizing.slotWidth(for: slot, screen: screen)
        var layout = self.layout
        if case .inline(let maxHeight) = layout {
            let newMax = slot.maxHeight.flatMap { _ in QartveloInlineSizing.maxHeight(for: slot) } ?? maxHeight
            layout = .inline(maxHeight: newMax)
        }
        guard let frame = layout.frame(creativePoints: creativePoints, width: width, screen: screen) else { return nil }
        state.withLock { state in
            state.layout = layout
            state.frame = frame
        }
        return frame.size
    }

    private func trackImpression() {
        tracker.track(QartveloTrackedEvent(kind: .impression, adID: id, creativeID: creativeID, url: impressionURL))
    }

    private func readyDeadlinePassed() {
        let error = AdLoadResult.Error(kind: .creative, code: QartveloErrorCode.renderTimeout.rawValue, message: "HTML5 ad not ready within 6 s of rendering")
        let failed = state.withLock { state -> (handler: (@Sendable (AdLoadResult.Error) -> Void)?, sink: AdEventSink?)? in
            guard !state.ready, !state.released, state.renderFailure == nil else { return nil }
            state.renderFailure = error
            state.renderTimer = nil
            defer {
                state.renderFailureHandler = nil
                state.eventSink = nil
            }
            return (state.renderFailureHandler, state.eventSink)
        }
        guard let failed else { return }
        tracker.track(QartveloTrackedEvent(kind: .renderFailure, adID: id, creativeID: creativeID, url: nil))
        failed.sink?.renderFailed(error)
        failed.handler?(error)
    }
}

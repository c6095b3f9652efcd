/// The engine's controller of one placement (engine rules R10 to R14): it holds the
/// placement's one current ad, runs its auctions one at a time, shares the ad with every view,
/// refreshes banners on visible foreground time, expires unshown ads, and reports events.
///
/// Get it from ``MediationEngine/placement(_:)``; there is one per placement id.
///
/// Life cycle of an ad: an auction's winner becomes the **current** ad (the previous one is
/// retired if it was shown, else released); the host renders it and reports
/// ``reportShown(_:)`` (one impression, R12); a refresh, a render failure or ``destroy()``
/// replaces it. The engine calls `releaseResources()` exactly once on every ad it held that was
/// never shown, and never on a shown ad.
///
/// Decisions where the rules are silent:
/// - A banner (or any placement with `refresh_seconds`) loads by itself when a view attaches
///   and it has no usable ad, and when it becomes seen again after its unshown ad expired.
/// - For full-screen formats (interstitial, app open, rewarded) a shown ad is used up:
///   ``load()`` then runs a new auction; banners and natives keep sharing their shown ad.
/// - A failed auction (no fill) of a refreshing placement starts a new count like a failed
///   refresh, so an empty banner retries after one interval of visible time.
/// - An ad that has already expired when its auction ends counts as no fill (it is released).
public actor Placement {
    /// The placement id, e.g. `"home_banner"`.
    public nonisolated let id: String
    /// Its configuration.
    public nonisolated let configuration: PlacementConfiguration
    /// Whether it refreshes (banners, or any placement with `refresh_seconds`, R13).
    public nonisolated let refreshes: Bool

    private struct Current {
        var placementAd: PlacementAd
        var summary: AdSummary
        var clicked = false
        var ad: any LoadedAd { placementAd.ad }
    }

    private struct RetiredShown {
        var adID: String
        var summary: AdSummary
        var clicked: Bool
    }

    /// Builds the request of one auction from the slot, the placement's host context and the
    /// start instant.
    typealias RequestBuilder = @Sendable (PlacementConfiguration, SlotSize, HostContext?, MediationInstant) -> AdRequest

    private let auction: Auction
    private let clock: any MediationClock
    private let logger: any MediationLogger
    private let events: EventHub
    private let buildRequest: RequestBuilder
    private let onDestroy: @Sendable (Placement) -> Void
    private let logSource: String

    private var current: Current?
    private var inFlight: Task<PlacementLoadResult, Never>?
    private var views: [ViewID: Bool] = [:]
    private var lastViewNumber = 0
    private var foregroundSequence: UInt64 = 0
    private var schedule: RefreshSchedule?
    private var timer: (task: Task<Void, Never>, wakeAt: MediationInstant, generation: UInt64)?
    private var timerGeneration: UInt64 = 0
    private var announcedDue: MediationInstant?
    private var reloadWhenSeen = false
    private var slot: SlotSize
    private var hostContext: HostContext?
    private var retiredShown: [RetiredShown] = []
    private var recentlyExpired: [String] = []
    private var isDestroyed = false

    /// How many shown-and-retired (and expired) ads are remembered so a late click still
    /// counts once and a late show of an expired ad is answered `.expired`.
    private static let retiredMemory = 4

    init(
        configuration: PlacementConfiguration,
        auction: Auction,
        clock: any MediationClock,
        logger: any MediationLogger,
        events: EventHub,
        foreground: Bool,
        buildRequest: @escaping RequestBuilder,
        onDestroy: @escaping @Sendable (Placement) -> Void
    ) {
        id = configuration.id
        self.configuration = configuration
        self.auction = auction
        self.clock = clock
        self.logger = logger
        self.events = events
        self.buildRequest = buildRequest
        self.onDestroy = onDestroy
        logSource = "placement.\(configuration.id)"
        slot = configuration.slot
        refreshes = configuration.format == .banner || configuration.refreshSeconds != nil
        if refreshes {
            let interval = RefreshInterval(configuredSeconds: configuration.refreshSeconds)
            schedule = RefreshSchedule(interval: interval.duration, visible: false, foreground: foreground)
        }
    }

    // MARK: - Observing

    /// The current ad, if the placement holds one (shown or not, possibly expired if shown).
    public var currentAd: PlacementAd? { current?.placementAd }

    /// Whether an auction is running.
    public var isLoading: Bool { inFlight != nil }

    /// Whether ``destroy()`` was called.
    public var destroyed: Bool { isDestroyed }

    /// The instant the next refresh is due if the placement stays seen; `nil` while paused,
    /// loading, or for formats that do not refresh (R13).
    public var nextRefreshDue: MediationInstant? { schedule?.dueInstant }

    /// The current refresh interval (after any server-sent value), or `nil` when it does not refresh.
    public var refreshInterval: Duration? { schedule?.interval }

    /// The instant the placement's one timer task wakes (the next refresh or the current
    /// unshown ad's expiry), or `nil` when no timer runs.
    public var timerWakeUp: MediationInstant? { timer?.wakeAt }

    /// The attached views and whether each is visible.
    public var attachedViews: [ViewID: Bool] { views }

    // MARK: - Loading

    /// Returns the current ad when it is fresh (no request, R10); otherwise joins the running
    /// auction (R11) or starts one. Every caller that joins one auction gets its one outcome;
    /// never an "already loading" error. Cancelling a caller does not cancel the auction.
    /// - Returns: the fresh ad, no fill with the trace, or `.destroyed`.
    public func load() async -> PlacementLoadResult {
        guard !isDestroyed else { return .destroyed }
        let now = clock.now
        expireCurrentIfNeeded(at: now)
        if let current, isOffered(current, at: now) { return .loaded(current.placementAd) }
        let task = inFlight ?? startAuction(reason: .load, excluding: [])
        return await task.value
    }

    /// Sets the conversation and screen context sent with this placement's next requests
    /// (e.g. a chat strip fed the conversation); `nil` uses the engine's provider. Never logged
    /// or put into events.
    /// - Parameter context: the context.
    public func setHostContext(_ context: HostContext?) {
        hostContext = context
    }

    // MARK: - Views

    /// Attaches a host view. A refreshing placement with no usable ad and no running auction
    /// starts loading; with a current ad the view shows that ad and no request is made (R10).
    /// - Parameter visible: whether the view is visible now.
    /// - Returns: the view's id for ``setVisible(_:for:)`` and ``detachView(_:)``.
    public func attachView(visible: Bool = false) -> ViewID {
        lastViewNumber += 1
        let view = ViewID(rawValue: lastViewNumber)
        guard !isDestroyed else { return view }
        views[view] = visible
        let now = clock.now
        schedule?.setVisible(anyViewVisible, at: now)
        expireCurrentIfNeeded(at: now)
        if refreshes, inFlight == nil, current.map({ !isOffered($0, at: now) }) ?? true {
            _ = startAuction(reason: .load, excluding: [])
        } else {
            reloadIfSeenAndEmpty(at: now)
            reschedule(at: now)
        }
        return view
    }

    /// Records a view's visibility; only time during which some view is visible (and the app
    /// is in the foreground) counts towards the refresh (R13).
    /// - Parameters:
    ///   - visible: whether the view is visible.
    ///   - view: the view; an unknown (detached) view is ignored.
    public func setVisible(_ visible: Bool, for view: ViewID) {
        guard !isDestroyed, views[view] != nil else { return }
        views[view] = visible
        let now = clock.now
        schedule?.setVisible(anyViewVisible, at: now)
        expireCurrentIfNeeded(at: now)
        reloadIfSeenAndEmpty(at: now)
        reschedule(at: now)
    }

    /// Detaches a view. The current ad stays for the next view (R10); the refresh count freezes
    /// when no view is left visible.
    /// - Parameter view: the view; an unknown view is ignored.
    public func detachView(_ view: ViewID) {
        guard !isDestroyed, views.removeValue(forKey: view) != nil else { return }
        let now = clock.now
        schedule?.setVisible(anyViewVisible, at: now)
        reschedule(at: now)
    }

    /// The app's foreground state, fanned out by ``MediationEngine/setForeground(_:)``; a
    /// change older than the last one applied (by `sequence`) is ignored.
    func setForeground(_ foreground: Bool, sequence: UInt64) {
        guard !isDestroyed, sequence > foregroundSequence else { return }
        foregroundSequence = sequence
        let now = clock.now
        schedule?.setForeground(foreground, at: now)
        expireCurrentIfNeeded(at: now)
        reloadIfSeenAndEmpty(at: now)
        reschedule(at: now)
    }

    // MARK: - Host reports

    /// The host rendered `ad` in a visible view. The first report of the current ad counts its
    /// one impression (`recordRender()`, `recordImpression()`, a `shown` event with revenue =
    /// eCPM / 1000 USD); later reports count nothing (R12). Expiry is checked first: an expired
    /// unshown ad is released and must not be shown (R14).
    /// - Parameter ad: the ad the host rendered.
    /// - Returns: what was decided.
    public func reportShown(_ ad: any LoadedAd) -> ShowResult {
        guard !isDestroyed, var current, current.ad === ad else {
            if retiredShown.contains(where: { $0.adID == ad.id }) { return .alreadyShown }
            return recentlyExpired.contains(ad.id) ? .expired : .notCurrent
        }
        if current.placementAd.isShown { return .alreadyShown }
        let now = clock.now
        guard current.placementAd.expiry.isUsable(at: now) else {
            expireCurrentIfNeeded(at: now)
            reschedule(at: now)
            return .expired
        }
        current.placementAd.isShown = true
        self.current = current
        ad.recordRender()
        ad.recordImpression()
        let impression = Impression(ad: current.summary)
        events.emit(.shown(impression, at: now))
        reschedule(at: now)
        return .impression(impression)
    }

    /// The user clicked a shown ad (the current one, or one a refresh just retired). Counted
    /// once per ad (`recordClick()` and a `clicked` event).
    /// - Parameter ad: the ad clicked.
    /// - Returns: whether the click was counted.
    @discardableResult
    public func reportClick(_ ad: any LoadedAd) -> Bool {
        let now = clock.now
        if var current, current.ad === ad {
            guard current.placementAd.isShown, !current.clicked else { return false }
            current.clicked = true
            self.current = current
            ad.recordClick()
            events.emit(.clicked(current.summary, at: now))
            return true
        }
        guard let index = retiredShown.firstIndex(where: { $0.adID == ad.id }), !retiredShown[index].clicked else { return false }
        retiredShown[index].clicked = true
        ad.recordClick()
        events.emit(.clicked(retiredShown[index].summary, at: now))
        return true
    }

    /// The host could not render the current ad's creative: it is released (unless it was
    /// already shown) and a new auction runs without its line item. For an ad that is not
    /// current this is ``load()``.
    /// - Parameter ad: the ad that failed to render.
    /// - Returns: the outcome of the new auction (or of the one already running).
    public func reportRenderFailure(_ ad: any LoadedAd) async -> PlacementLoadResult {
        guard !isDestroyed else { return .destroyed }
        guard let failed = current, failed.ad === ad else { return await load() }
        let now = clock.now
        current = nil
        events.emit(.renderFailed(failed.summary, at: now))
        retire(failed, reason: .renderFailure, at: now)
        let task = inFlight ?? startAuction(reason: .renderFailure, excluding: [failed.placementAd.lineItem.id])
        return await task.value
    }

    /// The slot changed size. The current ad is asked to refit (`LoadedAd.refit(to:)`); when it
    /// cannot, it stays and the next auction asks for the new size.
    /// - Parameter slot: the new slot bounds in points.
    /// - Returns: the current ad's refitted size in points, or `nil` when it did not refit.
    @discardableResult
    public func slotDidResize(_ slot: SlotSize) -> AdSize? {
        self.slot = slot
        guard !isDestroyed, var current else { return nil }
        guard let size = current.ad.refit(to: slot), slot.fits(size) else {
            logger.debug("slot resized; the current ad cannot refit, the next auction asks the new size", source: logSource)
            return nil
        }
        current.summary.size = size
        self.current = current
        return size
    }

    /// Ends the placement: the refresh timer stops, a running auction is cancelled (its
    /// winner, if any, released), the current ad is retired if shown, else released. Later
    /// calls do nothing and ``load()`` returns `.destroyed`; the engine makes a new controller
    /// for the id on the next ``MediationEngine/placement(_:)``.
    public func destroy() {
        guard !isDestroyed else { return }
        isDestroyed = true
        let now = clock.now
        timer?.task.cancel()
        timer = nil
        inFlight?.cancel()
        schedule?.stop(at: now)
        views.removeAll()
        if let current {
            self.current = nil
            retire(current, reason: .destroyed, at: now)
        }
        onDestroy(self)
    }

    // MARK: - Auctions

    /// Starts an auction now, stopping the refresh count while it runs.
    private func startAuction(reason: AuctionReason, excluding excluded: Set<String>) -> Task<PlacementLoadResult, Never> {
        let now = clock.now
        schedule?.stop(at: now)
        reloadWhenSeen = false
        let request = buildRequest(configuration, slot, hostContext, now)
        events.emit(.auctionStarted(placementID: id, reason: reason, at: now))
        let task = clock.startTask { await self.performAuction(request: request, excluding: excluded) }
        inFlight = task
        reschedule(at: now)
        return task
    }

    private func performAuction(request: AdRequest, excluding excluded: Set<String>) async -> PlacementLoadResult {
        let events = self.events
        let outcome = await auction.run(request: request, excluding: excluded) { late in
            events.emit(.lateAnswer(late))
        }
        return complete(outcome)
    }

    /// Applies an auction's outcome: the winner becomes the current ad, or the current ad is
    /// kept and a new refresh count starts.
    private func complete(_ outcome: AuctionOutcome) -> PlacementLoadResult {
        inFlight = nil
        let now = clock.now
        events.emit(.auctionFinished(placementID: id, trace: outcome.trace, at: now))
        guard let winner = outcome.winner else {
            guard !isDestroyed else { return .destroyed }
            schedule?.start(at: now)
            reschedule(at: now)
            return .noFill(outcome.trace)
        }
        let expiry = AdExpiry(loadedAt: winner.arrivedAt, timeToLive: winner.ad.timeToLive, format: configuration.format)
        let placementAd = PlacementAd(ad: winner.ad, lineItem: winner.lineItem, eCPM: winner.eCPM, auctionID: outcome.trace.auctionID, expiry: expiry)
        let won = Current(placementAd: placementAd, summary: summary(of: winner))
        if isDestroyed {
            release(won, reason: .destroyed, at: now)
            return .destroyed
        }
        guard expiry.isUsable(at: now) else {
            events.emit(.expired(won.summary, at: now))
            release(won, reason: .expired, at: now)
            schedule?.start(at: now)
            reschedule(at: now)
            return .noFill(outcome.trace)
        }
        let previous = current
        current = won
        events.emit(.adLoaded(won.summary, expiresAt: expiry.expiresAt, at: now))
        if let previous { retire(previous, reason: .replaced, at: now) }
        if schedule != nil {
            let interval = RefreshInterval(configuredSeconds: configuration.refreshSeconds, serverSeconds: winner.ad.serverRefreshSeconds)
            if let warning = interval.warning {
                logger.warning("\(warning) (network \(winner.ad.network))", source: logSource)
            }
            schedule?.start(at: now, interval: interval.duration)
        }
        reschedule(at: now)
        return .loaded(placementAd)
    }

    // MARK: - Timer

    /// Makes the one timer task wake at the earlier of the refresh due instant and the current
    /// unshown ad's expiry, replacing the task only when that instant changed; announces a new
    /// refresh due instant.
    private func reschedule(at now: MediationInstant) {
        let due = isDestroyed ? nil : schedule?.dueInstant
        if let due, due != announcedDue {
            events.emit(.refreshScheduled(placementID: id, dueAt: due, at: now))
        }
        announcedDue = due
        var wake = due
        if !isDestroyed, let current, !current.placementAd.isShown {
            let expiresAt = current.placementAd.expiry.expiresAt
            wake = wake.map { min($0, expiresAt) } ?? expiresAt
        }
        if timer?.wakeAt == wake { return }
        timer?.task.cancel()
        timer = nil
        guard let wake else { return }
        timerGeneration += 1
        let generation = timerGeneration
        let clock = self.clock
        let task = clock.startTask { [weak self] in
            do {
                try await clock.sleep(until: wake)
            } catch {
                return
            }
            await self?.timerFired(generation: generation)
        }
        timer = (task, wake, generation)
    }

    private func timerFired(generation: UInt64) {
        guard !isDestroyed, let timer, timer.generation == generation else { return }
        self.timer = nil
        let now = clock.now
        expireCurrentIfNeeded(at: now)
        if inFlight == nil, let schedule, schedule.isDue(at: now) {
            _ = startAuction(reason: .refresh, excluding: [])
            return
        }
        reloadIfSeenAndEmpty(at: now)
        reschedule(at: now)
    }

    // MARK: - Helpers

    private var anyViewVisible: Bool { views.values.contains(true) }

    /// Whether `current` may be handed out at `now`: unexpired, and not used up (a shown
    /// full-screen ad is).
    private func isOffered(_ current: Current, at now: MediationInstant) -> Bool {
        guard current.placementAd.expiry.isUsable(at: now) else { return false }
        switch configuration.format {
        case .banner, .native: return true
        case .interstitial, .appOpen, .rewarded: return !current.placementAd.isShown
        }
    }

    /// Releases the current ad once if it expired unshown (R14); the placement is then empty.
    private func expireCurrentIfNeeded(at now: MediationInstant) {
        guard let expired = current, !expired.placementAd.isShown, !expired.placementAd.expiry.isUsable(at: now) else { return }
        current = nil
        recentlyExpired.append(expired.ad.id)
        if recentlyExpired.count > Self.retiredMemory { recentlyExpired.removeFirst(recentlyExpired.count - Self.retiredMemory) }
        events.emit(.expired(expired.summary, at: now))
        release(expired, reason: .expired, at: now)
        if refreshes { reloadWhenSeen = true }
    }

    /// A refreshing placement emptied by expiry loads as soon as it is seen again.
    private func reloadIfSeenAndEmpty(at now: MediationInstant) {
        guard reloadWhenSeen, current == nil, inFlight == nil, let schedule, schedule.isVisible, schedule.isForeground else { return }
        _ = startAuction(reason: .load, excluding: [])
    }

    /// An ad stops being the current one: a shown ad is retired (never released, R12), an
    /// unshown one released once.
    private func retire(_ old: Current, reason: ReleaseReason, at now: MediationInstant) {
        if old.placementAd.isShown {
            events.emit(.retired(old.summary, at: now))
            retiredShown.append(RetiredShown(adID: old.ad.id, summary: old.summary, clicked: old.clicked))
            if retiredShown.count > Self.retiredMemory { retiredShown.removeFirst(retiredShown.count - Self.retiredMemory) }
        } else {
            release(old, reason: reason, at: now)
        }
    }

    private func release(_ ad: Current, reason: ReleaseReason, at now: MediationInstant) {
        ad.ad.releaseResources()
        events.emit(.released(ad.summary, reason: reason, at: now))
    }

    private func summary(of winner: AuctionWinner) -> AdSummary {
        AdSummary(
            placementID: id,
            adID: winner.ad.id,
            creativeID: winner.ad.creativeID,
            network: winner.ad.network,
            lineItemID: winner.lineItem.id,
            format: winner.ad.format,
            size: winner.ad.size,
            eCPM: winner.eCPM
        )
    }
}

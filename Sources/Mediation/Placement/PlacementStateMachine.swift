/// The decisions of one placement (engine rules R10 to R14) as a pure state machine: events in
/// (a load, a view, visibility, the app's foreground state, an auction's outcome, a timer
/// firing, a host report, a resize, destroy), actions out (start or cancel an auction, set the
/// one timer, emit an event, release an ad, call an ad's hook, deliver a result to the callers
/// waiting on an auction, log, end). It never reads a clock or touches a task: every event
/// carries its instant, and ``Placement`` performs the actions in the order given.
///
/// State:
/// - **Content**: empty, emptied by the expiry of its unshown ad (a refreshing placement then
///   reloads as soon as it is seen again), or one current ad (shown or not, clicked or not).
/// - **Auction**: none, or one running with the tickets of the callers that joined it (R11).
/// - **Seen**: the attached views and their visibility, and the app's foreground state (with
///   the sequence number of the last change applied).
/// - **Refresh**: a ``RefreshSchedule`` for placements that refresh (R13), and the due instant
///   last announced with a `refresh_scheduled` event.
/// - **Timer**: the one wake-up instant the driver's timer is set for: the earlier of the
///   refresh due instant and the current unshown ad's expiry (R13, R14). A wake-up for any other
///   instant is stale and ignored, so the driver needs no generation numbers.
/// - **Memory**: the ids of a few shown ads it retired (a late click counts once, a late show is
///   `.alreadyShown`) and of a few ads that expired (a late show is `.expired`).
/// - **Life**: active, or destroyed (every later event but a click on a retired ad does nothing).
///
/// One place for each decision: whether an ad is offered (``isOffered(_:at:)``, R10, R14,
/// full-screen ads used up), whether a show counts (``showVerdict(on:readiness:at:)``, R12,
/// R12a), the expiry of a
/// new ad (``expiry(of:)``, R14) and its refresh interval (``refreshInterval(for:)``, R13), which
/// ad leaves how (``retire(_:reason:at:into:)``, R12), and what the timer waits for
/// (``settle(at:into:)``).
package struct PlacementStateMachine: Sendable {
    // MARK: Types

    /// A caller of ``load(at:)`` or ``reportRenderFailure(_:at:)`` waiting for the running
    /// auction's result; every ticket of one auction gets the same result (R11).
    package struct LoadTicket: Hashable, Sendable, CustomStringConvertible {
        /// A number unique within its placement, from 1.
        package var rawValue: UInt64

        /// `#N`.
        package var description: String { "#\(rawValue)" }
    }

    /// What a load asks of the caller: take a result now, or wait for the running auction's.
    package enum LoadReply: Sendable {
        /// The result, decided now (a fresh ad, R10, or `.destroyed`).
        case ready(Placement.LoadResult)
        /// Wait for the ``Action/deliver(_:to:)`` that names this ticket.
        case wait(LoadTicket)
    }

    /// An auction for the driver to start: it builds the request for `slot` at `startedAt`
    /// and runs the placement's auction without the excluded line items.
    package struct AuctionStart: Hashable, Sendable {
        /// Why it starts (`auction_started` says the same).
        package var reason: MediationEvent.AuctionReason
        /// Line item ids left out (the one whose creative just failed to render).
        package var excludedLineItems: Set<String>
        /// The slot to ask for, in points (it follows ``PlacementStateMachine/slotDidResize(to:)``).
        package var slot: SlotSize
        /// The instant it starts.
        package var startedAt: MediationInstant
    }

    /// What the driver must do, in the order given.
    package enum Action: Sendable {
        /// Publish the event.
        case emit(MediationEvent)
        /// Start the auction; report its outcome with ``PlacementStateMachine/auctionFinished(_:at:)``.
        case startAuction(AuctionStart)
        /// Cancel the running auction (it then finishes at once with no winner; report that too).
        case cancelAuction
        /// Make the one timer wake at this instant (replacing any other), or stop it (`nil`);
        /// report the wake-up with ``PlacementStateMachine/timerFired(for:at:)``.
        case setTimer(at: MediationInstant?)
        /// Call `releaseResources()` on the ad, once (R7, R14; never on a shown ad, R12).
        case release(any LoadedAd)
        /// Call the ad's `recordRender()`.
        case recordRender(any LoadedAd)
        /// Call the ad's `recordImpression()` (once per ad, R12).
        case recordImpression(any LoadedAd)
        /// Call the ad's `recordClick()` (once per ad).
        case recordClick(any LoadedAd)
        /// Give the result to every caller holding one of the tickets.
        case deliver(Placement.LoadResult, to: [LoadTicket])
        /// Write a log line (the driver names the placement as its source).
        case log(LogLevel, String)
        /// The placement was destroyed: the engine may forget its controller.
        case ended
    }

    /// The current ad with what the placement knows of it.
    private struct CurrentAd {
        var placementAd: Placement.Ad
        /// What events say of it; its size follows a refit.
        var summary: MediationEvent.AdSummary
        var clicked = false
        /// Whether `recordRender()` was called (once per ad).
        var renderRecorded = false
        /// The host reported it shown while its network said it was not ready (R12a): it counts
        /// when the ad says it became ready while the placement is seen.
        var awaitingReadiness = false
        var ad: any LoadedAd { placementAd.ad }
        var isShown: Bool { placementAd.isShown }
    }

    /// What the placement holds (R10: at most one current ad).
    private enum Content {
        /// No ad.
        case empty
        /// No ad since its unshown ad expired (R14): a refreshing placement reloads as soon as it
        /// is seen again; an auction starting clears this.
        case expired
        /// One current ad.
        case ad(CurrentAd)
    }

    /// What a show of the current ad comes to.
    private enum ShowVerdict {
        /// It counts its one impression now (R12).
        case counts
        /// It counted its impression already (R12).
        case alreadyShown
        /// It expired unshown (R14): it is released, not shown.
        case expired
        /// It may not count now (R12a): the report is refused with the reason.
        case refused(Placement.ShowResult.Refusal)
    }

    /// The running auction: who waits for its result (R11).
    private struct RunningAuction {
        /// The callers that joined it, in order.
        var waiters: [LoadTicket] = []
    }

    /// A shown ad a refresh (or destroy, or a render failure) retired: the renderer keeps it.
    private struct RetiredShown {
        var adID: String
        var summary: MediationEvent.AdSummary
        var clicked: Bool
    }

    /// How many retired shown ads and expired ad ids are remembered.
    package static let memory = 4

    // MARK: State

    /// The placement id, e.g. `"home_banner"`.
    package let placementID: String
    /// The placement's format (its default expiry, whether a shown ad is used up).
    package let format: AdFormat
    /// The placement's `refresh_seconds`, `nil` for the default (60).
    package private(set) var configuredRefreshSeconds: Int?
    /// Whether it refreshes (banners, or any placement with `refresh_seconds`, R13).
    package let refreshes: Bool
    /// The slot the next auction asks for, in points: the declared slot, narrowed by the
    /// host's last ``slotDidResize(to:)`` (R8a).
    package private(set) var slot: SlotSize
    /// The slot the placement's configuration declares; a resize never goes beyond it (R8a).
    package private(set) var declaredSlot: SlotSize
    /// The `config_version` the placement runs: its next auction's (R22).
    package private(set) var configVersion: Int
    /// Whether the app is in the foreground.
    package private(set) var isForeground: Bool
    /// The attached views and whether each is visible.
    package private(set) var views: [Placement.ViewID: Bool] = [:]
    /// Whether the placement was destroyed.
    package private(set) var isDestroyed = false
    /// The instant the driver's timer is set for, or `nil` when none should run.
    package private(set) var timerWakeUp: MediationInstant?

    private var content: Content = .empty
    private var auction: RunningAuction?
    private var schedule: RefreshSchedule?
    private var announcedDue: MediationInstant?
    private var lastViewNumber = 0
    private var lastTicket: UInt64 = 0
    private var foregroundSequence: UInt64 = 0
    private var retiredShown: [RetiredShown] = []
    private var recentlyExpired: [String] = []
    /// Whether the running or last auction was the immediate reload after an expiry: when that
    /// reload's ad expires unshown too, after a TTL shorter than the shortest refresh interval
    /// (30 s), the placement waits for its refresh count, so a network whose ads expire at once
    /// (a TTL of a few milliseconds) cannot make it ask once per round trip.
    private var lastAuctionReloadedAfterExpiry = false
    /// The TTL of the last ad that expired unshown.
    private var lastExpiredTimeToLive: Duration = .zero
    /// The line items whose ads failed to render since the last auction started for another
    /// reason: each render-failure auction excludes them all, so a chain of failures tries each
    /// line item once and ends (without it, two failing line items would alternate forever).
    private var renderFailedLineItems: Set<String> = []
    /// The slot the host last reported (``slotDidResize(to:)``), before it was kept within the
    /// declared slot; `nil` until it reports one. A new configuration's slot bounds it again.
    private var hostSlot: SlotSize?

    /// Creates the machine of one placement: empty, no view, no auction, no timer.
    /// - Parameters:
    ///   - configuration: the placement's configuration (id, format, slot, `refresh_seconds`).
    ///   - foreground: whether the app is in the foreground now.
    ///   - configVersion: the `config_version` of the configuration (R22).
    package init(configuration: MediationConfiguration.Placement, foreground: Bool, configVersion: Int = 0) {
        placementID = configuration.id
        self.configVersion = configVersion
        format = configuration.format
        configuredRefreshSeconds = configuration.refreshSeconds
        refreshes = configuration.format == .banner || configuration.refreshSeconds != nil
        slot = configuration.slot
        declaredSlot = configuration.slot
        isForeground = foreground
        if refreshes {
            let interval = RefreshInterval(configuredSeconds: configuration.refreshSeconds)
            schedule = RefreshSchedule(interval: interval.duration, visible: false, foreground: foreground)
        }
    }

    // MARK: Observing

    /// The current ad, if any (shown or not; a shown one possibly expired).
    package var currentAd: Placement.Ad? {
        if case .ad(let current) = content { return current.placementAd }
        return nil
    }

    /// Whether an auction is running.
    package var isAuctionRunning: Bool { auction != nil }

    /// The instant the next refresh is due if the placement stays seen; `nil` while paused,
    /// loading, destroyed, or for formats that do not refresh (R13).
    package var nextRefreshDue: MediationInstant? { schedule?.dueInstant }

    /// The refresh interval in force (after any server-sent value), or `nil` when it does not refresh.
    package var refreshInterval: Duration? { schedule?.interval }

    /// Whether some view is visible and the app is in the foreground: the placement is seen.
    package var isSeen: Bool { isForeground && views.values.contains(true) }

    // MARK: Events: loading

    /// A caller wants an ad (``Placement/load()``): a fresh current ad is returned at once with
    /// no request (R10); otherwise the caller joins the running auction (R11) or a new one starts.
    /// An unshown ad found expired is released first (R14).
    /// - Parameter now: the current instant.
    /// - Returns: the reply (a result now, or a ticket to wait on) and the actions.
    package mutating func load(at now: MediationInstant) -> (LoadReply, [Action]) {
        guard !isDestroyed else { return (.ready(.destroyed), []) }
        var actions: [Action] = []
        expireIfNeeded(at: now, into: &actions)
        if case .ad(let current) = content, isOffered(current, at: now) {
            settle(at: now, into: &actions)
            return (.ready(.loaded(current.placementAd)), actions)
        }
        let ticket = join(reason: .load, excluding: [], at: now, into: &actions)
        settle(at: now, into: &actions)
        return (.wait(ticket), actions)
    }

    /// The running auction ended with `outcome` (or was cancelled). The winner becomes the
    /// current ad (the previous one retired if shown, else released, R12) and a refresh count
    /// starts with the winner's interval; no fill keeps the current ad and starts a new count
    /// (R13). A winner already expired is released and counts as no fill (R14); a winner after
    /// ``destroy(at:)`` is released. The waiting callers get one result (R11).
    /// - Parameters:
    ///   - outcome: the auction's outcome.
    ///   - now: the current instant.
    package mutating func auctionFinished(_ outcome: MediationEngine.AuctionOutcome, at now: MediationInstant) -> [Action] {
        var actions: [Action] = []
        guard let finished = auction else {
            // No auction of this placement runs: nothing waits for the winner.
            if let winner = outcome.winner { actions.append(.release(winner.ad)) }
            return actions
        }
        auction = nil
        actions.append(.emit(.auctionFinished(placementID: placementID, trace: outcome.trace, at: now)))
        let result = adopt(outcome, at: now, into: &actions)
        settle(at: now, into: &actions)
        if !finished.waiters.isEmpty { actions.append(.deliver(result, to: finished.waiters)) }
        return actions
    }

    // MARK: Events: views and visibility

    /// A host view attaches. A refreshing placement with no ad it would offer and no auction
    /// running starts loading; with a current ad the view shows it and no request is made (R10).
    /// - Parameters:
    ///   - visible: whether the view is visible now.
    ///   - now: the current instant.
    /// - Returns: the view's id (a new one even when destroyed) and the actions.
    package mutating func attachView(visible: Bool, at now: MediationInstant) -> (Placement.ViewID, [Action]) {
        lastViewNumber += 1
        let view = Placement.ViewID(rawValue: lastViewNumber)
        guard !isDestroyed else { return (view, []) }
        var actions: [Action] = []
        views[view] = visible
        viewsChanged(at: now)
        expireIfNeeded(at: now, into: &actions)
        if refreshes, auction == nil, !hasOfferedAd(at: now) {
            startAuction(reason: .load, excluding: [], at: now, into: &actions)
        } else {
            reloadIfSeenAndEmptied(at: now, into: &actions)
        }
        settle(at: now, into: &actions)
        return (view, actions)
    }

    /// A view's visibility changed; only time during which some view is visible (and the app
    /// is in the foreground) counts towards the refresh (R13). An unknown view is ignored.
    /// - Parameters:
    ///   - visible: whether the view is visible.
    ///   - view: the view.
    ///   - now: the current instant.
    package mutating func setVisible(_ visible: Bool, for view: Placement.ViewID, at now: MediationInstant) -> [Action] {
        guard !isDestroyed, views[view] != nil else { return [] }
        var actions: [Action] = []
        views[view] = visible
        viewsChanged(at: now)
        expireIfNeeded(at: now, into: &actions)
        reloadIfSeenAndEmptied(at: now, into: &actions)
        settle(at: now, into: &actions)
        return actions
    }

    /// A view detaches. The current ad stays for the next view (R10); the refresh count freezes
    /// when no view is left visible. An unknown view is ignored.
    /// - Parameters:
    ///   - view: the view.
    ///   - now: the current instant.
    package mutating func detachView(_ view: Placement.ViewID, at now: MediationInstant) -> [Action] {
        guard !isDestroyed, views.removeValue(forKey: view) != nil else { return [] }
        var actions: [Action] = []
        viewsChanged(at: now)
        settle(at: now, into: &actions)
        return actions
    }

    /// The app moved to the foreground or the background. A change older than the last one
    /// applied (by `sequence`) is ignored.
    /// - Parameters:
    ///   - foreground: whether the app is in the foreground.
    ///   - sequence: the engine's number of this change (increasing).
    ///   - now: the current instant.
    package mutating func setForeground(_ foreground: Bool, sequence: UInt64, at now: MediationInstant) -> [Action] {
        guard !isDestroyed, sequence > foregroundSequence else { return [] }
        var actions: [Action] = []
        foregroundSequence = sequence
        isForeground = foreground
        schedule?.setForeground(foreground, at: now)
        expireIfNeeded(at: now, into: &actions)
        reloadIfSeenAndEmptied(at: now, into: &actions)
        settle(at: now, into: &actions)
        return actions
    }

    // MARK: Events: time

    /// The timer set for `wakeUp` fired. A stale wake-up (the timer was set for another instant
    /// since) is ignored. Otherwise an unshown ad at its expiry is released (R14), a due refresh
    /// starts its auction (R13), and an emptied placement that is seen reloads.
    /// - Parameters:
    ///   - wakeUp: the instant the timer was set for.
    ///   - now: the current instant.
    package mutating func timerFired(for wakeUp: MediationInstant, at now: MediationInstant) -> [Action] {
        guard !isDestroyed, timerWakeUp == wakeUp else { return [] }
        var actions: [Action] = []
        timerWakeUp = nil // this timer is spent
        expireIfNeeded(at: now, into: &actions)
        if auction == nil, let schedule, schedule.isDue(at: now) {
            startAuction(reason: .refresh, excluding: [], at: now, into: &actions)
        } else {
            reloadIfSeenAndEmptied(at: now, into: &actions)
        }
        settle(at: now, into: &actions)
        return actions
    }

    // MARK: Events: host reports

    /// The host reports it rendered `ad` in a visible view. The first report of the current ad
    /// that may count counts its one impression (R12): `recordRender()` (unless already called),
    /// `recordImpression()`, a `shown` event with revenue eCPM / 1000 USD. Expiry is checked
    /// first: an expired unshown ad is released and must not be shown (R14). A report counts only
    /// while the app is in the foreground, some view of a banner or native placement is visible
    /// (the host presents full-screen formats itself), and the ad's network allows it (R12a);
    /// otherwise it is refused with the reason and nothing is counted. A refusal because the ad
    /// is not ready yet records the render (`recordRender()`, once) and waits for
    /// ``adBecameReady(_:readiness:at:)``. Later reports, and reports of ads that are not current,
    /// count nothing.
    /// - Parameters:
    ///   - ad: the ad the host rendered.
    ///   - readiness: what the ad says of its impression now (``LoadedAd/impressionReadiness``).
    ///   - now: the current instant.
    /// - Returns: what was decided, and the actions.
    package mutating func reportShown(_ ad: any LoadedAd, readiness: ImpressionReadiness = .ready, at now: MediationInstant) -> (Placement.ShowResult, [Action]) {
        guard !isDestroyed, case .ad(var current) = content, current.ad === ad else {
            if retiredShown.contains(where: { $0.adID == ad.id }) { return (.alreadyShown, []) }
            return (recentlyExpired.contains(ad.id) ? .expired : .notCurrent, [])
        }
        var actions: [Action] = []
        switch showVerdict(on: current, readiness: readiness, at: now) {
        case .alreadyShown:
            return (.alreadyShown, [])
        case .expired:
            expireIfNeeded(at: now, into: &actions)
            settle(at: now, into: &actions)
            return (.expired, actions)
        case .refused(let refusal):
            if case .notReady = refusal {
                current.awaitingReadiness = true
                if !current.renderRecorded {
                    current.renderRecorded = true
                    actions.append(.recordRender(ad))
                }
                content = .ad(current)
            }
            return (.refused(refusal), actions)
        case .counts:
            break
        }
        let impression = countImpression(of: &current, at: now, into: &actions)
        return (.impression(impression), actions)
    }

    /// The current ad says it became ready (``AdEventSink/impressionReady()``, R12a): when the
    /// host already reported it shown and was refused because it was not ready, its impression
    /// counts now if the report would count now (foreground, a visible view for banners and
    /// natives, unexpired, ready). Otherwise, or for an ad that is not current, nothing happens;
    /// a later ``reportShown(_:readiness:at:)`` may still count it.
    /// - Parameters:
    ///   - ad: the ad that became ready.
    ///   - readiness: what the ad says of its impression now.
    ///   - now: the current instant.
    /// - Returns: the actions.
    package mutating func adBecameReady(_ ad: any LoadedAd, readiness: ImpressionReadiness, at now: MediationInstant) -> [Action] {
        guard !isDestroyed, case .ad(var current) = content, current.ad === ad, current.awaitingReadiness,
              case .counts = showVerdict(on: current, readiness: readiness, at: now)
        else { return [] }
        var actions: [Action] = []
        _ = countImpression(of: &current, at: now, into: &actions)
        return actions
    }

    /// The user clicked a shown ad: the current one, or one this placement retired (even after
    /// destroy). Counted once per ad (`recordClick()` and a `clicked` event).
    /// - Parameters:
    ///   - ad: the ad clicked.
    ///   - now: the current instant.
    /// - Returns: whether the click counted, and the actions.
    package mutating func reportClick(_ ad: any LoadedAd, at now: MediationInstant) -> (Bool, [Action]) {
        if case .ad(var current) = content, current.ad === ad {
            guard current.isShown, !current.clicked else { return (false, []) }
            current.clicked = true
            content = .ad(current)
            return (true, [.recordClick(ad), .emit(.clicked(current.summary, at: now))])
        }
        guard let index = retiredShown.firstIndex(where: { $0.adID == ad.id }), !retiredShown[index].clicked else {
            return (false, [])
        }
        retiredShown[index].clicked = true
        return (true, [.recordClick(ad), .emit(.clicked(retiredShown[index].summary, at: now))])
    }

    /// The current ad's creative could not be rendered: it leaves (released unless it was
    /// shown, R12) and the caller joins the running auction or a new one without its line item.
    /// For an ad that is not current this is ``load(at:)``.
    /// - Parameters:
    ///   - ad: the ad that failed to render.
    ///   - now: the current instant.
    /// - Returns: the reply and the actions.
    package mutating func reportRenderFailure(_ ad: any LoadedAd, at now: MediationInstant) -> (LoadReply, [Action]) {
        guard !isDestroyed else { return (.ready(.destroyed), []) }
        guard case .ad(let failed) = content, failed.ad === ad else { return load(at: now) }
        var actions: [Action] = []
        renderFailed(failed, at: now, into: &actions)
        renderFailedLineItems.insert(failed.placementAd.lineItem.id)
        let ticket = join(reason: .renderFailure, excluding: renderFailedLineItems, at: now, into: &actions)
        settle(at: now, into: &actions)
        return (.wait(ticket), actions)
    }

    /// The current ad itself reported that its creative failed (``AdEventSink/renderFailed(_:)``,
    /// R12a): as ``reportRenderFailure(_:at:)`` with no caller waiting: it leaves (released
    /// unless shown) and a new auction runs without its line item (or the running one goes on).
    /// A report from an ad that is not current (it was replaced, released or expired) is ignored.
    /// - Parameters:
    ///   - ad: the ad that failed.
    ///   - now: the current instant.
    /// - Returns: the actions.
    package mutating func adReportedRenderFailure(_ ad: any LoadedAd, at now: MediationInstant) -> [Action] {
        guard !isDestroyed, case .ad(let failed) = content, failed.ad === ad else { return [] }
        var actions: [Action] = []
        renderFailed(failed, at: now, into: &actions)
        renderFailedLineItems.insert(failed.placementAd.lineItem.id)
        if auction == nil {
            startAuction(reason: .renderFailure, excluding: renderFailedLineItems, at: now, into: &actions)
        }
        settle(at: now, into: &actions)
        return actions
    }

    /// The slot changed size: later auctions ask for `slot` kept within the declared slot
    /// (R8a: a host may shrink the slot it configured, e.g. a narrower cell, never grow it).
    /// Returns the current ad to ask to refit (`LoadedAd.refit(to:)`) to ``slot``; report its
    /// answer with ``adRefitted(_:to:size:)``.
    /// - Parameter slot: the new slot bounds in points, as the host reports them.
    /// - Returns: the ad to ask, or `nil` (no current ad, or destroyed).
    package mutating func slotDidResize(to slot: SlotSize) -> (any LoadedAd)? {
        hostSlot = slot
        self.slot = slot.clamped(to: declaredSlot)
        guard !isDestroyed, case .ad(let current) = content else { return nil }
        return current.ad
    }

    /// The current ad answered a refit to `slot`: a size that fits becomes its size in events;
    /// otherwise it stays as it is and the next auction asks for the new size.
    /// - Parameters:
    ///   - ad: the ad that was asked.
    ///   - slot: the slot it was asked to fit.
    ///   - size: its answer: the refitted size in points, or `nil` when it cannot refit.
    /// - Returns: the size it now has when it refitted (else `nil`), and the actions.
    package mutating func adRefitted(_ ad: any LoadedAd, to slot: SlotSize, size: AdSize?) -> (AdSize?, [Action]) {
        guard !isDestroyed, case .ad(var current) = content, current.ad === ad else { return (nil, []) }
        guard let size, NetworkValueBounds.isValidAdSize(size), slot.clamped(to: declaredSlot).fits(size) else {
            return (nil, [.log(.debug, "slot resized; the current ad cannot refit, the next auction asks the new size")])
        }
        current.summary.size = size
        content = .ad(current)
        return (size, [])
    }

    /// Ends the placement: the timer stops, a running auction is cancelled (its callers get
    /// `.destroyed` when it reports its end), the current ad is retired if shown, else released.
    /// Later calls do nothing.
    /// - Parameter now: the current instant.
    package mutating func destroy(at now: MediationInstant) -> [Action] {
        guard !isDestroyed else { return [] }
        isDestroyed = true
        var actions: [Action] = []
        settle(at: now, into: &actions) // destroyed: no due instant and no timer
        if auction != nil { actions.append(.cancelAuction) }
        schedule?.stop(at: now)
        views.removeAll()
        if case .ad(let current) = content { retire(current, reason: .destroyed, at: now, into: &actions) }
        content = .empty
        actions.append(.ended)
        return actions
    }

    // MARK: Events: configuration

    /// A newer configuration of the same placement (same id, format and banner sizing) is in
    /// force (R22): its next auction runs under it. The current ad stays until its normal
    /// refresh or expiry, and a running refresh count keeps its interval: the new
    /// `refresh_seconds` applies from the next count. Later slots are bounded by the new
    /// declared slot (R8a), from the host's last reported slot.
    /// - Parameters:
    ///   - configuration: the placement's new configuration.
    ///   - configVersion: its `config_version`.
    ///   - now: the current instant.
    /// - Returns: the actions.
    package mutating func configurationChanged(to configuration: MediationConfiguration.Placement, configVersion: Int, at now: MediationInstant) -> [Action] {
        guard !isDestroyed else { return [] }
        self.configVersion = configVersion
        configuredRefreshSeconds = configuration.refreshSeconds
        declaredSlot = configuration.slot
        slot = (hostSlot ?? configuration.slot).clamped(to: configuration.slot)
        var actions: [Action] = []
        settle(at: now, into: &actions)
        return actions
    }

    // MARK: Decisions

    /// Whether `current` may be handed out at `now`: unexpired (R14), and not used up (a shown
    /// full-screen ad is; banners and natives keep sharing their shown ad, R10).
    private func isOffered(_ current: CurrentAd, at now: MediationInstant) -> Bool {
        guard current.placementAd.expiry.isUsable(at: now) else { return false }
        switch format {
        case .banner, .native: return true
        case .interstitial, .appOpen, .rewarded: return !current.isShown
        }
    }

    /// Whether a show of `current` at `now` counts: the one place where an impression is
    /// allowed or refused (R12, R12a, R14). Full-screen formats (interstitial, app open,
    /// rewarded) are presented by the host over the whole app, so for them the app being in the
    /// foreground stands for a visible view; banners and natives need a visible attached view.
    private func showVerdict(on current: CurrentAd, readiness: ImpressionReadiness, at now: MediationInstant) -> ShowVerdict {
        if current.isShown { return .alreadyShown }
        guard current.placementAd.expiry.isUsable(at: now) else { return .expired }
        guard isForeground else { return .refused(.background) }
        switch format {
        case .banner, .native:
            guard views.values.contains(true) else { return .refused(.noVisibleView) }
        case .interstitial, .appOpen, .rewarded:
            break
        }
        switch readiness {
        case .ready: return .counts
        case .notReady(let reason): return .refused(.notReady(reason))
        case .notAllowed(let reason): return .refused(.notAllowed(reason))
        }
    }

    /// Counts the current ad's one impression (R12): `recordRender()` unless already called,
    /// `recordImpression()`, the `shown` event.
    private mutating func countImpression(of current: inout CurrentAd, at now: MediationInstant, into actions: inout [Action]) -> MediationEvent.Impression {
        current.placementAd.isShown = true
        current.awaitingReadiness = false
        if !current.renderRecorded {
            current.renderRecorded = true
            actions.append(.recordRender(current.ad))
        }
        content = .ad(current)
        let impression = MediationEvent.Impression(ad: current.summary)
        actions.append(.recordImpression(current.ad))
        actions.append(.emit(.shown(impression, at: now)))
        settle(at: now, into: &actions)
        return impression
    }

    /// A current ad's creative failed: it leaves (the `render_failed` event; retired if shown,
    /// else released) and the placement is empty.
    private mutating func renderFailed(_ failed: CurrentAd, at now: MediationInstant, into actions: inout [Action]) {
        content = .empty
        actions.append(.emit(.renderFailed(failed.summary, at: now)))
        retire(failed, reason: .renderFailure, at: now, into: &actions)
    }

    /// Whether there is a current ad and it is offered at `now`.
    private func hasOfferedAd(at now: MediationInstant) -> Bool {
        guard case .ad(let current) = content else { return false }
        return isOffered(current, at: now)
    }

    /// When a new ad expires (R14): its network's TTL from its arrival, else its format's
    /// default. The one place that bounds a network's TTL (R16): at most the format's default,
    /// zero or less expired on arrival (``NetworkValueBounds/timeToLive(_:format:)``).
    private func expiry(of winner: MediationEngine.AuctionOutcome.Winner) -> Placement.Ad.Expiry {
        Placement.Ad.Expiry(loadedAt: winner.arrivedAt, timeToLive: NetworkValueBounds.timeToLive(winner.ad.timeToLive, format: format), format: format)
    }

    /// The refresh interval while `winner` is the current ad (R13): the one configured for the
    /// auction's audience (its segment's or experiment variant's `refresh_seconds`, else the
    /// placement's), or the network's server-sent value clamped to 30 s ... 1 day with a
    /// warning. The one place that bounds it (R16).
    private func refreshInterval(for winner: MediationEngine.AuctionOutcome.Winner?, of outcome: MediationEngine.AuctionOutcome) -> RefreshInterval {
        RefreshInterval(configuredSeconds: outcome.refreshSeconds ?? configuredRefreshSeconds, serverSeconds: winner?.ad.serverRefreshSeconds)
    }

    /// A new refresh count after an auction that brought no usable ad: the current ad, if any,
    /// keeps its interval; an empty placement counts the interval configured for the auction's
    /// audience.
    private mutating func restartCount(after outcome: MediationEngine.AuctionOutcome, at now: MediationInstant) {
        if case .ad = content {
            schedule?.start(at: now)
        } else {
            let interval = refreshInterval(for: nil, of: outcome).duration
            schedule?.start(at: now, interval: interval)
        }
    }

    /// Applies an auction's outcome and says what its callers get.
    private mutating func adopt(_ outcome: MediationEngine.AuctionOutcome, at now: MediationInstant, into actions: inout [Action]) -> Placement.LoadResult {
        guard let winner = outcome.winner else {
            guard !isDestroyed else { return .destroyed }
            restartCount(after: outcome, at: now) // a failed auction keeps the current ad and starts a new count
            return .noFill(outcome.trace)
        }
        let placementAd = Placement.Ad(ad: winner.ad, lineItem: winner.lineItem, eCPM: winner.eCPM, auctionID: outcome.trace.auctionID, expiry: expiry(of: winner))
        let won = CurrentAd(placementAd: placementAd, summary: summary(of: winner, trace: outcome.trace))
        guard !isDestroyed else {
            release(won, reason: .destroyed, at: now, into: &actions)
            return .destroyed
        }
        guard placementAd.expiry.isUsable(at: now) else {
            actions.append(.emit(.expired(won.summary, at: now)))
            release(won, reason: .expired, at: now, into: &actions)
            restartCount(after: outcome, at: now)
            return .noFill(outcome.trace)
        }
        let previous = content
        content = .ad(won)
        actions.append(.emit(.adLoaded(won.summary, expiresAt: placementAd.expiry.expiresAt, at: now)))
        if case .ad(let previous) = previous { retire(previous, reason: .replaced, at: now, into: &actions) }
        if schedule != nil {
            let interval = refreshInterval(for: winner, of: outcome)
            if let warning = interval.warning { actions.append(.log(.warning, "\(warning) (network \(winner.ad.network))")) }
            schedule?.start(at: now, interval: interval.duration)
        }
        return .loaded(placementAd)
    }

    /// Adds a caller to the running auction, starting one if none runs (R11).
    private mutating func join(reason: MediationEvent.AuctionReason, excluding excluded: Set<String>, at now: MediationInstant, into actions: inout [Action]) -> LoadTicket {
        if auction == nil { startAuction(reason: reason, excluding: excluded, at: now, into: &actions) }
        lastTicket += 1
        let ticket = LoadTicket(rawValue: lastTicket)
        auction?.waiters.append(ticket)
        return ticket
    }

    /// Starts an auction now; the refresh count stops while it runs (R13).
    private mutating func startAuction(reason: MediationEvent.AuctionReason, excluding excluded: Set<String>, at now: MediationInstant, into actions: inout [Action]) {
        schedule?.stop(at: now)
        lastAuctionReloadedAfterExpiry = false
        if reason != .renderFailure { renderFailedLineItems.removeAll() }
        if case .expired = content { content = .empty }
        actions.append(.emit(.auctionStarted(placementID: placementID, reason: reason, configVersion: configVersion, at: now)))
        actions.append(.startAuction(AuctionStart(reason: reason, excludedLineItems: excluded, slot: slot, startedAt: now)))
        auction = RunningAuction()
    }

    /// Releases the current ad once if it expired unshown (R14); the placement is then empty
    /// until its next load or refresh (or, refreshing, until it is seen again).
    private mutating func expireIfNeeded(at now: MediationInstant, into actions: inout [Action]) {
        guard case .ad(let expired) = content, !expired.isShown, !expired.placementAd.expiry.isUsable(at: now) else { return }
        content = .expired
        lastExpiredTimeToLive = expired.placementAd.expiry.timeToLive
        remember(&recentlyExpired, expired.ad.id)
        actions.append(.emit(.expired(expired.summary, at: now)))
        release(expired, reason: .expired, at: now, into: &actions)
    }

    /// A refreshing placement emptied by expiry loads as soon as it is seen again.
    private mutating func reloadIfSeenAndEmptied(at now: MediationInstant, into actions: inout [Action]) {
        guard refreshes, case .expired = content, auction == nil, isSeen else { return }
        let shortLived = lastExpiredTimeToLive < .seconds(MediationConfiguration.Placement.minimumRefreshSeconds)
        guard !(lastAuctionReloadedAfterExpiry && shortLived) else { return }
        startAuction(reason: .load, excluding: [], at: now, into: &actions)
        lastAuctionReloadedAfterExpiry = true
    }

    /// An ad stops being the current one: a shown ad is retired (never released, R12), an
    /// unshown one released once.
    private mutating func retire(_ old: CurrentAd, reason: MediationEvent.ReleaseReason, at now: MediationInstant, into actions: inout [Action]) {
        guard old.isShown else {
            release(old, reason: reason, at: now, into: &actions)
            return
        }
        actions.append(.emit(.retired(old.summary, at: now)))
        retiredShown.append(RetiredShown(adID: old.ad.id, summary: old.summary, clicked: old.clicked))
        if retiredShown.count > Self.memory { retiredShown.removeFirst(retiredShown.count - Self.memory) }
    }

    private func release(_ old: CurrentAd, reason: MediationEvent.ReleaseReason, at now: MediationInstant, into actions: inout [Action]) {
        actions.append(.release(old.ad))
        actions.append(.emit(.released(old.summary, reason: reason, at: now)))
    }

    /// Announces a new refresh due instant, and sets the one timer to the earlier of the due
    /// instant and the current unshown ad's expiry when that changed.
    private mutating func settle(at now: MediationInstant, into actions: inout [Action]) {
        let due = isDestroyed ? nil : schedule?.dueInstant
        if let due, due != announcedDue {
            actions.append(.emit(.refreshScheduled(placementID: placementID, dueAt: due, configVersion: configVersion, at: now)))
        }
        announcedDue = due
        var wakeUp = due
        if !isDestroyed, case .ad(let current) = content, !current.isShown {
            let expiresAt = current.placementAd.expiry.expiresAt
            wakeUp = wakeUp.map { min($0, expiresAt) } ?? expiresAt
        }
        guard wakeUp != timerWakeUp else { return }
        timerWakeUp = wakeUp
        actions.append(.setTimer(at: wakeUp))
    }

    /// Tells the refresh count whether some view is visible now.
    private mutating func viewsChanged(at now: MediationInstant) {
        let visible = views.values.contains(true)
        schedule?.setVisible(visible, at: now)
    }

    private func remember(_ ids: inout [String], _ id: String) {
        ids.append(id)
        if ids.count > Self.memory { ids.removeFirst(ids.count - Self.memory) }
    }

    private func summary(of winner: MediationEngine.AuctionOutcome.Winner, trace: AuctionTrace) -> MediationEvent.AdSummary {
        var summary = MediationEvent.AdSummary(
            placementID: placementID,
            adID: AuctionStateMachine.bounded(winner.ad.id),
            creativeID: AuctionStateMachine.bounded(winner.ad.creativeID),
            network: winner.ad.network,
            lineItemID: winner.lineItem.id,
            format: winner.ad.format,
            size: winner.ad.size,
            eCPM: winner.eCPM,
            configVersion: trace.configVersion,
            experiment: trace.experiment
        )
        summary.country = trace.country
        summary.segment = trace.segment
        return summary
    }
}

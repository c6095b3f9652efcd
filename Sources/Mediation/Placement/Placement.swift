/// The engine's controller of one placement (engine rules R10 to R14): it holds the
/// placement's one current ad, runs its auctions one at a time, shares the ad with every view,
/// refreshes banners on visible foreground time, expires unshown ads, and reports events.
///
/// Get it from ``MediationEngine/placement(_:)``; there is one per placement id.
///
/// Life cycle of an ad: an auction's winner becomes the **current** ad (the previous one is
/// retired if it was shown, else released) and is handed an ``AdEventSink``
/// (``LoadedAd/attach(_:)``); the host renders it and reports ``reportShown(_:)`` (one
/// impression, R12, counted only while the placement is seen and the ad allows it, R12a); a
/// refresh, a render failure (reported by the host, or by the ad through its sink) or
/// ``destroy()`` replaces it. The engine calls `releaseResources()` exactly once on every ad it held that was
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
///
/// The decisions live in `PlacementStateMachine` (a pure value); this actor is its driver: it feeds the
/// machine each call with the clock's instant and performs the actions: it runs the auction in
/// one task on the clock, keeps one timer task (replaced only when the machine's wake-up
/// instant changes), emits the events, calls the ads' hooks and resumes the callers waiting on
/// an auction.
public actor Placement {
    /// The placement id, e.g. `"home_banner"`.
    public nonisolated let id: String
    /// Its configuration in force: its next auction's (a newer configuration of the same
    /// placement replaces it between auctions, engine rule R22).
    public nonisolated var configuration: MediationConfiguration.Placement { shared.withLock { $0 } }
    /// Whether it refreshes (banners, or any placement with `refresh_seconds`, R13).
    public nonisolated let refreshes: Bool

    /// Builds the request of one auction from the slot, the placement's host context and the
    /// start instant.
    typealias RequestBuilder = @Sendable (MediationConfiguration.Placement, SlotSize, AdRequest.Context?, MediationInstant) -> AdRequest

    private typealias Machine = PlacementStateMachine

    /// The runner of its next auction, under the configuration in force.
    private var entry: PlacementEntry
    /// The configuration in force, readable from any thread (``configuration``).
    private nonisolated let shared: Locked<MediationConfiguration.Placement>
    private let leases: PlacementLeases
    /// The current ad the placement holds a use of its auction's configuration for (so its
    /// network's adapter is not shut down while it is current), and that configuration.
    private weak var leasedAd: (any LoadedAd)?
    private var leasedGeneration: UInt64?
    private let clock: any MediationClock
    private let logger: any MediationLogger
    private let events: EventHub
    private let buildRequest: RequestBuilder
    private let onDestroy: @Sendable (Placement) -> Void
    private let logSource: String
    /// Which experiment and variant each auction runs under, and the exposures.
    private let experiments: ExperimentRuntime?
    /// The machine's `auction_started` event, held until its `startAuction` action (which
    /// follows it) has chosen the experiment and the audience it carries.
    private var pendingStart: MediationEvent?
    /// The experiment of the last auction, which the next refresh schedule carries.
    private var lastArm: MediationEvent.ExperimentArm?
    /// The engine's caps (`docs/caps.md`); `nil` outside an engine (nothing capped).
    private let caps: CapKeeper?
    /// The segment and experiment arm of the auction that won the current ad (or of the last
    /// auction that filled): a show is held to that form's caps and pacing.
    private var capLabel: (segment: String?, arm: MediationEvent.ExperimentArm?)?
    /// The full-screen ad whose impression this placement counted last, until its dismissal:
    /// the one ad ``reportDismissed(_:)`` ends the presentation of.
    private weak var presentedAd: (any LoadedAd)?

    private var machine: Machine
    private var hostContext: AdRequest.Context?
    /// The running auction's task, to cancel on destroy.
    private var auctionTask: Task<Void, Never>?
    /// The one timer task and the instant it wakes.
    private var timer: (task: Task<Void, Never>, wakeAt: MediationInstant)?
    /// The callers waiting for the running auction, by ticket.
    private var waiting: [Machine.LoadTicket: CheckedContinuation<Placement.LoadResult, Never>] = [:]
    /// The ad last handed an event sink (``LoadedAd/attach(_:)``); weak, so a new ad at a freed
    /// ad's address is never taken for it.
    private weak var attachedAd: (any LoadedAd)?

    init(
        entry: PlacementEntry,
        clock: any MediationClock,
        logger: any MediationLogger,
        events: EventHub,
        foreground: Bool,
        buildRequest: @escaping RequestBuilder,
        leases: PlacementLeases = PlacementLeases(),
        experiments: ExperimentRuntime? = nil,
        caps: CapKeeper? = nil,
        onDestroy: @escaping @Sendable (Placement) -> Void
    ) {
        self.caps = caps
        let configuration = entry.configuration
        id = configuration.id
        self.entry = entry
        shared = Locked(configuration)
        self.leases = leases
        self.clock = clock
        self.logger = logger
        self.events = events
        self.buildRequest = buildRequest
        self.onDestroy = onDestroy
        self.experiments = experiments
        logSource = "placement.\(configuration.id)"
        machine = PlacementStateMachine(configuration: configuration, foreground: foreground, configVersion: entry.auction.configVersion)
        refreshes = machine.refreshes
    }

    // MARK: - Observing

    /// The current ad, if the placement holds one (shown or not, possibly expired if shown).
    public var currentAd: Placement.Ad? { machine.currentAd }

    /// Whether an auction is running.
    public var isLoading: Bool { machine.isAuctionRunning }

    /// Whether ``destroy()`` was called.
    public var destroyed: Bool { machine.isDestroyed }

    /// The instant the next refresh is due if the placement stays seen; `nil` while paused,
    /// loading, or for formats that do not refresh (R13).
    public var nextRefreshDue: MediationInstant? { machine.nextRefreshDue }

    /// The current refresh interval (after any server-sent value), or `nil` when it does not refresh.
    public var refreshInterval: Duration? { machine.refreshInterval }

    /// The instant the placement's one timer task wakes (the next refresh or the current
    /// unshown ad's expiry), or `nil` when no timer runs.
    public var timerWakeUp: MediationInstant? { timer?.wakeAt }

    /// The attached views and whether each is visible.
    public var attachedViews: [Placement.ViewID: Bool] { machine.views }

    // MARK: - Loading

    /// Returns the current ad when it is fresh (no request, R10); otherwise joins the running
    /// auction (R11) or starts one. Every caller that joins one auction gets its one outcome;
    /// never an "already loading" error. Cancelling a caller does not cancel the auction.
    /// - Returns: the fresh ad, no fill with the trace, or `.destroyed`.
    public func load() async -> Placement.LoadResult {
        let (reply, actions) = machine.load(at: clock.now)
        perform(actions)
        return await result(of: reply)
    }

    /// Sets the conversation and screen context sent with this placement's next requests
    /// (e.g. a chat strip fed the conversation); `nil` uses the engine's provider. Never logged
    /// or put into events.
    /// - Parameter context: the context.
    public func setHostContext(_ context: AdRequest.Context?) {
        hostContext = context
    }

    // MARK: - Views

    /// Attaches a host view. A refreshing placement with no usable ad and no running auction
    /// starts loading; with a current ad the view shows that ad and no request is made (R10).
    /// - Parameter visible: whether the view is visible now.
    /// - Returns: the view's id for ``setVisible(_:for:)`` and ``detachView(_:)``.
    public func attachView(visible: Bool = false) -> Placement.ViewID {
        let (view, actions) = machine.attachView(visible: visible, at: clock.now)
        perform(actions)
        return view
    }

    /// Records a view's visibility; only time during which some view is visible (and the app
    /// is in the foreground) counts towards the refresh (R13).
    /// - Parameters:
    ///   - visible: whether the view is visible.
    ///   - view: the view; an unknown (detached) view is ignored.
    public func setVisible(_ visible: Bool, for view: Placement.ViewID) {
        perform(machine.setVisible(visible, for: view, at: clock.now))
    }

    /// Detaches a view. The current ad stays for the next view (R10); the refresh count freezes
    /// when no view is left visible.
    /// - Parameter view: the view; an unknown view is ignored.
    public func detachView(_ view: Placement.ViewID) {
        perform(machine.detachView(view, at: clock.now))
    }

    /// The app's foreground state, fanned out by ``MediationEngine/setForeground(_:)``; a
    /// change older than the last one applied (by `sequence`) is ignored.
    func setForeground(_ foreground: Bool, sequence: UInt64) {
        perform(machine.setForeground(foreground, sequence: sequence, at: clock.now))
    }

    /// A newer configuration of this placement is in force (R22, from
    /// ``MediationEngine/apply(_:version:source:announce:)``): the next auction runs under it; a running
    /// auction finishes under its own, and the current ad stays until its normal refresh or
    /// expiry.
    func adopt(_ entry: PlacementEntry) {
        guard !machine.isDestroyed else { return }
        self.entry = entry
        shared.withLock { $0 = entry.configuration }
        perform(machine.configurationChanged(to: entry.configuration, configVersion: entry.auction.configVersion, at: clock.now))
    }

    // MARK: - Host reports

    /// The host rendered `ad` in a visible view. The first report of the current ad that may
    /// count counts its one impression (`recordRender()`, `recordImpression()`, a `shown` event
    /// with revenue = eCPM / 1000 USD); later reports count nothing (R12). Expiry is checked
    /// first: an expired unshown ad is released and must not be shown (R14).
    ///
    /// A report counts only while the app is in the foreground, some view of the placement is
    /// visible (banners and natives; full-screen formats need only the foreground, the host
    /// presents them over the app) and the ad's network allows it
    /// (``LoadedAd/impressionReadiness``); otherwise it is refused with the reason and nothing is
    /// counted (R12a). An ad refused as not ready yet (an HTML5 ad loading) is told it was
    /// rendered, and its impression counts when it says it is ready, if the placement is still
    /// seen then.
    /// - Parameter ad: the ad the host rendered.
    /// - Returns: what was decided.
    ///
    /// Caps, pacing and the one-full-screen-ad rule are checked first (`docs/caps.md`): in the
    /// background a full-screen ad is refused (``Placement/ShowResult/Refusal/background``);
    /// a rule that binds refuses it with ``Placement/ShowResult/Refusal/capped(_:)`` (and a
    /// `capped` event) naming the rule and when it frees.
    public func reportShown(_ ad: any LoadedAd) -> Placement.ShowResult {
        let now = clock.now
        guard let caps, let current = machine.currentAd, current.ad === ad, !current.isShown else {
            let (result, actions) = machine.reportShown(ad, readiness: ad.impressionReadiness, at: now)
            perform(actions)
            return result
        }
        guard caps.isForeground else { return .refused(.background) }
        var outcome: (Placement.ShowResult, [Machine.Action])?
        let readiness = ad.impressionReadiness
        let refusal = caps.admitShow(placement: capForm, lineItem: current.lineItem, at: now) { () -> Bool in
            let (result, actions) = machine.reportShown(ad, readiness: readiness, at: now)
            outcome = (result, actions)
            if case .impression = result { return true }
            return false
        }
        guard let outcome else {
            let refusal = refusal ?? CapRefusal(cap: "app", retryAt: nil)
            events.emit(.capped(placementID: id, lineItemID: current.lineItem.id, refusal: refusal, at: now))
            return .refused(.capped(refusal))
        }
        perform(outcome.1)
        if case .impression = outcome.0, configuration.format.isFullScreen { presentedAd = ad }
        return outcome.0
    }

    /// The host dismissed the full-screen `ad` (the user closed it): the gap before the next
    /// full-screen ad of any placement counts from now (`full_screen_gap_seconds`,
    /// `docs/caps.md`). Without this report a full-screen ad counts as presented for 10
    /// minutes after its impression. An ad of another format, or not this placement's
    /// presented ad, is ignored.
    /// - Parameter ad: the ad dismissed.
    public func reportDismissed(_ ad: any LoadedAd) {
        guard let caps, configuration.format.isFullScreen, let presented = presentedAd, presented === ad else { return }
        presentedAd = nil
        caps.dismissed(placementID: id, at: clock.now)
    }

    /// When this placement may next show an ad by its caps, pacing and the one-full-screen-ad
    /// rule (`docs/caps.md`): now when nothing refuses it (a current ad's line item counted),
    /// a later instant on the engine's clock, or `nil` when no instant frees it (a session cap,
    /// another full-screen ad on screen, or the app in the background).
    public var nextShowInstant: MediationInstant? {
        let now = clock.now
        guard let caps else { return now }
        if configuration.format.isFullScreen, !caps.isForeground { return nil }
        guard let refusal = caps.refusal(placement: capForm, lineItem: machine.currentAd?.lineItem, at: now) else { return now }
        return refusal.retryAt
    }

    /// What refuses a show of this placement now, or `nil` when it may show
    /// (``nextShowInstant`` says when).
    public var showRefusal: CapRefusal? {
        caps?.refusal(placement: capForm, lineItem: machine.currentAd?.lineItem, at: clock.now)
    }

    /// The placement's form whose caps and pacing a show is held to (`docs/caps.md`): under
    /// the configuration in force, the form of the segment and experiment variant the current
    /// ad's auction ran in (before any filled auction, the configured placement).
    private var capForm: MediationConfiguration.Placement {
        guard let capLabel else { return configuration }
        let runner = capLabel.arm.flatMap { entry.variants[ExperimentRuntime.variantKey(experimentID: $0.experimentID, variantID: $0.variantID)] } ?? entry
        return runner.auction.placement(segment: capLabel.segment)
    }

    /// The user clicked a shown ad (the current one, or one a refresh just retired). Counted
    /// once per ad (`recordClick()` and a `clicked` event).
    /// - Parameter ad: the ad clicked.
    /// - Returns: whether the click was counted.
    @discardableResult
    public func reportClick(_ ad: any LoadedAd) -> Bool {
        let (counted, actions) = machine.reportClick(ad, at: clock.now)
        perform(actions)
        return counted
    }

    /// The host could not render the current ad's creative: it is released (unless it was
    /// already shown) and a new auction runs without its line item. For an ad that is not
    /// current this is ``load()``.
    /// - Parameter ad: the ad that failed to render.
    /// - Returns: the outcome of the new auction (or of the one already running).
    public func reportRenderFailure(_ ad: any LoadedAd) async -> Placement.LoadResult {
        let (reply, actions) = machine.reportRenderFailure(ad, at: clock.now)
        perform(actions)
        return await result(of: reply)
    }

    /// The slot changed size. The new slot is kept within the slot the configuration declares
    /// (engine rule R8a: a host may shrink its slot, never grow it past `slot.max_width` /
    /// `slot.max_height`). The current ad is asked to refit (`LoadedAd.refit(to:)`) to that
    /// slot; when it cannot, it stays and the next auction asks for the new size.
    /// - Parameter slot: the new slot bounds in points.
    /// - Returns: the current ad's refitted size in points, or `nil` when it did not refit.
    @discardableResult
    public func slotDidResize(_ slot: SlotSize) -> AdSize? {
        guard let ad = machine.slotDidResize(to: slot) else { return nil }
        let bounded = machine.slot // within the declared slot (R8a)
        let (size, actions) = machine.adRefitted(ad, to: bounded, size: ad.refit(to: bounded))
        perform(actions)
        return size
    }

    /// Ends the placement: the refresh timer stops, a running auction is cancelled (its
    /// winner, if any, released), the current ad is retired if shown, else released. Later
    /// calls do nothing and ``load()`` returns `.destroyed`; the engine makes a new controller
    /// for the id on the next ``MediationEngine/placement(_:)``.
    public func destroy() {
        perform(machine.destroy(at: clock.now))
    }

    // MARK: - Driving

    /// The caller's result: at once, or when the running auction delivers it.
    private func result(of reply: Machine.LoadReply) async -> Placement.LoadResult {
        switch reply {
        case .ready(let result):
            return result
        case .wait(let ticket):
            // The body runs on this actor before it suspends, and nothing has awaited since
            // the machine issued the ticket, so the delivery cannot come first.
            return await withCheckedContinuation { waiting[ticket] = $0 }
        }
    }

    private func auctionDidFinish(_ outcome: MediationEngine.AuctionOutcome, generation: UInt64) {
        auctionTask = nil
        if outcome.winner != nil { capLabel = (outcome.trace.segment, outcome.trace.experiment) }
        perform(machine.auctionFinished(outcome, at: clock.now), winnerGeneration: generation)
        attachCurrentAd()
        leases.release(generation) // the auction's own use, after its winner took one
    }

    /// Hands the current ad, when it is new, the sink through which it reports becoming ready
    /// and render failures (R12a). Its calls hop onto this actor in tasks on the clock; the sink
    /// holds the ad and the placement weakly.
    private func attachCurrentAd() {
        guard let ad = machine.currentAd?.ad, ad !== attachedAd else { return }
        attachedAd = ad
        let clock = self.clock
        ad.attach(AdEventSink(
            impressionReady: { [weak self, weak ad] in
                guard let ad else { return }
                clock.startTask { await self?.adBecameReady(ad) }
            },
            renderFailed: { [weak self, weak ad] _ in
                guard let ad else { return }
                clock.startTask { await self?.adReportedRenderFailure(ad) }
            }
        ))
    }

    /// `ad` said it became ready: a report refused as not ready counts now if it may (R12a).
    private func adBecameReady(_ ad: any LoadedAd) {
        let now = clock.now
        guard let caps, let current = machine.currentAd, current.ad === ad else {
            perform(machine.adBecameReady(ad, readiness: ad.impressionReadiness, at: now))
            return
        }
        guard caps.isForeground else { return }
        let readiness = ad.impressionReadiness
        var performed: [Machine.Action] = []
        let refusal = caps.admitShow(placement: capForm, lineItem: current.lineItem, at: now) { () -> Bool in
            performed = machine.adBecameReady(ad, readiness: readiness, at: now)
            return performed.contains { if case .recordImpression = $0 { true } else { false } }
        }
        if let refusal {
            events.emit(.capped(placementID: id, lineItemID: current.lineItem.id, refusal: refusal, at: now))
            return
        }
        perform(performed)
        if configuration.format.isFullScreen, performed.contains(where: { if case .recordImpression = $0 { true } else { false } }) { presentedAd = ad }
    }

    /// `ad` said its creative failed: the render-failure path, if it is still current.
    private func adReportedRenderFailure(_ ad: any LoadedAd) {
        perform(machine.adReportedRenderFailure(ad, at: clock.now))
    }

    private func timerFired(for wakeUp: MediationInstant) {
        if timer?.wakeAt == wakeUp { timer = nil }
        perform(machine.timerFired(for: wakeUp, at: clock.now))
    }

    /// Performs the machine's actions in order, then moves the current ad's use of its
    /// configuration: a new current ad (the winner of an auction under `winnerGeneration`)
    /// takes one, an ad that stopped being current gives its own back.
    private func perform(_ actions: [Machine.Action], winnerGeneration: UInt64? = nil) {
        performActions(actions)
        let current = machine.currentAd?.ad
        guard current !== leasedAd || (current == nil && leasedGeneration != nil) else { return }
        let previous = leasedGeneration
        leasedAd = current
        leasedGeneration = current == nil ? nil : (winnerGeneration ?? previous)
        if let generation = leasedGeneration { leases.acquire(generation) }
        if let previous { leases.release(previous) }
    }

    /// Performs the machine's actions in order.
    private func performActions(_ actions: [Machine.Action]) {
        for action in actions {
            switch action {
            case .emit(let event):
                emit(event)
            case .startAuction(let start):
                startAuction(start)
            case .cancelAuction:
                auctionTask?.cancel()
            case .setTimer(let wakeUp):
                setTimer(at: wakeUp)
            case .release(let ad):
                ad.releaseResources()
            case .recordRender(let ad):
                ad.recordRender()
            case .recordImpression(let ad):
                ad.recordImpression()
            case .recordClick(let ad):
                ad.recordClick()
            case .deliver(let result, let tickets):
                for ticket in tickets {
                    waiting.removeValue(forKey: ticket)?.resume(returning: result)
                }
            case .log(let level, let message):
                logger.log(level, message, source: logSource)
            case .ended:
                onDestroy(self)
            }
        }
    }

    /// Publishes one of the machine's events. An auction's start is held for the auction's
    /// `startAuction` action, which publishes it (``startAuction(_:)``); a refresh schedule
    /// carries the last auction's experiment; a `shown` event gets its wall-clock day.
    private func emit(_ event: MediationEvent) {
        switch event {
        case .auctionStarted:
            pendingStart = event
        case .refreshScheduled:
            events.emit(event.tagged(with: lastArm))
        case .shown(var impression, let at):
            impression.day = experiments?.today
            events.emit(.shown(impression, at: at))
        default:
            events.emit(event)
        }
    }

    /// Runs the auction in a task on the clock; its outcome goes back to the machine.
    /// The auction runs under the configuration in force when it starts, which it holds to its
    /// end (R22); under an experiment's variant that overrides the placement, that variant's
    /// placement, and its trace, late answers and ad carry the experiment.
    ///
    /// First the experiment is resolved (the install's exposure published, the first time) and
    /// the request's audience chooses the segment and country; then the held `auction_started`
    /// is published carrying the experiment, the country and the segment.
    private func startAuction(_ start: Machine.AuctionStart) {
        let resolution = experiments?.resolve(self.entry, at: start.startedAt) ?? ExperimentRuntime.Resolution()
        lastArm = resolution.arm
        let entry = resolution.entry ?? self.entry
        let arm = resolution.arm
        let request = buildRequest(entry.configuration, start.slot, hostContext, start.startedAt)
        let choice = entry.auction.choice(for: request)
        let events = self.events
        if let exposure = resolution.exposure { events.emit(.exposure(exposure)) }
        let started = pendingStart ?? .auctionStarted(placementID: id, reason: start.reason, configVersion: self.entry.auction.configVersion, at: start.startedAt)
        pendingStart = nil
        events.emit(started.tagged(with: arm).tagged(withAudience: choice.audience))
        // Caps checked before the auction: a line item whose ad, loaded now, could not be
        // shown before it expires is not asked (`docs/caps.md`).
        // The rules are those of the form the auction runs under (its audience's segment, its
        // variant); with no rule anywhere the check is skipped.
        var capped: [String: CapRefusal] = [:]
        var form = entry.configuration
        if let caps, caps.hasRules {
            form = choice.route.placement // the form the auction runs under, chosen once above
            capped = caps.cappedSources(of: form, at: start.startedAt, horizon: form.format.defaultTimeToLive)
        }
        if !capped.isEmpty, capped.count == form.sources.count {
            // No network is asked: one `capped` event names the rule that frees last.
            let strictest = capped.values.first { $0.retryAt == nil } ?? capped.values.max { ($0.retryAt ?? start.startedAt) < ($1.retryAt ?? start.startedAt) }
            if let strictest { events.emit(.capped(placementID: id, lineItemID: nil, refusal: strictest, at: start.startedAt)) }
        }
        leases.acquire(entry.generation)
        auctionTask = clock.startTask {
            var outcome = await entry.auction.run(request: request, choice: choice, excluding: start.excludedLineItems, capped: capped) { late in
                events.emit(MediationEvent.lateAnswer(late).tagged(with: arm))
            }
            if let arm { outcome.trace.experiment = arm }
            await self.auctionDidFinish(outcome, generation: entry.generation)
        }
    }

    /// Replaces the one timer task by one that wakes at `wakeUp` (none when `nil`).
    private func setTimer(at wakeUp: MediationInstant?) {
        timer?.task.cancel()
        timer = nil
        guard let wakeUp else { return }
        let clock = self.clock
        let task = clock.startTask { [weak self] in
            do {
                try await clock.sleep(until: wakeUp)
            } catch {
                return
            }
            await self?.timerFired(for: wakeUp)
        }
        timer = (task, wakeUp)
    }
}

/// How a placement tells the engine that it uses a configuration (a running auction, its
/// current ad), so that the adapters of a network a newer configuration removed are shut down
/// only once nothing uses them (R22). The default counts nothing.
struct PlacementLeases: Sendable {
    /// Counts one use of the configuration of this generation.
    var acquire: @Sendable (UInt64) -> Void = { _ in }
    /// Ends one use.
    var release: @Sendable (UInt64) -> Void = { _ in }
}

/// The driver of one auction: performs the ``AuctionStateMachine``'s actions with tasks and
/// the injected clock.
///
/// Each source runs in its own unstructured task, so the answer never waits on an adapter that
/// ignores cancellation (a task group would wait for every child). The ``AuctionTimer`` shared
/// by the auctions of one ``Auction`` wakes the machine at its next wake-up (a source timeout
/// or the deadline). All state sits in one ``Locked`` box; side effects (releases, the
/// continuation, the late-answer handler) run outside the lock.
///
/// Cost per auction: one lock box and one task per source; the machine's actions go
/// through one reused buffer.
/// - The caller starts the sources and yields once: sources that answer at once have usually
///   decided the auction by then, and the caller takes the outcome without suspending on a
///   continuation or telling the timer anything. Otherwise it waits on a continuation, and only
///   then does the run give the timer its wake-up (the deadline is absolute, so the yield does
///   not move it).
/// - Source tasks are created outside the lock (a new task may start at once on another thread
///   and must not find the lock taken).
/// - A source's task handle is dropped as soon as it answers, so the end cancels only the
///   sources still outstanding.
///
/// Its life is one `Life` value whose transitions are explicit:
/// ```
/// notStarted ──cancel──▶ abortedBeforeStart
///     │                        │
///     └──start────────────┬────┘ (the start aborts the machine instead)
///                         ▼
///               running(caller) ──finish──▶ decided(caller)
///                                               │ hand(): losers released, adapters told
///                          caller waiting ◀─────┴─────▶ caller not waiting yet
///                                │                          ▼
///                                │                      ready
///                                ▼                          │ the caller takes it
///                           handedOver ◀────────────────────┘
/// ```
/// The caller moves from "not waiting" to "waiting" (on a continuation) in `running` or
/// `decided`; the outcome is handed over exactly once. The timer hears of the run's wake-ups
/// only from the moment the caller waits (`State.timerArmed`): an auction decided before that
/// costs the timer nothing.
///
/// Not the shared ``FirstOf`` gate: moved onto it, the 4-source overhead ratio rose from 2.17-2.27
/// to 2.39-2.75 (alternating pinned runs, 2026-12-07), far over the 2 % a speed path
/// may cost; this hand-over rides on the run's own lock and life.
final class AuctionRun: Sendable {
    /// The task of one source.
    private enum SourceTask {
        /// Not asked, answered, or cancelled.
        case idle
        /// Asked: its task is being created outside the lock.
        case starting
        /// Cancelled while its task was being created: cancel the task once it exists.
        case cancelledWhileStarting
        /// Asked and not yet answered.
        case running(Task<Void, Never>)
    }

    /// Where the caller is while the auction runs.
    private enum Caller {
        /// It has not waited yet: it may still take an outcome decided at once.
        case notWaiting
        /// It waits on this continuation, resumed exactly once by ``hand()``.
        case waiting(UnsafeContinuation<MediationEngine.AuctionOutcome, Never>)
    }

    /// The run's life (see the diagram above).
    private enum Life {
        /// Created; ``outcome()`` has not started the machine.
        case notStarted
        /// The caller's task was cancelled before the machine started: the start aborts it.
        case abortedBeforeStart
        /// The machine runs.
        case running(Caller)
        /// The machine decided the outcome (``State/outcome``); ``hand()`` passes it on once
        /// the losers are released and the adapters told.
        case decided(Caller)
        /// The outcome (``State/outcome``) is ready for a caller that has not waited yet.
        case ready
        /// The caller has the outcome.
        case handedOver
    }

    private struct State {
        var machine: AuctionStateMachine
        var life: Life = .notStarted
        /// The decided outcome from the finish until it is handed over: moved in and out
        /// (`take()`), never copied.
        var outcome: MediationEngine.AuctionOutcome?
        /// The task of each source, by source index.
        var tasks: [SourceTask]
        /// The wake-up this run has asked the timer for.
        var timerDeadline: MediationInstant?
        /// The caller waits: the machine's wake-ups go to the timer from now on.
        var timerArmed = false
        /// The machine's actions for the event being handled (reused between events).
        var actions: [AuctionStateMachine.Action] = []
        /// A decision at the end of the current instant was asked of the clock and has not run.
        var decisionPending = false
        /// The wall-clock time the auction started.
        var startedAtWallClock: WallClockTime?
    }

    private let auctionID: String
    private let placementID: String
    private let sources: [AuctionSource]
    private let request: AdRequest
    /// The slot each source that serves no inline banners is asked for in an inline banner
    /// auction (its anchored adaptive banner), by source index; `nil` when there is none.
    private let anchoredSlots: [SlotSize?]?
    private let clock: any MediationClock
    private let timer: AuctionTimer
    private let onLateAnswer: (@Sendable (MediationEvent.LateAnswer) -> Void)?
    private let wallClock: @Sendable () -> WallClockTime
    private let adapterWarnings: AdapterWarnings?
    /// Whether some source's adapter hears notices (``AuctionSource/receivesNotices``).
    private let sendsNotices: Bool
    /// Whether each adapter call runs with its ``SourceAttribution`` set: when a recorder or a
    /// logger can use it; otherwise the auction pays nothing for it.
    private let attributesSources: Bool
    /// Whether the clock's end of an instant is now (continuous time): the decision due after
    /// an answer is then taken under the same lock as recording it.
    private let decidesInline: Bool
    private let state: Locked<State>

    init(
        auctionID: String,
        placementID: String,
        machine: consuming AuctionStateMachine,
        sources: [AuctionSource],
        request: consuming AdRequest,
        clock: any MediationClock,
        timer: AuctionTimer,
        wallClock: @escaping @Sendable () -> WallClockTime,
        attributesSources: Bool = false,
        adapterWarnings: AdapterWarnings? = nil,
        sendsNotices: Bool = true,
        preparedMachine: Bool = false,
        onLateAnswer: (@Sendable (MediationEvent.LateAnswer) -> Void)?
    ) {
        // A prepared machine's entries are shared with every auction of its route: made fresh
        // here, before its first change would copy them field by field.
        if preparedMachine { machine.makeEntriesOwn() }
        self.sendsNotices = sendsNotices
        self.attributesSources = attributesSources || adapterWarnings != nil
        self.adapterWarnings = adapterWarnings
        self.decidesInline = !clock.defersEndOfInstant
        // R8a: the placement's declared slot decides; a request may narrow it (a host's resize),
        // never widen it, and an unbounded width is bounded by the screen's.
        machine.constrainSlot(to: request.slot, screenWidth: request.screen.width)
        request.slot = request.slot.clamped(to: machine.declaredSlot)
        anchoredSlots = AuctionRun.anchoredSlots(for: request, sources: sources, machine: &machine)
        self.auctionID = auctionID
        self.placementID = placementID
        self.sources = sources
        self.request = consume request
        self.clock = clock
        self.timer = timer
        self.onLateAnswer = onLateAnswer
        self.wallClock = wallClock
        state = Locked(State(
            machine: consume machine,
            tasks: Array(repeating: .idle, count: sources.count)
        ))
    }

    /// The anchored adaptive slot of each source that serves no inline banners, when `request`
    /// is for an inline banner (Qartvelo document: "adapters without createInlineBanner get
    /// their anchored banner"): the banner of the slot's width (the screen's when unbounded),
    /// `floor(width x 50 / 320)` pt high within 50...90 pt and 15% of the screen. Each such
    /// source's trace line gets the warning `anchored_for_inline` when it is asked.
    /// - Returns: the slots by source index, or `nil` when no source needs one.
    private static func anchoredSlots(for request: AdRequest, sources: [AuctionSource], machine: inout AuctionStateMachine) -> [SlotSize?]? {
        guard request.format == .banner, request.bannerSizing == .inline,
              sources.contains(where: { !$0.servesInlineBanners }) else { return nil }
        let size = AnchoredAdaptiveSizing.slotSize(for: request.slot, screen: request.screen)
        var slots: [SlotSize?] = Array(repeating: nil, count: sources.count)
        for index in sources.indices where !sources[index].servesInlineBanners {
            slots[index] = SlotSize(maxWidth: size.width, maxHeight: size.height)
            machine.addWarningIfAsked(TraceIssues.anchoredForInline(size), toSourceAt: index)
        }
        return slots
    }

    /// Starts the auction and waits for its outcome.
    func outcome() async -> MediationEngine.AuctionOutcome {
        await withTaskCancellationHandler {
            let startedAtWallClock = wallClock()
            var effects: Effects?
            state.withLock { state in
                state.startedAtWallClock = startedAtWallClock
                let now = clock.now
                switch state.life {
                case .notStarted:
                    state.life = .running(.notWaiting)
                    state.machine.start(at: now, into: &state.actions)
                case .abortedBeforeStart:
                    state.life = .running(.notWaiting)
                    state.machine.abort(at: now, into: &state.actions)
                case .running, .decided, .ready, .handedOver:
                    return // started already: a run gives one outcome, once
                }
                apply(at: now, to: &state, into: &effects)
            }
            // Decided at its start (no source to ask): taken without a yield.
            let decidedAtStart = effects?.decided != nil
            perform(&effects)
            if decidedAtStart, let outcome = takeFinishedOutcome() { return outcome }
            // Let the sources run: those that answer at once may decide the auction now.
            // Speed path, measured: without it a 4-source auction costs 72,216 instructions
            // and 39.6 allocations against 67,600 and 37.5 (callgrind and dhat, 2026-12-07).
            await Task.yield()
            if let outcome = takeFinishedOutcome() { return outcome }
            // The outcome is handed over exactly once: the life moves to `handedOver` under the
            // lock, here or in ``hand()``.
            return await withUnsafeContinuation { continuation in
                let (ready, timerChange) = state.withLock { state -> (MediationEngine.AuctionOutcome?, AuctionTimer.Change) in
                    switch state.life {
                    case .running(.notWaiting):
                        state.life = .running(.waiting(continuation))
                        return (nil, armTimer(in: &state))
                    case .decided(.notWaiting):
                        state.life = .decided(.waiting(continuation))
                        return (nil, AuctionTimer.Change())
                    case .ready:
                        state.life = .handedOver
                        return (state.outcome.take(), AuctionTimer.Change())
                    case .notStarted, .abortedBeforeStart, .running(.waiting), .decided(.waiting), .handedOver:
                        // Not reachable: the caller started the run and waits once.
                        return (nil, AuctionTimer.Change())
                    }
                }
                if let ready {
                    continuation.resume(returning: ready)
                } else {
                    // The timer task starts after the sources' tasks, and only for a caller
                    // that has to wait.
                    timerChange.cancel?.cancel()
                    if let ticket = timerChange.spawn { timer.spawn(ticket) }
                }
            }
        } onCancel: {
            var effects: Effects?
            state.withLock { state in
                switch state.life {
                case .notStarted:
                    state.life = .abortedBeforeStart // the start will abort instead
                case .abortedBeforeStart:
                    break
                case .running, .decided, .ready, .handedOver:
                    // Aborting a machine that has finished does nothing.
                    let now = clock.now
                    state.machine.abort(at: now, into: &state.actions)
                    apply(at: now, to: &state, into: &effects)
                }
            }
            perform(&effects)
        }
    }

    /// The outcome if the auction finished before the caller waited for it.
    private func takeFinishedOutcome() -> MediationEngine.AuctionOutcome? {
        state.withLock { state -> MediationEngine.AuctionOutcome? in
            guard case .ready = state.life else { return nil }
            state.life = .handedOver
            return state.outcome.take()
        }
    }

    /// The caller starts waiting: from now on the timer hears the machine's wake-ups, starting
    /// with the one it has now (under the run's lock, so its changes reach the timer in order).
    /// - Returns: what the timer asks to start or cancel, outside the lock.
    private func armTimer(in state: inout State) -> AuctionTimer.Change {
        state.timerArmed = true
        guard let wakeup = state.machine.nextWakeup else { return AuctionTimer.Change() }
        state.timerDeadline = wakeup
        return timer.schedule(self, at: wakeup)
    }

    // MARK: Events

    private func deliver(_ index: Int, result: AdLoadResult) {
        // The arrival is stamped under the lock, so arrivals are processed in time order.
        var effects: Effects?
        state.withLock { state in
            state.tasks[index] = .idle // it has answered: nothing left to cancel
            absorbAdapterWarnings(into: &state)
            let now = clock.now
            state.machine.answer(index, result: result, at: now, into: &state.actions)
            if decidesInline, !state.decisionPending, case .decideAtEndOfInstant? = state.actions.last {
                // Continuous time: the end of this instant is now (what `atEndOfInstant`
                // would do at once), without a second round trip through the lock.
                state.actions.removeLast()
                if !state.machine.isFinished { state.machine.endOfInstant(at: now, into: &state.actions) }
            }
            apply(at: now, to: &state, into: &effects)
        }
        perform(&effects)
    }

    /// Sources capped before the start (`docs/caps.md`): not asked (`capped`), each with when
    /// its cap frees. After the start it does nothing.
    func capped(_ sources: [(index: Int, retryAt: MediationInstant?)]) {
        state.withLock { state in
            for source in sources { state.machine.cap(sourceAt: source.index, until: source.retryAt) }
        }
    }

    /// The network of sources `indices` (or their line item) was paused until `retryAt`
    /// (R24), by another auction's verdict: the machine stops waiting for them
    /// (``AuctionStateMachine/networkPaused(sourcesAt:until:at:into:)``) at the end of this
    /// instant. Before the start they are not asked; after the end it does nothing.
    func networkPaused(sourcesAt indices: [Int], until retryAt: MediationInstant) {
        var effects: Effects?
        state.withLock { state in
            let now = clock.now
            state.machine.networkPaused(sourcesAt: indices, until: retryAt, at: now, into: &state.actions)
            switch state.life {
            case .notStarted, .abortedBeforeStart:
                // Not started: the sources are only marked (no action, no wake-up yet).
                state.actions.removeAll(keepingCapacity: true)
            case .running, .decided, .ready, .handedOver:
                apply(at: now, to: &state, into: &effects)
            }
        }
        perform(&effects)
    }

    /// The timer reached `wakeup`: the machine decides at the end of this instant, once the
    /// answers due now have arrived (an answer at a limit's instant counts, R6a).
    func wake(for wakeup: MediationInstant) {
        let ask = state.withLock { state -> Bool in
            guard state.timerDeadline == wakeup else { return false } // a stale wake-up
            state.timerDeadline = nil
            guard !state.decisionPending else { return false }
            state.decisionPending = true
            return true
        }
        if ask { askForDecision() }
    }

    /// Asks the clock to run ``decide()`` at the end of the current instant.
    private func askForDecision() {
        clock.atEndOfInstant { [self] in decide() }
    }

    /// The end of the instant: the machine times out sources past their limit, moves the
    /// waterfall on, and ends the auction when it is decided (R3, R4).
    private func decide() {
        var effects: Effects?
        state.withLock { state in
            state.decisionPending = false
            absorbAdapterWarnings(into: &state)
            let now = clock.now
            state.machine.endOfInstant(at: now, into: &state.actions)
            apply(at: now, to: &state, into: &effects)
        }
        perform(&effects)
    }

    /// Puts the warnings the adapters logged for this auction's sources so far on their trace
    /// lines (before each answer and each decision, so a source cancelled before it answered
    /// keeps what it logged).
    @inline(__always)
    private func absorbAdapterWarnings(into state: inout State) {
        guard let adapterWarnings, !state.machine.isFinished else { return }
        for (lineItemID, issues) in adapterWarnings.take(auctionID: auctionID) {
            for index in sources.indices where sources[index].lineItem.id == lineItemID {
                for issue in issues { state.machine.addWarningIfAsked(issue, toSourceAt: index) }
            }
        }
    }

    // MARK: Actions

    /// A source to ask (``Effects/starts``).
    private struct SourceStart {
        let index: Int
        /// The instant its answer must arrive by.
        let deadline: MediationInstant
        /// The time left until then.
        let budget: Duration
        /// Its task, once ``start(_:)`` has created it.
        var task: Task<Void, Never>?
    }

    /// Side effects collected under the lock and performed after it is released. Built in
    /// place and moved, never copied, from ``apply(at:to:into:)`` to ``perform(_:)``: a copy
    /// costs a retain and a release per field and a copy of the sources to start.
    private struct Effects {
        /// Sources to ask: index, the instant the answer must arrive by, the time left until then,
        /// and the task ``start(_:)`` creates for it (in place: no second array).
        var starts: [SourceStart] = []
        var releases: [any LoadedAd] = []
        var lateAnswers: [MediationEvent.LateAnswer] = []
        /// The outcome was decided (its trace, for the notices): tell the adapters, then hand
        /// it to the caller, once the releases are done.
        var decided: AuctionTrace?
        var cancelled: [Task<Void, Never>] = []
        var timer = AuctionTimer.Change()
        /// Ask the clock for a decision at the end of this instant.
        var askForDecision = false
    }

    /// Applies the machine's actions for an event at `now` in `state.actions` (and empties
    /// it): marks sources to ask and collects cancellations, releases and the outcome into
    /// `effects` for ``perform(_:)``, and tells the timer the machine's next wake-up. Leaves
    /// `effects` `nil` when there is nothing to do (most answers before the last: no action,
    /// and no timer to tell), so such an answer builds and destroys no ``Effects``.
    private func apply(at now: MediationInstant, to state: inout State, into effects: inout Effects?) {
        if state.actions.isEmpty, !state.timerArmed { return }
        effects = Effects()
        for action in state.actions {
            switch action {
            case .request(let index, let deadline):
                state.tasks[index] = .starting
                if effects?.starts.isEmpty == true { effects?.starts.reserveCapacity(sources.count) }
                effects?.starts.append(SourceStart(index: index, deadline: deadline, budget: deadline - now))
            case .cancel(let index):
                cancel(index, in: &state, into: &effects)
            case .release(let ad):
                if effects?.releases.isEmpty == true { effects?.releases.reserveCapacity(sources.count) }
                effects?.releases.append(ad)
            case .late(let index, let adReleased):
                effects?.lateAnswers.append(MediationEvent.LateAnswer(
                    auctionID: auctionID,
                    placementID: placementID,
                    lineItemID: sources[index].lineItem.id,
                    arrivedAt: now,
                    adReleased: adReleased,
                    configVersion: state.machine.configVersion
                ))
            case .decideAtEndOfInstant:
                if !state.decisionPending, !state.machine.isFinished {
                    state.decisionPending = true
                    effects?.askForDecision = true
                }
            case .finish:
                if case .running(let caller) = state.life {
                    let outcome = state.machine.takeOutcome(auctionID: auctionID, startedAtWallClock: state.startedAtWallClock)
                    effects?.decided = outcome.trace
                    state.outcome = consume outcome
                    state.life = .decided(caller)
                }
                for index in state.tasks.indices {
                    cancel(index, in: &state, into: &effects)
                }
            }
        }
        state.actions.removeAll(keepingCapacity: true)
        // Before the caller waits the timer hears nothing (``armTimer(in:)`` tells it then).
        guard state.timerArmed else { return }
        let wakeup = state.machine.nextWakeup
        if wakeup != state.timerDeadline {
            state.timerDeadline = wakeup
            effects?.timer = timer.schedule(self, at: wakeup)
        }
    }

    private func cancel(_ index: Int, in state: inout State, into effects: inout Effects?) {
        switch state.tasks[index] {
        case .running(let task):
            effects?.cancelled.append(task)
            state.tasks[index] = .idle
        case .starting:
            state.tasks[index] = .cancelledWhileStarting
        case .idle, .cancelledWhileStarting:
            break
        }
    }

    /// Creates the tasks of the sources to ask, outside the lock, then records their handles
    /// (or cancels those whose source was cancelled meanwhile).
    private func start(_ starts: inout [SourceStart]) {
        guard !starts.isEmpty else { return }
        for position in starts.indices {
            let index = starts[position].index, deadline = starts[position].deadline, budget = starts[position].budget
            starts[position].task = clock.startTask { [self] in
                deliver(index, result: await load(fromSourceAt: index, deadline: deadline, budget: budget))
            }
        }
        let toCancel = state.withLock { state -> [Task<Void, Never>] in
            var toCancel: [Task<Void, Never>] = []
            for start in starts {
                guard let task = start.task else { continue }
                let index = start.index
                switch state.tasks[index] {
                case .starting:
                    state.tasks[index] = .running(task)
                case .cancelledWhileStarting:
                    state.tasks[index] = .idle
                    toCancel.append(task)
                case .idle, .running:
                    break // it has answered already
                }
            }
            return toCancel
        }
        for task in toCancel { task.cancel() }
    }

    /// Source `index`'s copy of the request: its line item's ad unit id, its deadline and the
    /// time left until then, and its anchored slot where it serves no inline banners.
    private func request(forSourceAt index: Int, deadline: MediationInstant, budget: Duration) -> AdRequest {
        // Built field by field: each shared field is retained once, and the auction's own ad
        // unit id is never copied only to be replaced.
        let anchored = anchoredSlots?[index]
        return AdRequest(
            placementID: request.placementID,
            adUnitID: sources[index].lineItem.adUnitID,
            format: request.format,
            bannerSizing: anchored == nil ? request.bannerSizing : .anchored,
            slot: anchored ?? request.slot,
            context: request.context,
            signals: request.signals,
            deadline: deadline,
            timeBudget: budget
        )
    }

    /// Builds source `index`'s request (``request(forSourceAt:deadline:budget:)``) and asks
    /// its adapter for it. Built here, in the source's task, so that the task's closure
    /// captures three plain values and no request. What the adapter does is attributed to this
    /// source when the auction attributes sources: its HTTP exchanges (`mediate --debug`) and
    /// the warnings it logs (its trace line).
    private func load(fromSourceAt index: Int, deadline: MediationInstant, budget: Duration) async -> AdLoadResult {
        let sourceRequest = request(forSourceAt: index, deadline: deadline, budget: budget)
        guard attributesSources else { return await sources[index].adapter.loadAd(for: sourceRequest) }
        let attribution = SourceAttribution(auctionID: auctionID, placementID: placementID, lineItemID: sources[index].lineItem.id)
        return await SourceAttribution.$current.withValue(attribution) {
            await sources[index].adapter.loadAd(for: sourceRequest)
        }
    }

    /// Tells every asked source's adapter what the auction decided for it (R6 outcome, the
    /// winning value).
    private func notifyAdapters(of trace: AuctionTrace) {
        // Most adapters hear no notices (the built-in networks'): then none is built.
        guard sendsNotices else { return }
        // Read in place: each source's adapter is called without copying it out of the array.
        sources.withUnsafeBufferPointer { sources in
            AuctionNotice.forEachNotice(of: trace, sourceCount: sources.count, to: { sources[$0].receivesNotices }, adUnitID: { sources[$0].lineItem.adUnitID }) { index, notice in
                sources[index].adapter.auctionDidEnd(notice)
            }
        }
    }

    /// Gives the decided outcome to the caller: resumes its continuation, or leaves the
    /// outcome for it to take when it has not waited yet.
    private func hand() {
        let resume = state.withLock { state -> (UnsafeContinuation<MediationEngine.AuctionOutcome, Never>, MediationEngine.AuctionOutcome)? in
            guard case .decided(let caller) = state.life else { return nil }
            switch caller {
            case .waiting(let continuation):
                state.life = .handedOver
                // Decided: the outcome is there (set with the `decided` life).
                guard let outcome = state.outcome.take() else { return nil }
                return (continuation, outcome)
            case .notWaiting:
                state.life = .ready
                return nil
            }
        }
        if let (continuation, outcome) = resume { continuation.resume(returning: outcome) }
    }

    private func perform(_ pending: inout Effects?) {
        guard var effects = pending.take() else { return }
        start(&effects.starts)
        // The timer task starts after the sources' tasks: when they answer at once, the
        // auction ends before its timer would sleep.
        effects.timer.cancel?.cancel()
        if let ticket = effects.timer.spawn { timer.spawn(ticket) }
        for task in effects.cancelled { task.cancel() }
        for ad in effects.releases { ad.releaseResources() }
        // The losers are released, and every asked source's adapter told the result, before
        // the caller gets the outcome.
        if let trace = effects.decided {
            notifyAdapters(of: trace)
            hand()
        }
        if let onLateAnswer {
            for answer in effects.lateAnswers { onLateAnswer(answer) }
        }
        if effects.askForDecision { askForDecision() }
    }
}

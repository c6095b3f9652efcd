/// The driver of one auction: performs the ``AuctionStateMachine``'s actions with tasks and
/// the injected clock.
///
/// Each source runs in its own unstructured task, so the answer never waits on an adapter that
/// ignores cancellation (a task group would wait for every child). The ``AuctionTimer`` shared
/// by the auctions of one ``Auction`` wakes the machine at its next wake-up (a source timeout
/// or the deadline). All state sits in one ``Locked`` box; side effects (releases, the
/// continuation, the late-answer handler) run outside the lock.
///
/// Cost per auction (issue 7): one lock box and one task per source; the machine's actions go
/// through one reused buffer.
/// - The caller starts the sources and yields once: sources that answer at once have usually
///   decided the auction by then, and the caller takes the outcome without suspending on a
///   continuation or starting a timer task. Otherwise it waits on a continuation and the timer
///   starts (the deadline is absolute, so the yield does not move it).
/// - Source tasks are created outside the lock (a new task may start at once on another thread
///   and must not find the lock taken).
/// - A source's task handle is dropped as soon as it answers, so the end cancels only the
///   sources still outstanding.
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

    private struct State {
        var machine: AuctionStateMachine
        var continuation: UnsafeContinuation<AuctionOutcome, Never>?
        /// The outcome, decided, until the losers are released (then ``hand()`` moves it on).
        var decided: AuctionOutcome?
        /// The outcome, when it was ready (losers released) before the caller waited on a
        /// continuation.
        var finished: AuctionOutcome?
        /// The machine has started (or aborted before starting).
        var started = false
        /// The caller waits on the continuation; until then a timer task to start is held.
        var waiting = false
        var heldTimerTicket: AuctionTimer.Ticket?
        /// The task of each source, by source index.
        var tasks: [SourceTask]
        /// The wake-up this run has asked the timer for.
        var timerDeadline: MediationInstant?
        var delivered = false
        var aborted = false
        /// The machine's actions for the event being handled (reused between events).
        var actions: [AuctionStateMachine.Action] = []
    }

    private let auctionID: String
    private let placementID: String
    private let sources: [AuctionSource]
    private let request: AdRequest
    private let clock: any MediationClock
    private let timer: AuctionTimer
    private let onLateAnswer: (@Sendable (LateAnswer) -> Void)?
    private let state: Locked<State>

    init(
        auctionID: String,
        placementID: String,
        machine: AuctionStateMachine,
        sources: [AuctionSource],
        request: AdRequest,
        clock: any MediationClock,
        timer: AuctionTimer,
        onLateAnswer: (@Sendable (LateAnswer) -> Void)?
    ) {
        self.auctionID = auctionID
        self.placementID = placementID
        self.sources = sources
        self.request = request
        self.clock = clock
        self.timer = timer
        self.onLateAnswer = onLateAnswer
        var machine = machine
        machine.slot = request.slot // ads must fit the request's slot (it follows `slotDidResize`)
        state = Locked(State(
            machine: machine,
            tasks: Array(repeating: .idle, count: sources.count)
        ))
    }

    /// Starts the auction and waits for its outcome.
    func outcome() async -> AuctionOutcome {
        await withTaskCancellationHandler {
            let effects = state.withLock { state -> Effects in
                state.started = true
                let now = clock.now
                if state.aborted {
                    state.machine.abort(at: now, into: &state.actions)
                } else {
                    state.machine.start(at: now, into: &state.actions)
                }
                return apply(at: now, to: &state)
            }
            perform(effects)
            if let outcome = takeFinishedOutcome() { return outcome }
            // Let the sources run: those that answer at once may decide the auction now.
            await Task.yield()
            if let outcome = takeFinishedOutcome() { return outcome }
            // The outcome is delivered exactly once: `delivered` guards it under the lock, and
            // ``hand()`` gives it to the continuation or leaves it in `finished`.
            return await withUnsafeContinuation { continuation in
                let (ready, ticket) = state.withLock { state -> (AuctionOutcome?, AuctionTimer.Ticket?) in
                    state.waiting = true
                    defer { state.heldTimerTicket = nil }
                    if let outcome = state.finished {
                        state.finished = nil
                        return (outcome, state.heldTimerTicket)
                    }
                    state.continuation = continuation
                    return (nil, state.heldTimerTicket)
                }
                if let ready {
                    // Finished meanwhile; a held timer may still serve other auctions.
                    if let ticket { timer.spawnIfCurrent(ticket) }
                    continuation.resume(returning: ready)
                } else if let ticket {
                    // Stale when the auction ended meanwhile (its outcome is on the way): then
                    // no timer task is started at all.
                    timer.spawnIfCurrent(ticket)
                }
            }
        } onCancel: {
            let effects = state.withLock { state -> Effects in
                state.aborted = true
                guard state.started else { return Effects() } // the start will abort instead
                let now = clock.now
                state.machine.abort(at: now, into: &state.actions)
                return apply(at: now, to: &state)
            }
            perform(effects)
        }
    }

    /// The outcome if the auction finished before the caller waited for it. A timer task held
    /// back meanwhile is started if it still serves other auctions of the same ``Auction``.
    private func takeFinishedOutcome() -> AuctionOutcome? {
        let (outcome, ticket) = state.withLock { state -> (AuctionOutcome?, AuctionTimer.Ticket?) in
            guard let outcome = state.finished else { return (nil, nil) }
            state.finished = nil
            defer { state.heldTimerTicket = nil }
            return (outcome, state.heldTimerTicket)
        }
        if let ticket { timer.spawnIfCurrent(ticket) }
        return outcome
    }

    // MARK: Events

    private func deliver(_ index: Int, result: AdLoadResult) {
        // The arrival is stamped under the lock, so arrivals are processed in time order.
        let effects = state.withLock { state -> Effects in
            state.tasks[index] = .idle // it has answered: nothing left to cancel
            let now = clock.now
            state.machine.answer(index, result: result, at: now, into: &state.actions)
            return apply(at: now, to: &state)
        }
        perform(effects)
    }

    /// The timer reached `wakeup`.
    func wake(for wakeup: MediationInstant) {
        let effects = state.withLock { state -> Effects in
            guard state.timerDeadline == wakeup else { return Effects() } // a stale wake-up
            state.timerDeadline = nil
            let now = clock.now
            state.machine.tick(at: now, into: &state.actions)
            return apply(at: now, to: &state)
        }
        perform(effects)
    }

    // MARK: Actions

    /// Side effects collected under the lock and performed after it is released.
    private struct Effects {
        /// Sources to ask: index, the instant the answer must arrive by, the time left until then.
        var starts: [(index: Int, deadline: MediationInstant, budget: Duration)] = []
        var releases: [any LoadedAd] = []
        var lateAnswers: [LateAnswer] = []
        /// The outcome was decided: hand it to the caller once the releases are done.
        var handOutcome = false
        var cancelled: [Task<Void, Never>] = []
        var timer = AuctionTimer.Change()
    }

    /// Applies the machine's actions for an event at `now` in `state.actions` (and empties
    /// it): marks sources to ask and collects cancellations, releases and the outcome for
    /// ``perform(_:)``, and tells the timer the machine's next wake-up.
    private func apply(at now: MediationInstant, to state: inout State) -> Effects {
        var effects = Effects()
        for action in state.actions {
            switch action {
            case .request(let index, let deadline):
                state.tasks[index] = .starting
                effects.starts.append((index, deadline, deadline - now))
            case .cancel(let index):
                cancel(index, in: &state, into: &effects)
            case .release(let ad):
                effects.releases.append(ad)
            case .late(let index, let adReleased):
                effects.lateAnswers.append(LateAnswer(
                    auctionID: auctionID,
                    placementID: placementID,
                    lineItemID: sources[index].lineItem.id,
                    arrivedAt: now,
                    adReleased: adReleased
                ))
            case .finish:
                if !state.delivered {
                    state.delivered = true
                    state.decided = state.machine.outcome(auctionID: auctionID)
                    effects.handOutcome = true
                }
                for index in state.tasks.indices {
                    cancel(index, in: &state, into: &effects)
                }
            }
        }
        state.actions.removeAll(keepingCapacity: true)
        let wakeup = state.machine.nextWakeup
        if wakeup != state.timerDeadline {
            state.timerDeadline = wakeup
            effects.timer = timer.schedule(self, at: wakeup)
            if !state.waiting, let ticket = effects.timer.spawn {
                // The caller has not waited yet: start the timer only if it has to wait.
                state.heldTimerTicket = ticket
                effects.timer.spawn = nil
            }
        }
        return effects
    }

    private func cancel(_ index: Int, in state: inout State, into effects: inout Effects) {
        switch state.tasks[index] {
        case .running(let task):
            effects.cancelled.append(task)
            state.tasks[index] = .idle
        case .starting:
            state.tasks[index] = .cancelledWhileStarting
        case .idle, .cancelledWhileStarting:
            break
        }
    }

    /// Creates the tasks of the sources to ask, outside the lock, then records their handles
    /// (or cancels those whose source was cancelled meanwhile).
    private func start(_ starts: [(index: Int, deadline: MediationInstant, budget: Duration)]) {
        guard !starts.isEmpty else { return }
        var created: [(index: Int, task: Task<Void, Never>)] = []
        created.reserveCapacity(starts.count)
        for (index, deadline, budget) in starts {
            let task = clock.startTask { [self] in
                var sourceRequest = request
                sourceRequest.adUnitID = sources[index].lineItem.adUnitID
                sourceRequest.deadline = deadline
                sourceRequest.timeBudget = budget
                let result = await sources[index].adapter.loadAd(for: sourceRequest)
                deliver(index, result: result)
            }
            created.append((index, task))
        }
        let toCancel = state.withLock { state -> [Task<Void, Never>] in
            var toCancel: [Task<Void, Never>] = []
            for (index, task) in created {
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

    /// Tells every asked source's adapter what the auction decided for it (R6 outcome, the
    /// winning value).
    private func notifyAdapters() {
        let notices = state.withLock { state in
            state.machine.notices(auctionID: auctionID) { sources[$0].lineItem.adUnitID }
        }
        for (index, notice) in notices {
            sources[index].adapter.auctionDidEnd(notice)
        }
    }

    /// Gives the decided outcome to the caller: resumes its continuation, or leaves the
    /// outcome for it to take when it has not waited yet.
    private func hand() {
        let resume = state.withLock { state -> (UnsafeContinuation<AuctionOutcome, Never>, AuctionOutcome)? in
            guard let outcome = state.decided else { return nil }
            state.decided = nil
            guard let continuation = state.continuation else {
                state.finished = outcome
                return nil
            }
            state.continuation = nil
            return (continuation, outcome)
        }
        if let (continuation, outcome) = resume { continuation.resume(returning: outcome) }
    }

    private func perform(_ effects: Effects) {
        start(effects.starts)
        // The timer task starts after the sources' tasks: when they answer at once, the
        // auction ends before its timer would sleep.
        effects.timer.cancel?.cancel()
        if let ticket = effects.timer.spawn { timer.spawn(ticket) }
        for task in effects.cancelled { task.cancel() }
        for ad in effects.releases { ad.releaseResources() }
        // The losers are released, and every asked source's adapter told the result, before
        // the caller gets the outcome.
        if effects.handOutcome {
            notifyAdapters()
            hand()
        }
        if let onLateAnswer {
            for answer in effects.lateAnswers { onLateAnswer(answer) }
        }
    }
}

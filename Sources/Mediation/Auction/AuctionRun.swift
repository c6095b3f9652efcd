/// The driver of one auction: performs the ``AuctionStateMachine``'s actions with tasks and
/// the injected clock.
///
/// Each source runs in its own unstructured task, so the answer never waits on an adapter that
/// ignores cancellation (a task group would wait for every child). The ``AuctionTimer`` shared
/// by the auctions of one ``Auction`` wakes the machine at its next wake-up (a source timeout
/// or the deadline). All state sits in one ``Locked`` box; side effects (releases, the
/// continuation, the late-answer handler) run outside the lock.
///
/// Cost per auction (issue 7): one lock box, one continuation, one task per source; the
/// machine's actions go through one reused buffer, and a source's task handle is dropped as
/// soon as it answers, so the end cancels only the sources still outstanding.
final class AuctionRun: Sendable {
    private struct State {
        var machine: AuctionStateMachine
        var continuation: UnsafeContinuation<AuctionOutcome, Never>?
        /// The task of each outstanding source, by source index.
        var tasks: [Task<Void, Never>?]
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
        placement: PlacementConfiguration,
        sources: [AuctionSource],
        request: AdRequest,
        clock: any MediationClock,
        timer: AuctionTimer,
        onLateAnswer: (@Sendable (LateAnswer) -> Void)?
    ) {
        self.auctionID = auctionID
        placementID = placement.id
        self.sources = sources
        self.request = request
        self.clock = clock
        self.timer = timer
        self.onLateAnswer = onLateAnswer
        state = Locked(State(
            machine: AuctionStateMachine(placement: placement, sources: sources.map(\.lineItem)),
            tasks: Array(repeating: nil, count: sources.count)
        ))
    }

    /// Starts the auction and waits for its outcome.
    func outcome() async -> AuctionOutcome {
        await withTaskCancellationHandler {
            // The continuation is resumed exactly once: `delivered` guards it under the lock.
            await withUnsafeContinuation { continuation in
                let effects = state.withLock { state -> Effects in
                    state.continuation = continuation
                    let now = clock.now
                    if state.aborted {
                        state.machine.abort(at: now, into: &state.actions)
                    } else {
                        state.machine.start(at: now, into: &state.actions)
                    }
                    return apply(to: &state)
                }
                perform(effects)
            }
        } onCancel: {
            let effects = state.withLock { state -> Effects in
                state.aborted = true
                guard state.continuation != nil else { return Effects() }
                state.machine.abort(at: clock.now, into: &state.actions)
                return apply(to: &state)
            }
            perform(effects)
        }
    }

    // MARK: Events

    private func deliver(_ index: Int, result: AdLoadResult) {
        // The arrival is stamped under the lock, so arrivals are processed in time order.
        let effects = state.withLock { state -> Effects in
            state.tasks[index] = nil // it has answered: nothing left to cancel
            state.machine.answer(index, result: result, at: clock.now, into: &state.actions)
            return apply(to: &state)
        }
        perform(effects)
    }

    /// The timer reached `wakeup`.
    func wake(for wakeup: MediationInstant) {
        let effects = state.withLock { state -> Effects in
            guard state.timerDeadline == wakeup else { return Effects() } // a stale wake-up
            state.timerDeadline = nil
            state.machine.tick(at: clock.now, into: &state.actions)
            return apply(to: &state)
        }
        perform(effects)
    }

    // MARK: Actions

    /// Side effects collected under the lock and performed after it is released.
    private struct Effects {
        var releases: [any LoadedAd] = []
        var lateAnswers: [LateAnswer] = []
        var resume: (UnsafeContinuation<AuctionOutcome, Never>, AuctionOutcome)?
        var cancelled: [Task<Void, Never>] = []
    }

    /// Applies the machine's actions in `state.actions` (and empties it): starts and cancels
    /// tasks (task creation never re-enters the lock), collects releases and the outcome for
    /// ``perform(_:)``, and tells the timer the machine's next wake-up.
    private func apply(to state: inout State) -> Effects {
        var effects = Effects()
        for action in state.actions {
            switch action {
            case .request(let index, let deadline):
                var sourceRequest = request
                sourceRequest.adUnitID = sources[index].lineItem.adUnitID
                sourceRequest.deadline = deadline
                sourceRequest.timeBudget = deadline - clock.now
                let adapter = sources[index].adapter
                state.tasks[index] = Task { [self] in
                    let result = await adapter.loadAd(for: sourceRequest)
                    deliver(index, result: result)
                }
            case .cancel(let index):
                if let task = state.tasks[index] {
                    state.tasks[index] = nil
                    effects.cancelled.append(task)
                }
            case .release(let ad):
                effects.releases.append(ad)
            case .late(let index, let adReleased):
                effects.lateAnswers.append(LateAnswer(
                    auctionID: auctionID,
                    placementID: placementID,
                    lineItemID: sources[index].lineItem.id,
                    arrivedAt: clock.now,
                    adReleased: adReleased
                ))
            case .finish:
                if !state.delivered, let continuation = state.continuation {
                    state.delivered = true
                    state.continuation = nil
                    effects.resume = (continuation, state.machine.outcome(auctionID: auctionID))
                }
                for index in state.tasks.indices {
                    if let task = state.tasks[index] {
                        state.tasks[index] = nil
                        effects.cancelled.append(task)
                    }
                }
            }
        }
        state.actions.removeAll(keepingCapacity: true)
        let wakeup = state.machine.nextWakeup
        if wakeup != state.timerDeadline {
            state.timerDeadline = wakeup
            timer.schedule(self, at: wakeup)
        }
        return effects
    }

    private func perform(_ effects: Effects) {
        for task in effects.cancelled { task.cancel() }
        for ad in effects.releases { ad.releaseResources() }
        if let (continuation, outcome) = effects.resume { continuation.resume(returning: outcome) }
        if let onLateAnswer {
            for answer in effects.lateAnswers { onLateAnswer(answer) }
        }
    }
}

/// The driver of one auction: performs the ``AuctionStateMachine``'s actions with tasks and
/// the injected clock.
///
/// Each source runs in its own unstructured task, so the answer never waits on an adapter that
/// ignores cancellation (a task group would wait for every child). One timer task sleeps until
/// the machine's next wake-up (a source timeout or the deadline) and is re-armed only when that
/// instant changes. All state sits in one ``Locked`` box; side effects (releases, the
/// continuation) run outside the lock.
final class AuctionRun: Sendable {
    private struct State {
        var machine: AuctionStateMachine
        var continuation: CheckedContinuation<AuctionOutcome, Never>?
        var tasks: [Int: Task<Void, Never>] = [:]
        var timer: Task<Void, Never>?
        var timerDeadline: MediationInstant?
        var delivered = false
        var aborted = false
    }

    private let auctionID: String
    private let placementID: String
    private let sources: [AuctionSource]
    private let request: AdRequest
    private let clock: any MediationClock
    private let onLateAnswer: (@Sendable (LateAnswer) -> Void)?
    private let state: Locked<State>

    init(
        placement: PlacementConfiguration,
        sources: [AuctionSource],
        request: AdRequest,
        clock: any MediationClock,
        onLateAnswer: (@Sendable (LateAnswer) -> Void)?
    ) {
        auctionID = AuctionRun.makeID()
        placementID = placement.id
        self.sources = sources
        self.request = request
        self.clock = clock
        self.onLateAnswer = onLateAnswer
        state = Locked(State(machine: AuctionStateMachine(placement: placement, sources: sources.map(\.lineItem), slot: request.slot)))
    }

    /// Starts the auction and waits for its outcome.
    func outcome() async -> AuctionOutcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let effects = state.withLock { state -> Effects in
                    state.continuation = continuation
                    if state.aborted {
                        return apply(state.machine.abort(at: clock.now), to: &state)
                    }
                    return apply(state.machine.start(at: clock.now), to: &state)
                }
                perform(effects)
            }
        } onCancel: {
            let effects = state.withLock { state -> Effects in
                state.aborted = true
                guard state.continuation != nil else { return Effects() }
                return apply(state.machine.abort(at: clock.now), to: &state)
            }
            perform(effects)
        }
    }

    // MARK: Events

    private func deliver(_ index: Int, result: AdLoadResult) {
        // The arrival is stamped under the lock, so arrivals are processed in time order.
        let effects = state.withLock { state in
            apply(state.machine.answer(index, result: result, at: clock.now), to: &state)
        }
        perform(effects)
    }

    private func wake(for wakeup: MediationInstant) {
        let effects = state.withLock { state -> Effects in
            guard state.timerDeadline == wakeup else { return Effects() } // a stale timer
            state.timer = nil
            state.timerDeadline = nil
            return apply(state.machine.tick(at: clock.now), to: &state)
        }
        perform(effects)
    }

    // MARK: Actions

    /// Side effects collected under the lock and performed after it is released.
    private struct Effects {
        var releases: [any LoadedAd] = []
        var lateAnswers: [LateAnswer] = []
        var resume: (CheckedContinuation<AuctionOutcome, Never>, AuctionOutcome)?
        var cancelled: [Task<Void, Never>] = []
    }

    /// Applies the machine's actions: starts and cancels tasks (task creation never re-enters
    /// the lock), and collects releases and the outcome for ``perform(_:)``.
    private func apply(_ actions: [AuctionStateMachine.Action], to state: inout State) -> Effects {
        var effects = Effects()
        for action in actions {
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
                if let task = state.tasks.removeValue(forKey: index) { effects.cancelled.append(task) }
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
                if let timer = state.timer { effects.cancelled.append(timer) }
                state.timer = nil
                state.timerDeadline = nil
                effects.cancelled += state.tasks.values
                state.tasks.removeAll()
            }
        }
        armTimer(&state)
        return effects
    }

    /// Keeps one timer task sleeping until the machine's next wake-up.
    private func armTimer(_ state: inout State) {
        guard let wakeup = state.machine.nextWakeup else { return }
        guard state.timerDeadline != wakeup else { return }
        state.timer?.cancel()
        state.timerDeadline = wakeup
        let clock = clock
        state.timer = Task { [self] in
            do {
                try await clock.sleep(until: wakeup)
            } catch {
                return
            }
            wake(for: wakeup)
        }
    }

    private func perform(_ effects: Effects) {
        for task in effects.cancelled { task.cancel() }
        for ad in effects.releases { ad.releaseResources() }
        if let (continuation, outcome) = effects.resume { continuation.resume(returning: outcome) }
        if let onLateAnswer {
            for answer in effects.lateAnswers { onLateAnswer(answer) }
        }
    }

    private static func makeID() -> String {
        let high = UInt64.random(in: .min ... .max)
        let low = UInt64.random(in: .min ... .max)
        return String(high, radix: 16) + String(low, radix: 16)
    }
}

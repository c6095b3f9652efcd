/// The auction's decisions as a pure state machine (engine rules R1 to R9): events in
/// (start, an answer, a tick of the clock, an abort), actions out (ask a source, cancel it,
/// release an ad, finish). It never reads a clock or touches a task; ``AuctionRun`` performs
/// its actions. Every source ends with exactly one ``SourceOutcome`` (R6).
struct AuctionStateMachine {
    /// What the driver must do.
    enum Action {
        /// Ask source `index`; its answer counts only strictly before `deadline`.
        case request(index: Int, deadline: MediationInstant)
        /// Cancel source `index`'s outstanding request.
        case cancel(index: Int)
        /// Call `releaseResources()` on this ad, once.
        case release(any LoadedAd)
        /// A source answered after the end (or after it was cancelled or timed out).
        case late(index: Int, adReleased: Bool)
        /// The outcome is decided: build it with ``outcome(auctionID:)`` and deliver it.
        case finish
    }

    private enum Phase {
        case waiting
        case outstanding(startedAt: MediationInstant, answerBy: MediationInstant)
        case done
    }

    private struct Entry {
        let lineItem: LineItem
        /// The configured eCPM of a fixed-price source, as a value; `nil` for bidders.
        let fixedValue: AuctionValue?
        /// The source's own floor, converted to USD.
        let floor: AuctionValue?
        var phase: Phase = .waiting
        var startedAt: MediationInstant?
        var answeredAt: MediationInstant?
        var outcome: SourceOutcome?
        var candidate: (any LoadedAd)?
        var value: AuctionValue?
        var rawPrice: Double?
        var creativeID: String?
        var released = false
    }

    private let placement: PlacementConfiguration
    /// The slot this auction's ads must fit: the request's (it follows `slotDidResize`).
    private let slot: SlotSize
    /// The placement's floor; a floor too large to represent admits nothing.
    private let placementFloor: AuctionValue?
    private var entries: [Entry]
    /// Fixed-price tiers for waterfall mode, highest eCPM first; each a list of indices.
    private var tiers: [[Int]] = []
    private var currentTier = -1
    private(set) var startedAt: MediationInstant = .origin
    private(set) var deadline: MediationInstant = .origin
    private(set) var endedAt: MediationInstant?
    private var best: Int?

    /// Creates a machine for one auction of `placement` over `sources` (config order).
    /// - Parameter slot: the slot ads must fit (default: the placement's configured slot).
    init(placement: PlacementConfiguration, sources: [LineItem], slot: SlotSize? = nil) {
        self.placement = placement
        self.slot = slot ?? placement.slot
        placementFloor = placement.floor.map { AuctionStateMachine.floorValue($0, usdRate: 1) }
        entries = sources.map { item in
            Entry(
                lineItem: item,
                fixedValue: item.pricing == .fixedPrice ? item.eCPM.flatMap { AuctionValue(price: $0, usdRate: item.usdRate) } : nil,
                floor: item.floor.map { AuctionStateMachine.floorValue($0, usdRate: item.usdRate) }
            )
        }
    }

    /// A floor as a value. The configuration admits only positive finite floors up to
    /// ``AuctionValue/maximumECPM``; anything else here admits nothing rather than everything.
    private static func floorValue(_ floor: Double, usdRate: Double) -> AuctionValue {
        AuctionValue(price: floor, usdRate: usdRate) ?? AuctionValue(micros: .max)
    }

    /// Whether the outcome has been decided.
    var isFinished: Bool { endedAt != nil }

    /// The next instant at which ``tick(at:)`` must run (a source timeout or the deadline).
    var nextWakeup: MediationInstant? {
        guard !isFinished else { return nil }
        var wakeup = deadline
        for entry in entries {
            if case .outstanding(_, let answerBy) = entry.phase, answerBy < wakeup { wakeup = answerBy }
        }
        return wakeup
    }

    // MARK: Events

    /// Starts the auction at `now`: asks every eligible source (parallel) or the bidders and the
    /// first fixed-price tier that could win (waterfall).
    mutating func start(at now: MediationInstant) -> [Action] {
        startedAt = now
        deadline = now + min(placement.deadline, PlacementConfiguration.defaultDeadline)
        var actions: [Action] = []
        for index in entries.indices {
            let entry = entries[index]
            if entry.lineItem.pricing == .fixedPrice {
                guard let value = entry.fixedValue, placementFloor.map({ value >= $0 }) ?? true else {
                    // A fixed price that is invalid or under the placement's floor can never win.
                    entries[index].outcome = entry.fixedValue == nil ? .lost(.invalidResponse) : .lost(.belowFloor)
                    entries[index].phase = .done
                    continue
                }
            }
            if placement.mode == .parallel || entry.lineItem.pricing == .bidder {
                actions.append(ask(index, at: now))
            }
        }
        if placement.mode == .waterfall {
            let fixed = entries.indices.filter { entries[$0].lineItem.pricing == .fixedPrice && entries[$0].outcome == nil }
            let values = Set(fixed.compactMap { entries[$0].fixedValue }).sorted(by: >)
            tiers = values.map { value in fixed.filter { entries[$0].fixedValue == value } }
            actions += advanceWaterfall(at: now)
        }
        actions += finishIfDecided(at: now)
        return actions
    }

    /// Source `index` answered `result` at `now`.
    mutating func answer(_ index: Int, result: AdLoadResult, at now: MediationInstant) -> [Action] {
        guard entries.indices.contains(index) else { return result.ad.map { [.release($0)] } ?? [] }
        guard !isFinished, case .outstanding(_, let answerBy) = entries[index].phase else {
            // After the end, or after this source was cancelled or timed out: late (R6, R7).
            // An adapter acknowledging its cancellation is not news and is not reported.
            if case .failure(let error) = result, error.kind == .cancelled { return [] }
            var actions: [Action] = []
            if let ad = result.ad { actions.append(.release(ad)) }
            actions.append(.late(index: index, adReleased: result.ad != nil))
            return actions
        }
        entries[index].phase = .done
        entries[index].answeredAt = now
        if now >= answerBy {
            // Arriving at the deadline instant is late (R3); at the source's own timeout, a timeout.
            entries[index].outcome = now >= deadline ? .late : .timeout
            var actions: [Action] = []
            if let ad = result.ad {
                entries[index].released = true
                entries[index].creativeID = ad.creativeID
                actions.append(.release(ad))
            }
            return actions + tick(at: now)
        }
        var actions: [Action] = []
        switch result {
        case .noFill(let reason):
            entries[index].outcome = .noFill(reason)
        case .failure(let error):
            entries[index].outcome = .error(error)
        case .bid(let ad, let price):
            actions += admit(index, ad: ad, price: entries[index].lineItem.pricing == .bidder ? price : entries[index].lineItem.eCPM, at: now)
        case .fill(let ad):
            actions += admit(index, ad: ad, price: entries[index].lineItem.pricing == .fixedPrice ? entries[index].lineItem.eCPM : nil, at: now)
        }
        if placement.mode == .waterfall { actions += advanceWaterfall(at: now) }
        actions += finishIfDecided(at: now)
        return actions
    }

    /// The clock reached `now`: sources past their timeout time out; at the deadline the
    /// auction ends with what it has (R3).
    mutating func tick(at now: MediationInstant) -> [Action] {
        guard !isFinished else { return [] }
        var actions: [Action] = []
        for index in entries.indices {
            guard case .outstanding(_, let answerBy) = entries[index].phase, answerBy <= now else { continue }
            entries[index].phase = .done
            entries[index].outcome = .timeout
            actions.append(.cancel(index: index))
        }
        if now >= deadline {
            return actions + finish(at: now)
        }
        if placement.mode == .waterfall { actions += advanceWaterfall(at: now) }
        return actions + finishIfDecided(at: now)
    }

    /// The caller gave up (its task was cancelled): everything outstanding is cancelled and
    /// every ad, the best included, is released.
    mutating func abort(at now: MediationInstant) -> [Action] {
        guard !isFinished else { return [] }
        var actions: [Action] = []
        for index in entries.indices {
            if case .outstanding = entries[index].phase { actions.append(.cancel(index: index)) }
            if entries[index].outcome == nil { entries[index].outcome = .cancelled }
            entries[index].phase = .done
            if let ad = entries[index].candidate {
                entries[index].candidate = nil
                entries[index].released = true
                entries[index].outcome = .cancelled
                actions.append(.release(ad))
            }
        }
        best = nil
        endedAt = now
        return actions + [.finish]
    }

    // MARK: Outcome

    /// The outcome once finished: the winner (not released) and the trace.
    func outcome(auctionID: String) -> AuctionOutcome {
        let winner: AuctionWinner? = best.flatMap { index in
            guard let ad = entries[index].candidate, let value = entries[index].value, let arrivedAt = entries[index].answeredAt else { return nil }
            return AuctionWinner(ad: ad, lineItem: entries[index].lineItem, eCPM: value.eCPM, arrivedAt: arrivedAt)
        }
        let sources = entries.map { entry in
            SourceTrace(
                lineItemID: entry.lineItem.id,
                network: entry.lineItem.network,
                pricing: entry.lineItem.pricing,
                startOffsetMilliseconds: entry.startedAt.map { ($0 - startedAt).milliseconds },
                latencyMilliseconds: entry.answeredAt.flatMap { answeredAt in entry.startedAt.map { (answeredAt - $0).milliseconds } },
                outcome: entry.outcome ?? .cancelled,
                eCPM: entry.value?.eCPM,
                rawPrice: entry.rawPrice,
                creativeID: entry.creativeID,
                adReleased: entry.released
            )
        }
        return AuctionOutcome(
            winner: winner,
            trace: AuctionTrace(
                auctionID: auctionID,
                placementID: placement.id,
                mode: placement.mode,
                startedAtMilliseconds: startedAt.milliseconds,
                endedAtMilliseconds: (endedAt ?? startedAt).milliseconds,
                deadlineMilliseconds: deadline.milliseconds,
                winner: winner?.lineItem.id,
                winningECPM: winner?.eCPM,
                sources: sources
            )
        )
    }

    // MARK: Steps

    private mutating func ask(_ index: Int, at now: MediationInstant) -> Action {
        let answerBy = entries[index].lineItem.timeout.map { min(now + $0, deadline) } ?? deadline
        entries[index].phase = .outstanding(startedAt: now, answerBy: answerBy)
        entries[index].startedAt = now
        return .request(index: index, deadline: answerBy)
    }

    /// Validates an ad and keeps it as a candidate, or rejects and releases it (R2, R7, R8).
    private mutating func admit(_ index: Int, ad: any LoadedAd, price: Double?, at now: MediationInstant) -> [Action] {
        entries[index].creativeID = ad.creativeID
        entries[index].rawPrice = price
        let lineItem = entries[index].lineItem
        let rejection: LossReason?
        let value = price.flatMap { AuctionValue(price: $0, usdRate: lineItem.usdRate) }
        if value == nil {
            rejection = .invalidResponse
        } else if ad.format != placement.format {
            rejection = .incorrectFormat
        } else if !slot.fits(ad.size) {
            rejection = .sizeNotAllowed
        } else if let value, let floor = entries[index].floor, value < floor {
            rejection = .belowFloor
        } else if let value, let placementFloor, value < placementFloor {
            rejection = .belowFloor
        } else {
            rejection = nil
        }
        if let rejection {
            entries[index].outcome = .lost(rejection)
            entries[index].released = true
            return [.release(ad)]
        }
        entries[index].candidate = ad
        entries[index].value = value
        if let current = best {
            if let value, let bestValue = entries[current].value, value > bestValue || (value == bestValue && ranksFirst(index, over: current)) {
                best = index
            }
        } else {
            best = index
        }
        return []
    }

    /// Equal values: the earlier arrival, then the source listed first (R5).
    private func ranksFirst(_ index: Int, over other: Int) -> Bool {
        guard let arrival = entries[index].answeredAt, let otherArrival = entries[other].answeredAt else { return false }
        if arrival != otherArrival { return arrival < otherArrival }
        return index < other
    }

    /// Whether a source not yet done could still beat the best valid value (R4).
    private func canStillWin(_ index: Int) -> Bool {
        let entry = entries[index]
        if case .done = entry.phase { return false }
        guard let fixedValue = entry.fixedValue else { return true } // a bidder's price is unknown
        guard let best, let bestValue = entries[best].value else { return true }
        return fixedValue > bestValue
    }

    /// Waterfall: when the current tier has answered without a fill, asks the next tier that
    /// could still win; tiers that can no longer win are cancelled unasked (R1).
    private mutating func advanceWaterfall(at now: MediationInstant) -> [Action] {
        var actions: [Action] = []
        while true {
            if currentTier >= 0 {
                let tier = tiers[currentTier]
                let answered = tier.allSatisfy { if case .done = entries[$0].phase { true } else { false } }
                guard answered else { return actions }
                if tier.contains(where: { entries[$0].candidate != nil }) { return actions }
            }
            currentTier += 1
            guard currentTier < tiers.count else { return actions }
            let tier = tiers[currentTier]
            guard tier.contains(where: canStillWin) else { continue }
            for index in tier { actions.append(ask(index, at: now)) }
            return actions
        }
    }

    private mutating func finishIfDecided(at now: MediationInstant) -> [Action] {
        guard !entries.indices.contains(where: canStillWin) else { return [] }
        return finish(at: now)
    }

    /// Ends the auction: the best wins, other candidates lose (102) and are released,
    /// outstanding sources are cancelled, unasked ones too.
    private mutating func finish(at now: MediationInstant) -> [Action] {
        endedAt = now
        var actions: [Action] = []
        for index in entries.indices {
            if case .outstanding = entries[index].phase {
                entries[index].phase = .done
                entries[index].outcome = now >= deadline ? .timeout : .cancelled
                actions.append(.cancel(index: index))
            } else if entries[index].outcome == nil, entries[index].candidate == nil {
                entries[index].phase = .done
                entries[index].outcome = .cancelled
            }
            if index == best {
                entries[index].outcome = .won
            } else if let ad = entries[index].candidate {
                entries[index].candidate = nil
                entries[index].outcome = .lost(.lostToHigherBid)
                entries[index].released = true
                actions.append(.release(ad))
            }
        }
        return actions + [.finish]
    }
}

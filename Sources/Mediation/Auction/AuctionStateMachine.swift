/// The auction's decisions as a pure state machine (engine rules R1 to R9): events in
/// (start, an answer, the end of an instant, an abort), actions out (ask a source, cancel it,
/// release an ad, finish). It never reads a clock or touches a task; ``AuctionRun`` performs
/// its actions. Every source ends with exactly one ``SourceOutcome`` (R6, R6a).
///
/// Answers only record what arrived; decisions (timeouts, the next waterfall tier, the early
/// end of R4, the deadline) are taken in ``endOfInstant(at:)``, which the driver runs once all
/// the work due at an instant has run (``MediationClock/atEndOfInstant(_:)``). So answers due
/// at the same instant get the same outcomes in whatever order they are processed, and an
/// answer at the very instant of a limit or of the decision counts as arrived (R6a).
///
/// Each event costs O(1) amortised, so an auction of n sources costs O(n) (not O(n^2)): whether
/// any source can still win (R4) and the next wake-up are kept as counters rather than scans.
/// The `into:` forms append to a buffer the driver reuses; the array forms are for tests.
struct AuctionStateMachine {
    /// What the driver must do.
    enum Action {
        /// Ask source `index`; its answer counts only strictly before `deadline`.
        case request(index: Int, deadline: MediationInstant)
        /// Cancel source `index`'s outstanding request.
        case cancel(index: Int)
        /// Call `releaseResources()` on this ad, once.
        case release(any LoadedAd)
        /// A source answered after its outcome was set (the end, its cancellation or its
        /// timeout); it is recorded on its line as a late answer.
        case late(index: Int, adReleased: Bool)
        /// Something arrived: run ``endOfInstant(at:)`` once the work due at this instant is
        /// done.
        case decideAtEndOfInstant
        /// The outcome is decided: build it with ``outcome(auctionID:startedAtWallClock:)`` and deliver it.
        case finish
    }

    private enum Phase {
        case waiting
        /// Asked at `startedAt`; its answer counts strictly before `answerBy`, the earliest of
        /// its limits, `limit` naming which (R3a).
        case outstanding(startedAt: MediationInstant, answerBy: MediationInstant, limit: SourceOutcome.TimeoutLimit)
        case done
    }

    /// The mutable state of one source (its line item is `lineItems[index]`, kept apart so
    /// entries hold no strings and copy cheaply).
    private struct Entry {
        /// The eCPM a fixed-price source is valued at in this auction, in its currency: the
        /// configured one, or an exploration draw (R23); `nil` for bidders.
        let fixedPrice: Double?
        /// ``fixedPrice`` as a value.
        let fixedValue: AuctionValue?
        /// The source's own floor, converted to USD.
        let floor: AuctionValue?
        var phase: Phase = .waiting
        var startedAt: MediationInstant?
        var answeredAt: MediationInstant?
        var outcome: SourceOutcome?
        var candidate: (any LoadedAd)?
        /// The ad object its answer carried and it holds (as candidate or released by it), so
        /// an object a network hands to two line items is admitted once (R7). Kept for the
        /// auction's life, so an identity is never reused by a new object at a freed address.
        var admittedAd: (any LoadedAd)?
        var value: AuctionValue?
        var rawPrice: Double?
        var creativeID: String?
        var adID: String?
        var requestID: String?
        var bidID: String?
        /// Its effective limit, from when it was asked (R3a).
        var limit: Duration?
        /// Waterfall: its tier, 1 for the highest eCPM.
        var tier: Int?
        var released = false
        /// The ad of this source the machine released or handed over as the winner: an answer
        /// that brings the same object again (late, or through another line item) is not
        /// released a second time, nor released while the caller holds it (R7).
        var settledAd: SettledAd?
        /// The first answer that came after its outcome was set, and whether it brought an ad
        /// (released on arrival).
        var lateAnswer: (at: MediationInstant, released: Bool)?
        /// Warnings its line carries when it was asked (e.g. `anchored_for_inline`).
        var warningsIfAsked: [AuctionTrace.Source.Issue] = []
        /// Its network is paused until this instant (R24): it is `not_asked`
        /// (`network_paused`), or, when the pause came while it was outstanding, it times out
        /// (`network_paused`) at the end of that instant unless it answered by then.
        var pausedUntil: MediationInstant?
        /// Capped (`docs/caps.md`): it is `not_asked` (`capped`), and may be asked again at
        /// ``cappedRetryAt`` (`nil`: at the next session).
        var isCapped = false
        var cappedRetryAt: MediationInstant?
    }

    /// What every auction of the placement shares and never changes, in one shared box, so that
    /// starting an auction from a prepared machine copies one reference, not every string of the
    /// configuration.
    private final class Plan: Sendable {
        let placement: MediationConfiguration.Placement
        /// The placement's floor; a floor too large to represent admits nothing.
        let placementFloor: AuctionValue?
        let lineItems: [LineItem]
        /// Each source's network `timeout_ms`, by source index (R3a).
        let networkTimeouts: [Duration?]
        /// Trace warnings of every auction of this placement (e.g. `sandbox_endpoint`).
        let traceWarnings: [AuctionTrace.Warning]
        /// The placement's configuration as every trace shows it (made once).
        let placementSummary: AuctionTrace.PlacementSummary
        /// Sources with a fixed value, highest value first.
        let fixedByValue: [Int]
        /// The `config_version` every trace names (R22).
        let configVersion: Int
        /// Guards the building of the lines of every trace of this placement
        /// (``TraceLines``): one lock per placement rather than one allocated per auction; lines
        /// are built at most once per trace, when a trace is read.
        let linesLock = Locked(())

        init(placement: MediationConfiguration.Placement, lineItems: [LineItem], networkTimeouts: [Duration?], traceWarnings: [AuctionTrace.Warning], fixedByValue: [Int], configVersion: Int) {
            self.placement = placement
            placementFloor = placement.floor.map { AuctionStateMachine.floorValue($0, usdRate: 1) }
            self.lineItems = lineItems
            self.networkTimeouts = networkTimeouts
            self.traceWarnings = traceWarnings
            placementSummary = AuctionTrace.PlacementSummary(placement)
            self.fixedByValue = fixedByValue
            self.configVersion = configVersion
        }
    }

    private let plan: Plan
    private var placement: MediationConfiguration.Placement { plan.placement }
    private var placementFloor: AuctionValue? { plan.placementFloor }
    private var lineItems: [LineItem] { plan.lineItems }
    private var networkTimeouts: [Duration?] { plan.networkTimeouts }
    private var traceWarnings: [AuctionTrace.Warning] { plan.traceWarnings }
    private var placementSummary: AuctionTrace.PlacementSummary { plan.placementSummary }
    private var fixedByValue: [Int] { plan.fixedByValue }
    /// The `config_version` of the configuration the machine was made from (R22).
    var configVersion: Int { plan.configVersion }
    /// Who the auction runs for (its country and segment), for the trace.
    var audience: AuctionTrace.AudienceLabel?
    /// The slot this auction's ads must fit (R8a): the placement's declared slot, narrowed by
    /// the request's (a host's `slotDidResize` may shrink it, never grow it), with an
    /// unbounded width bounded by the screen's; set by the driver with
    /// ``constrainSlot(to:screenWidth:)`` on its copy of a prepared machine.
    private(set) var slot: SlotSize
    /// Many sources: the line item holding each admitted ad object, by identity (the entries'
    /// ``Entry/admittedAd`` keep the objects alive, so an identity is not reused meanwhile).
    private var adHolders: [ObjectIdentifier: Int] = [:]
    /// Up to this many sources the holder of an ad object is found by a linear search.
    private static let linearHolderSearchLimit = 16
    private var entries: [Entry]
    /// Sources not yet done that have no fixed value (bidders): each can always still win (R4).
    private var unpricedNotDone = 0
    /// How many of ``fixedByValue`` to skip: those already done.
    private var fixedCursor = 0
    /// Outstanding sources whose own timeout falls before the deadline.
    private var earlyTimeoutsOutstanding = 0
    /// Fixed-price tiers for waterfall mode, highest eCPM first; each a list of indices.
    private var tiers: [[Int]] = []
    private var currentTier = -1
    /// Whether ``start(at:)`` has run.
    private var started = false
    private(set) var startedAt: MediationInstant = .origin
    private(set) var deadline: MediationInstant = .origin
    private(set) var endedAt: MediationInstant?
    private var best: Int?
    /// The winner's ad, taken out of its entry when the auction finishes (so the entries a
    /// trace keeps hold no ads).
    private var winnerAd: (any LoadedAd)?

    /// Gives this copy of a prepared machine entries of its own, made fresh from the prepared
    /// ones' fixed values: cheaper than the copy its first change would make (which copies
    /// every field of every entry, a retain for each reference among them).
    mutating func makeEntriesOwn() {
        var fresh: [Entry] = []
        fresh.reserveCapacity(entries.count)
        entries.withUnsafeBufferPointer { prepared in
            for index in prepared.indices {
                fresh.append(Entry(fixedPrice: prepared[index].fixedPrice, fixedValue: prepared[index].fixedValue, floor: prepared[index].floor))
            }
        }
        entries = fresh
    }

    /// Creates a machine for one auction of `placement` over `sources` (config order).
    /// - Parameters:
    ///   - slot: the slot ads must fit (default: the placement's configured slot); it is
    ///     clamped to the placement's declared slot (R8a).
    ///   - networkTimeouts: each source's network `timeout_ms`, by source index (missing
    ///     entries: none).
    ///   - warnings: warnings every trace of this placement carries.
    ///   - configVersion: the `config_version` every trace names (R22).
    ///   - fixedPrices: the eCPM each fixed-price source is valued at, in its currency, by
    ///     source index (default: each line item's configured eCPM); an exploring auction's draws.
    init(placement: MediationConfiguration.Placement, sources: [LineItem], slot: SlotSize? = nil, networkTimeouts: [Duration?] = [], warnings: [AuctionTrace.Warning] = [], configVersion: Int = 0, fixedPrices: [Double?]? = nil) {
        self.slot = (slot ?? placement.slot).clamped(to: placement.slot)
        entries = sources.indices.map { index in
            let item = sources[index]
            let price = item.pricing == .fixedPrice ? (fixedPrices.map { index < $0.count ? $0[index] : nil } ?? item.eCPM) : nil
            return Entry(
                fixedPrice: price,
                fixedValue: price.flatMap { AuctionValue(price: $0, usdRate: item.usdRate) },
                floor: item.floor.map { AuctionStateMachine.floorValue($0, usdRate: item.usdRate) }
            )
        }
        var fixed: [(index: Int, value: AuctionValue)] = []
        for index in entries.indices {
            if let value = entries[index].fixedValue {
                fixed.append((index, value))
            } else {
                unpricedNotDone += 1
            }
        }
        fixed.sort { $0.value > $1.value }
        plan = Plan(
            placement: placement,
            lineItems: sources,
            networkTimeouts: sources.indices.map { $0 < networkTimeouts.count ? networkTimeouts[$0] : nil },
            traceWarnings: warnings,
            fixedByValue: fixed.map(\.index),
            configVersion: configVersion
        )
    }

    /// A floor as a value. The configuration admits only positive finite floors up to
    /// ``AuctionValue/maximumECPM``; anything else here admits nothing rather than everything.
    private static func floorValue(_ floor: Double, usdRate: Double) -> AuctionValue {
        AuctionValue(price: floor, usdRate: usdRate) ?? AuctionValue(micros: .max)
    }

    /// Sets the slot of this auction from the request's (R8a): the placement's declared slot
    /// narrowed by `requested` (never widened), with an unbounded width bounded by
    /// `screenWidth` when that is a usable width.
    /// - Parameters:
    ///   - requested: the slot the request asks for (it follows `slotDidResize`).
    ///   - screenWidth: the device's screen width in points.
    mutating func constrainSlot(to requested: SlotSize, screenWidth: Double) {
        slot = requested.clamped(to: placement.slot).boundingWidth(by: screenWidth)
    }

    /// Adds a warning to source `index`'s trace line, shown when the source is asked (the driver
    /// knows what it will ask differently, e.g. an anchored banner for an inline slot).
    /// - Parameters:
    ///   - warning: the warning.
    ///   - index: the source's index.
    mutating func addWarningIfAsked(_ warning: AuctionTrace.Source.Issue, toSourceAt index: Int) {
        guard entries.indices.contains(index) else { return }
        entries[index].warningsIfAsked.append(warning)
    }

    /// Marks source `index`'s network as paused until `retryAt` (R24): the source is not asked
    /// (`network_paused`); in waterfall mode its tier is passed over at once.
    /// - Parameters:
    ///   - index: the source's index.
    ///   - retryAt: when its network is tried again.
    mutating func pause(sourceAt index: Int, until retryAt: MediationInstant) {
        guard entries.indices.contains(index) else { return }
        entries[index].pausedUntil = retryAt
    }

    /// Marks source `index` as capped before the start (`docs/caps.md`): it is `not_asked`
    /// (`capped`) and its trace line names when it may be asked again.
    /// - Parameters:
    ///   - index: the source's index (others are ignored).
    ///   - retryAt: when its cap frees; `nil` at the next session.
    mutating func cap(sourceAt index: Int, until retryAt: MediationInstant?) {
        guard entries.indices.contains(index), !started else { return }
        entries[index].isCapped = true
        entries[index].cappedRetryAt = retryAt
    }

    /// The network of sources `indices` (or their line item) was paused at `now` until
    /// `retryAt`, while this auction runs (R24): the auction stops waiting for them. A source
    /// still outstanding times out (`network_paused`) at the end of this instant, unless it
    /// answers by then (an answer at the pause's instant counts, R6a); a source not asked yet
    /// (a waterfall tier not reached) is `not_asked` (`network_paused`) and its tier is passed
    /// over; a source done already keeps its outcome. Before the start it is the same as
    /// ``pause(sourceAt:until:)``; after the end it does nothing. An answer that still comes
    /// is a late answer, its ad released once (R7).
    /// - Parameters:
    ///   - indices: the sources' indices (others are ignored).
    ///   - retryAt: when their network is tried again.
    ///   - now: the pause's instant.
    ///   - actions: where the actions are appended.
    mutating func networkPaused<Indices: Sequence>(sourcesAt indices: Indices, until retryAt: MediationInstant, at now: MediationInstant, into actions: inout [Action]) where Indices.Element == Int {
        guard !isFinished else { return }
        var changed = false
        for index in indices where entries.indices.contains(index) {
            guard started else {
                entries[index].pausedUntil = retryAt
                continue
            }
            switch entries[index].phase {
            case .outstanding:
                entries[index].pausedUntil = retryAt
                changed = true
            case .waiting:
                guard entries[index].outcome == nil else { continue }
                entries[index].pausedUntil = retryAt
                entries[index].outcome = .notAsked(.networkPaused)
                markDone(index)
                changed = true
            case .done:
                continue
            }
        }
        if changed { actions.append(.decideAtEndOfInstant) }
    }

    /// ``networkPaused(sourcesAt:until:at:into:)`` with a fresh buffer (tests).
    mutating func networkPaused(sourcesAt indices: [Int], until retryAt: MediationInstant, at now: MediationInstant) -> [Action] {
        collecting { $0.networkPaused(sourcesAt: indices, until: retryAt, at: now, into: &$1) }
    }

    /// The slot the placement declares (its configuration's).
    var declaredSlot: SlotSize { placement.slot }

    /// Whether the outcome has been decided.
    var isFinished: Bool { endedAt != nil }

    /// An id a network sent, cut to ``NetworkValueBounds/maximumIdentifierLength`` characters
    /// (R16); the usual short id costs one length check of its UTF-8 bytes.
    static func bounded(_ identifier: String) -> String {
        identifier.utf8.count <= NetworkValueBounds.maximumIdentifierLength ? identifier : NetworkValueBounds.identifier(identifier)
    }

    /// The next instant at which ``endOfInstant(at:)`` must run (a source timeout or the deadline).
    var nextWakeup: MediationInstant? {
        guard !isFinished else { return nil }
        var wakeup = deadline
        guard earlyTimeoutsOutstanding > 0 else { return wakeup }
        for entry in entries {
            if case .outstanding(_, let answerBy, _) = entry.phase, answerBy < wakeup { wakeup = answerBy }
        }
        return wakeup
    }

    // MARK: Events

    /// Starts the auction at `now`: asks every eligible source (parallel) or the bidders and the
    /// first fixed-price tier that could win (waterfall).
    mutating func start(at now: MediationInstant) -> [Action] {
        collecting { $0.start(at: now, into: &$1) }
    }

    /// ``start(at:)``, appending the actions to `actions`.
    mutating func start(at now: MediationInstant, into actions: inout [Action]) {
        started = true
        startedAt = now
        deadline = now + min(placement.deadline, MediationConfiguration.Placement.defaultDeadline)
        actions.reserveCapacity(actions.count + entries.count + 1)
        for index in entries.indices {
            let isBidder = lineItems[index].pricing == .bidder
            if entries[index].isCapped {
                // A cap binds past the time its ad could be shown: not asked (no wasted load).
                entries[index].outcome = .notAsked(.capped)
                markDone(index)
                continue
            }
            if entries[index].pausedUntil != nil {
                // Its network is paused (R24): not asked, and its tier passed over at once.
                entries[index].outcome = .notAsked(.networkPaused)
                markDone(index)
                continue
            }
            if !isBidder {
                guard let value = entries[index].fixedValue, placementFloor.map({ value >= $0 }) ?? true else {
                    // A fixed price that is invalid or under the placement's floor can never win:
                    // it is not asked (R6a).
                    entries[index].outcome = .notAsked(entries[index].fixedValue == nil ? .invalidECPM : .underFloor)
                    markDone(index)
                    continue
                }
            }
            if placement.mode == .parallel || isBidder {
                actions.append(ask(index, at: now))
            }
        }
        if placement.mode == .waterfall {
            // Sources grouped by value in one pass (config order within a tier), highest first.
            var byValue: [AuctionValue: [Int]] = [:]
            for index in entries.indices where lineItems[index].pricing == .fixedPrice && (entries[index].outcome == nil || entries[index].pausedUntil != nil || entries[index].isCapped) {
                if let value = entries[index].fixedValue { byValue[value, default: []].append(index) }
            }
            tiers = byValue.keys.sorted(by: >).compactMap { byValue[$0] }
            for (number, tier) in tiers.enumerated() {
                for index in tier { entries[index].tier = number + 1 }
            }
            advanceWaterfall(at: now, into: &actions)
        }
        finishIfDecided(at: now, into: &actions)
    }

    /// Source `index` answered `result` at `now`.
    mutating func answer(_ index: Int, result: AdLoadResult, at now: MediationInstant) -> [Action] {
        collecting { $0.answer(index, result: result, at: now, into: &$1) }
    }

    /// ``answer(_:result:at:)``, appending the actions to `actions`. It records the answer
    /// (or rejects and releases its ad) and asks for ``endOfInstant(at:)``; it decides nothing
    /// else, so the order of same-instant answers does not matter (R6a).
    mutating func answer(_ index: Int, result: AdLoadResult, at now: MediationInstant, into actions: inout [Action]) {
        guard entries.indices.contains(index) else {
            if let ad = result.ad { actions.append(.release(ad)) }
            return
        }
        guard case .outstanding(_, let answerBy, let limit) = entries[index].phase else {
            // After its outcome was set (the end, its cancellation or its timeout): not a new
            // outcome, a late answer on its line (R6a); its ad is released on arrival (R7). An
            // adapter acknowledging its cancellation is not news and is not recorded.
            if case .failure(let error) = result, error.kind == .cancelled { return }
            recordLate(index, result: result, at: now, into: &actions)
            return
        }
        markDone(index)
        // It answered: a pause of its network at this instant no longer ends its wait.
        entries[index].pausedUntil = nil
        if now > answerBy {
            // On continuous time an answer may be stamped after its limit before the timer
            // fires: a timeout naming that limit, and the answer recorded as late (R3a).
            entries[index].outcome = .timeout(limit)
            recordLate(index, result: result, at: now, into: &actions)
            actions.append(.decideAtEndOfInstant)
            return
        }
        // An answer at its limit's instant itself counts as arrived (R6a).
        entries[index].answeredAt = now
        switch result {
        case .noFill(let reason):
            entries[index].outcome = .noFill(reason)
        case .failure(let error):
            entries[index].outcome = .error(error)
        case .bid(let ad, let price):
            admit(index, ad: ad, price: lineItems[index].pricing == .bidder ? price : entries[index].fixedPrice, at: now, into: &actions)
        case .fill(let ad):
            admit(index, ad: ad, price: lineItems[index].pricing == .fixedPrice ? entries[index].fixedPrice : nil, at: now, into: &actions)
        }
        actions.append(.decideAtEndOfInstant)
    }

    /// Records the first answer of source `index` after its outcome was set and releases its
    /// ad; a further answer only has its ad released.
    private mutating func recordLate(_ index: Int, result: AdLoadResult, at now: MediationInstant, into actions: inout [Action]) {
        var released = false
        if let ad = result.ad, !isHeldOrSettled(ad) {
            actions.append(.release(ad))
            entries[index].settledAd = SettledAd(ad)
            released = true
        }
        guard entries[index].lateAnswer == nil else { return }
        entries[index].lateAnswer = (now, released)
        if let ad = result.ad, entries[index].creativeID == nil { keepIDs(of: ad, for: index) }
        actions.append(.late(index: index, adReleased: released))
    }

    /// Whether `ad` is an object this auction already holds (a live line item admitted it, so
    /// that one wins it or releases it), released, or handed over as its winner (R7).
    private func isHeldOrSettled(_ ad: any LoadedAd) -> Bool {
        if holder(of: ad) != nil { return true }
        return entries.contains { $0.settledAd?.matches(ad) == true }
    }

    /// The end of the instant `now`, once every answer due at it has been recorded: sources
    /// whose limit is `now` or earlier time out; at the deadline the auction ends with what it
    /// has (R3); otherwise the next waterfall tier is asked (R1) and the auction ends if no
    /// outstanding source can still win (R4).
    mutating func endOfInstant(at now: MediationInstant) -> [Action] {
        collecting { $0.endOfInstant(at: now, into: &$1) }
    }

    /// ``endOfInstant(at:)``, appending the actions to `actions`.
    mutating func endOfInstant(at now: MediationInstant, into actions: inout [Action]) {
        guard !isFinished else { return }
        for index in entries.indices {
            guard case .outstanding(_, let answerBy, let limit) = entries[index].phase else { continue }
            if answerBy <= now {
                entries[index].pausedUntil = nil
                entries[index].outcome = .timeout(limit)
            } else if entries[index].pausedUntil != nil {
                // Its network was paused while it was waited for (R24): not waited for longer.
                entries[index].outcome = .timeout(.networkPaused)
            } else {
                continue
            }
            markDone(index)
            actions.append(.cancel(index: index))
        }
        if now >= deadline {
            finish(at: now, into: &actions)
            return
        }
        if placement.mode == .waterfall { advanceWaterfall(at: now, into: &actions) }
        finishIfDecided(at: now, into: &actions)
    }

    /// The caller gave up (its task was cancelled): everything outstanding is cancelled and
    /// every ad, the best included, is released.
    mutating func abort(at now: MediationInstant) -> [Action] {
        collecting { $0.abort(at: now, into: &$1) }
    }

    /// ``abort(at:)``, appending the actions to `actions`.
    mutating func abort(at now: MediationInstant, into actions: inout [Action]) {
        guard !isFinished else { return }
        for index in entries.indices {
            if case .outstanding = entries[index].phase {
                actions.append(.cancel(index: index))
                entries[index].outcome = .cancelled(couldNotBeat: nil)
            } else if entries[index].outcome == nil, entries[index].candidate == nil {
                entries[index].outcome = .notAsked(.tierNotReached)
            }
            markDone(index)
            entries[index].admittedAd = nil
            if let ad = entries[index].candidate {
                entries[index].candidate = nil
                entries[index].released = true
                entries[index].settledAd = SettledAd(ad)
                entries[index].outcome = .cancelled(couldNotBeat: nil)
                actions.append(.release(ad))
            }
        }
        best = nil
        adHolders.removeAll()
        endedAt = now
        actions.append(.finish)
    }

    /// Runs one `into:` step on a fresh buffer: the array forms above, used by tests.
    private mutating func collecting(_ step: (inout AuctionStateMachine, inout [Action]) -> Void) -> [Action] {
        var actions: [Action] = []
        step(&self, &actions)
        return actions
    }

    // MARK: Outcome

    /// ``outcome(auctionID:startedAtWallClock:)``, handing the winner's ad over: the machine
    /// keeps no reference to it, so once the caller lets the outcome go the ad can go too, even
    /// while the run lives on for a source that has not returned yet. The driver's form.
    /// - Parameters:
    ///   - auctionID: the auction's id.
    ///   - startedAtWallClock: the wall-clock time the auction started, if known.
    mutating func takeOutcome(auctionID: String, startedAtWallClock: WallClockTime? = nil) -> MediationEngine.AuctionOutcome {
        let taken = outcome(auctionID: auctionID, startedAtWallClock: startedAtWallClock)
        winnerAd = nil
        return taken
    }

    /// The outcome once finished: the winner (not released) and the trace.
    /// - Parameters:
    ///   - auctionID: the auction's id.
    ///   - startedAtWallClock: the wall-clock time the auction started, if known.
    func outcome(auctionID: String, startedAtWallClock: WallClockTime? = nil) -> MediationEngine.AuctionOutcome {
        let winner: MediationEngine.AuctionOutcome.Winner? = best.flatMap { index in
            guard let ad = winnerAd, let value = entries[index].value, let arrivedAt = entries[index].answeredAt else { return nil }
            return MediationEngine.AuctionOutcome.Winner(ad: ad, lineItems: lineItems, at: index, eCPM: value.eCPM, arrivedAt: arrivedAt)
        }
        return MediationEngine.AuctionOutcome(
            winner: winner,
            trace: AuctionTrace(
                auctionID: auctionID,
                placementID: placement.id,
                mode: placement.mode,
                startedAtWallClock: startedAtWallClock,
                startedAtMilliseconds: startedAt.milliseconds,
                endedAtMilliseconds: (endedAt ?? startedAt).milliseconds,
                deadlineMilliseconds: deadline.milliseconds,
                placement: placementSummary,
                winner: winner?.lineItem.id,
                winningECPM: winner?.eCPM,
                deferredSources: TraceLines(entries: entries, lineItems: lineItems, startedAt: startedAt, lock: plan.linesLock),
                warnings: traceWarnings,
                configVersion: configVersion,
                audience: audience
            )
        )
    }

    /// The lines of a finished auction's trace, built from its entries when first read (the
    /// entries as they were when the outcome was taken; they hold no ads by then).
    ///
    /// `@unchecked Sendable`: ``built`` is read and written only under ``lock``, the
    /// placement's (``Plan/linesLock``), which saves each auction allocating a lock of its own.
    private final class TraceLines: DeferredSourceLines, @unchecked Sendable {
        private let entries: [Entry]
        private let lineItems: [LineItem]
        private let startedAt: MediationInstant
        private let lock: Locked<Void>
        private var built: [AuctionTrace.Source]?

        init(entries: [Entry], lineItems: [LineItem], startedAt: MediationInstant, lock: Locked<Void>) {
            self.entries = entries
            self.lineItems = lineItems
            self.startedAt = startedAt
            self.lock = lock
        }

        var count: Int { entries.count }

        var lines: [AuctionTrace.Source] {
            lock.withLock { _ in
                if let built { return built }
                let lines = entries.indices.map(line(at:))
                built = lines
                return lines
            }
        }

        func summary(at index: Int) -> SourceLineSummary {
            SourceLineSummary(
                wasAsked: entries[index].startedAt != nil,
                latencyMilliseconds: latency(at: index),
                outcome: entries[index].outcome ?? .notAsked(.tierNotReached)
            )
        }

        func value(at index: Int) -> Double? {
            entries[index].startedAt == nil ? nil : entries[index].value?.eCPM
        }

        func timing(at index: Int) -> (lineItemID: String, startOffsetMilliseconds: Double?, limitMilliseconds: Double?) {
            (lineItems[index].id, entries[index].startedAt.map { ($0 - startedAt).milliseconds }, entries[index].limit?.milliseconds)
        }

        var healthSignals: HealthSignals {
            var signals = HealthSignals()
            for index in entries.indices {
                // No outcome: its tier was not reached, which says nothing.
                signals.append(entries[index].outcome.flatMap(HealthSignal.init))
            }
            return signals
        }

        func notice(at index: Int, auctionID: String, placementID: String, adUnitID: String, priceToBeat: (_ won: Bool) -> Double?) -> AuctionNotice? {
            guard entries[index].startedAt != nil else { return nil }
            let outcome = entries[index].outcome ?? .notAsked(.tierNotReached)
            let won = if case .won = outcome { true } else { false }
            return AuctionNotice(auctionID: auctionID, placementID: placementID, lineItemID: lineItems[index].id, adUnitID: adUnitID, outcome: outcome, eCPM: entries[index].value?.eCPM, priceToBeat: priceToBeat(won), adID: entries[index].adID)
        }

        func forEachNotice(auctionID: String, placementID: String, count: Int, winningECPM: Double?, receives: (Int) -> Bool, adUnitID: (Int) -> String, _ deliver: (Int, AuctionNotice) -> Void) {
            entries.withUnsafeBufferPointer { entries in
                let count = min(count, entries.count)
                // The highest valid value and the one below it (equal on a tie): the winner's
                // price to beat is the highest of the others.
                var highest: (index: Int, value: Double)?
                var runnerUp: Double?
                for index in 0..<count where entries[index].startedAt != nil {
                    guard let value = entries[index].value?.eCPM else { continue }
                    if let top = highest, value <= top.value {
                        if value > (runnerUp ?? -Double.infinity) { runnerUp = value }
                    } else {
                        runnerUp = highest?.value
                        highest = (index, value)
                    }
                }
                for index in 0..<count where entries[index].startedAt != nil && receives(index) {
                    let outcome = entries[index].outcome ?? .notAsked(.tierNotReached)
                    let priceToBeat: Double?
                    if case .won = outcome {
                        priceToBeat = highest?.index == index ? runnerUp : highest?.value
                    } else {
                        priceToBeat = winningECPM
                    }
                    deliver(index, AuctionNotice(auctionID: auctionID, placementID: placementID, lineItemID: lineItems[index].id, adUnitID: adUnitID(index), outcome: outcome, eCPM: entries[index].value?.eCPM, priceToBeat: priceToBeat, adID: entries[index].adID))
                }
            }
        }

        private func latency(at index: Int) -> Double? {
            guard let answeredAt = entries[index].answeredAt, let startedAt = entries[index].startedAt else { return nil }
            return (answeredAt - startedAt).milliseconds
        }

        private func line(at index: Int) -> AuctionTrace.Source {
            let entry = entries[index]
            let item = lineItems[index]
            let outcome = entry.outcome ?? .notAsked(.tierNotReached)
            let late = entry.lateAnswer.map { AuctionTrace.Source.LateAnswer(atOffsetMilliseconds: ($0.at - startedAt).milliseconds, released: $0.released) }
            return AuctionTrace.Source(
                lineItemID: item.id,
                network: item.network,
                adUnitID: item.adUnitID,
                pricing: item.pricing,
                position: index,
                tier: entry.tier,
                configuredECPM: item.pricing == .fixedPrice ? item.eCPM : nil,
                floor: item.floor,
                currency: item.currency,
                usdRate: item.currency == "USD" ? nil : item.usdRate,
                limitMilliseconds: entry.limit?.milliseconds,
                startOffsetMilliseconds: entry.startedAt.map { ($0 - startedAt).milliseconds },
                latencyMilliseconds: latency(at: index),
                outcome: outcome,
                eCPM: entry.value?.eCPM,
                rawPrice: entry.rawPrice,
                requestID: entry.requestID,
                bidID: entry.bidID,
                creativeID: entry.creativeID,
                adID: entry.adID,
                adReleased: entry.released,
                lateAnswer: late,
                retryAtMilliseconds: (entry.pausedUntil ?? entry.cappedRetryAt)?.milliseconds,
                errors: TraceIssues.errors(for: outcome, limit: entry.limit),
                warnings: (entry.startedAt == nil ? [] : entry.warningsIfAsked) + (late.map { [TraceIssues.lateAnswer($0)] } ?? [])
            )
        }
    }

    // MARK: Steps

    /// Asks source `index` at `now`. Its effective limit (R3a) is the earliest of its line
    /// item's `timeout_ms` and its network's `timeout_ms`, both counted from now (the moment it
    /// is asked, so a waterfall tier asked later gets its full time), and the deadline. On
    /// equal instants the deadline is named, then the line item's limit.
    private mutating func ask(_ index: Int, at now: MediationInstant) -> Action {
        var answerBy = deadline
        var limit = SourceOutcome.TimeoutLimit.deadline
        if let timeout = lineItems[index].timeout, now + timeout < answerBy {
            answerBy = now + timeout
            limit = .source
        }
        if let timeout = networkTimeouts[index], now + timeout < answerBy {
            answerBy = now + timeout
            limit = .network
        }
        if answerBy < deadline { earlyTimeoutsOutstanding += 1 }
        entries[index].phase = .outstanding(startedAt: now, answerBy: answerBy, limit: limit)
        entries[index].startedAt = now
        entries[index].limit = answerBy - now
        return .request(index: index, deadline: answerBy)
    }

    /// Validates an ad and keeps it as a candidate, or rejects and releases it (R2, R7, R8,
    /// R8a, R16): the engine's one boundary for what an answer carries. A price or a size out
    /// of ``NetworkValueBounds`` makes the answer invalid (3); the ids the trace keeps are
    /// bounded in length.
    private mutating func admit(_ index: Int, ad: any LoadedAd, price: Double?, at now: MediationInstant, into actions: inout [Action]) {
        keepIDs(of: ad, for: index)
        entries[index].rawPrice = price
        if let holder = holder(of: ad) {
            // The network handed the same ad object to two line items of this auction: an
            // invalid answer (3) for the one listed later, whatever the order they arrived in.
            // The object is never released here: its holder wins it or releases it, once.
            guard index < holder, entries[holder].candidate === ad else {
                entries[index].outcome = .lost(.invalidResponse)
                return
            }
            entries[holder].candidate = nil
            entries[holder].admittedAd = nil
            entries[holder].value = nil
            entries[holder].outcome = .lost(.invalidResponse)
            if best == holder { best = bestCandidate() }
        }
        entries[index].admittedAd = ad
        if entries.count > AuctionStateMachine.linearHolderSearchLimit { adHolders[ObjectIdentifier(ad)] = index }
        let usdRate = lineItems[index].usdRate
        let rejection: SourceOutcome.LossReason?
        let value = price.flatMap { AuctionValue(price: $0, usdRate: usdRate) }
        if value == nil || !NetworkValueBounds.isValidAdSize(ad.size) {
            rejection = .invalidResponse
        } else if ad.format != placement.format {
            rejection = .incorrectFormat
        } else if !slot.fits(ad.size) || !ad.suits(slot) {
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
            entries[index].settledAd = SettledAd(ad)
            actions.append(.release(ad))
            return
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
    }

    /// Keeps the ids an ad carries on its source's line, bounded in length (R16).
    private mutating func keepIDs(of ad: any LoadedAd, for index: Int) {
        entries[index].creativeID = AuctionStateMachine.bounded(ad.creativeID)
        entries[index].adID = AuctionStateMachine.bounded(ad.id)
        entries[index].requestID = ad.requestID.map(AuctionStateMachine.bounded)
        entries[index].bidID = ad.bidID.map(AuctionStateMachine.bounded)
    }

    /// The line item that holds `ad` (admitted it first), if any.
    private func holder(of ad: any LoadedAd) -> Int? {
        if entries.count > AuctionStateMachine.linearHolderSearchLimit {
            guard let index = adHolders[ObjectIdentifier(ad)], entries[index].admittedAd === ad else { return nil }
            return index
        }
        return entries.firstIndex { $0.admittedAd === ad }
    }

    /// The best candidate held now (R5), or `nil`.
    private func bestCandidate() -> Int? {
        var found: Int?
        for index in entries.indices where entries[index].candidate != nil {
            guard let value = entries[index].value else { continue }
            if let current = found, let currentValue = entries[current].value, !(value > currentValue || (value == currentValue && ranksFirst(index, over: current))) { continue }
            found = index
        }
        return found
    }

    /// Equal values: the earlier arrival, then the source listed first (R5).
    private func ranksFirst(_ index: Int, over other: Int) -> Bool {
        guard let arrival = entries[index].answeredAt, let otherArrival = entries[other].answeredAt else { return false }
        if arrival != otherArrival { return arrival < otherArrival }
        return index < other
    }

    /// Whether a source not yet done could still beat the best valid value (R4).
    private func canStillWin(_ index: Int) -> Bool {
        if case .done = entries[index].phase { return false }
        guard let fixedValue = entries[index].fixedValue else { return true } // a bidder's price is unknown
        guard let best, let bestValue = entries[best].value else { return true }
        return fixedValue > bestValue
    }

    /// Whether any source could still win (R4): `entries.contains(where: canStillWin)` in
    /// O(1) amortised. A bidder not done can; otherwise the fixed-price source with the highest
    /// value not yet done decides.
    private mutating func anyCanStillWin() -> Bool {
        if unpricedNotDone > 0 { return true }
        while fixedCursor < fixedByValue.count, case .done = entries[fixedByValue[fixedCursor]].phase {
            fixedCursor += 1
        }
        guard fixedCursor < fixedByValue.count else { return false }
        return canStillWin(fixedByValue[fixedCursor])
    }

    /// Moves source `index` to done, keeping the counters in step.
    private mutating func markDone(_ index: Int) {
        switch entries[index].phase {
        case .done:
            return
        case .outstanding(_, let answerBy, _):
            if answerBy < deadline { earlyTimeoutsOutstanding -= 1 }
        case .waiting:
            break
        }
        entries[index].phase = .done
        if entries[index].fixedValue == nil { unpricedNotDone -= 1 }
    }

    /// Waterfall: when the current tier has answered without a fill, asks the next tier that
    /// could still win; tiers that can no longer win are skipped, never asked (R1, R6a).
    private mutating func advanceWaterfall(at now: MediationInstant, into actions: inout [Action]) {
        while true {
            // Every tier was asked: nothing more to ask (a bidder answering after the last
            // tier failed lands here).
            guard currentTier < tiers.count else { return }
            if currentTier >= 0 {
                let tier = tiers[currentTier]
                let answered = tier.allSatisfy { if case .done = entries[$0].phase { true } else { false } }
                guard answered else { return }
                if tier.contains(where: { entries[$0].candidate != nil }) { return }
            }
            currentTier += 1
            guard currentTier < tiers.count else { return }
            let tier = tiers[currentTier]
            guard tier.contains(where: canStillWin) else { continue }
            for index in tier { actions.append(ask(index, at: now)) }
            return
        }
    }

    private mutating func finishIfDecided(at now: MediationInstant, into actions: inout [Action]) {
        guard !anyCanStillWin() else { return }
        finish(at: now, into: &actions)
    }

    /// Ends the auction: the best wins, other candidates lose (102) and are released,
    /// outstanding sources are cancelled with the value they could not beat (at the deadline
    /// they time out), and sources never asked are `not_asked` (R6a).
    private mutating func finish(at now: MediationInstant, into actions: inout [Action]) {
        endedAt = now
        let bestValue = best.flatMap { entries[$0].value?.eCPM }
        for index in entries.indices {
            if case .outstanding = entries[index].phase {
                markDone(index)
                entries[index].pausedUntil = nil
                entries[index].outcome = now >= deadline ? .timeout(.deadline) : .cancelled(couldNotBeat: bestValue)
                actions.append(.cancel(index: index))
            } else if entries[index].outcome == nil, entries[index].candidate == nil {
                markDone(index)
                entries[index].outcome = .notAsked(.tierNotReached)
            }
            // Every answer has been admitted or refused: the identities are no longer needed.
            entries[index].admittedAd = nil
            if index == best {
                entries[index].outcome = .won
                winnerAd = entries[index].candidate
                entries[index].settledAd = winnerAd.map(SettledAd.init)
                entries[index].candidate = nil
            } else if let ad = entries[index].candidate {
                entries[index].candidate = nil
                entries[index].outcome = .lost(.lostToHigherBid)
                entries[index].released = true
                entries[index].settledAd = SettledAd(ad)
                actions.append(.release(ad))
            }
        }
        adHolders.removeAll()
        actions.append(.finish)
    }
}

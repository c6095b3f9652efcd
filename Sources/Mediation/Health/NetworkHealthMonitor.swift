import Foundation

/// The thin driver of every network's and line item's ``NetworkHealth`` (engine rule R24):
/// one per engine, shared by the auctions of every placement and every configuration. Before
/// an auction it says which networks and line items are paused; after it, it feeds each
/// network's one signal to its machine, and each line item's own signal to the line item's
/// (``LineItemRun`` says whose a failure is), keeps paused states in the state store
/// (``HealthSubject/storeKey``) and publishes `network_paused` and `network_resumed`.
///
/// A network's line items have machines of their own only when the network has more than
/// one line item in the configuration (``AuctionSource/lineItemHealth``): a lone line item's
/// verdicts are its network's. They follow the network's settings.
///
/// All state sits in one ``Locked`` box; events are published outside it. A machine's stored
/// state is read the first time an auction needs it.
final class NetworkHealthMonitor: Sendable {
    /// The networks of an auction's sources with health on, each once in config order, with
    /// its settings (clamped), the indices of its sources and its line items with a health of
    /// their own: built once per placement.
    struct Plan: Sendable {
        struct Network: Sendable {
            var subject: HealthSubject
            /// Its place in the monitor's table (``NetworkHealthMonitor/slot(of:)``).
            var slot: Int
            var settings: NetworkHealthSettings
            var sources: [Int]
            /// Its sources as a mask (bit `i` for source `i`), or `nil` when one is beyond the
            /// 64th: its signal is then combined source by source.
            var mask: UInt64?
            /// Its line items in ``Plan/lineItems``: none, or one for each of its sources.
            var lineItems: Range<Int> = 0..<0
        }

        struct LineItem: Sendable {
            var subject: HealthSubject
            /// Its place in the monitor's table.
            var slot: Int
            /// Its source's index.
            var source: Int
        }

        var networks: [Network] = []
        var lineItems: [LineItem] = []

        /// The plan of `sources` of placement `placementID` on `monitor`'s table.
        init(_ sources: [AuctionSource], placementID: String, on monitor: NetworkHealthMonitor) {
            var places: [String: Int] = [:]
            var ownHealth: [Bool] = []
            for (index, source) in sources.enumerated() where source.health.enabled {
                let id = source.lineItem.network
                if let place = places[id] {
                    networks[place].sources.append(index)
                    ownHealth[place] = ownHealth[place] || source.lineItemHealth
                } else {
                    places[id] = networks.count
                    networks.append(Network(subject: .network(id), slot: monitor.slot(of: .network(id)), settings: source.health.clamped, sources: [index]))
                    ownHealth.append(source.lineItemHealth)
                }
            }
            for place in networks.indices where networks[place].sources.allSatisfy({ $0 < 64 }) {
                networks[place].mask = networks[place].sources.reduce(0) { $0 | UInt64(1) << UInt64($1) }
            }
            for place in networks.indices where ownHealth[place] {
                let start = lineItems.count
                for index in networks[place].sources {
                    let subject = HealthSubject.lineItem(sources[index].lineItem.id, placementID: placementID, networkID: networks[place].subject.networkID)
                    lineItems.append(LineItem(subject: subject, slot: monitor.slot(of: subject), source: index))
                }
                networks[place].lineItems = start..<lineItems.count
            }
        }
    }

    /// What an auction was told: the sources paused for it (their network's or their own
    /// pause), and the networks and line items it asks as probes (by their place in the plan).
    /// Empty, as nearly always, it allocates nothing.
    struct Ticket: Sendable {
        /// Paused sources (by index) and when each is tried again.
        var paused: [Int: MediationInstant] = [:]
        /// The plan's networks this auction asks as probes.
        var probes: Set<Int> = []
        /// The plan's line items this auction asks as probes.
        var lineItemProbes: Set<Int> = []
        /// The slot of the auction's listener (``Table/listeners``), told of pauses until its
        /// verdicts are recorded.
        var listener: Int?

        /// A ticket that pauses nothing and probes nothing: made once (building the empty
        /// collections of a fresh one costs each auction a call).
        static let open = Ticket()
    }

    private let seed: UInt64
    private let store: any StateStore
    private let wallClock: @Sendable () -> Date
    private let logger: any MediationLogger
    private let emit: @Sendable (MediationEvent) -> Void

    /// Every network's and line item's machine, in a table whose slots plans hold (so an
    /// auction looks up no id); `nil` until its stored state is read.
    private struct Table {
        var slots: [HealthSubject: Int] = [:]
        var machines: [NetworkHealth?] = []
        /// Each line item's recent verdicts (``LineItemRun``), by slot (a network's is unused).
        var runs: [LineItemRun] = []
        /// The slots of each network's line items, by the network's slot.
        var lineItemSlots: [Int: [Int]] = [:]
        /// The number of the last auction recorded with line items (``LineItemRun``).
        var auctions: UInt64 = 0
        /// The auctions admitted and not yet recorded, each with its plan and its number in
        /// admission order: told of a pause of one of their networks or line items
        /// (``NetworkPauseListener``). In slots an auction's ticket holds (`nil`: free, listed
        /// in ``freeListeners``): adding and removing one hashes nothing.
        var listeners: [Listener?] = []
        /// The free slots of ``listeners``.
        var freeListeners: [Int] = []
        /// The number of the next listener.
        var nextListener: UInt64 = 0

        /// An admitted auction, told of pauses until its verdicts are recorded.
        struct Listener {
            let listener: any NetworkPauseListener
            let plan: Plan
            /// Its number in admission order.
            let number: UInt64
        }

        /// Adds `listener` of an auction over `plan`.
        /// - Returns: its slot, for ``removeListener(at:)``.
        mutating func addListener(_ listener: any NetworkPauseListener, plan: Plan) -> Int {
            let entry = Listener(listener: listener, plan: plan, number: nextListener)
            nextListener &+= 1
            if let slot = freeListeners.popLast() {
                listeners[slot] = entry
                return slot
            }
            listeners.append(entry)
            return listeners.count - 1
        }

        /// Removes the listener in `slot` (once its auction's verdicts are recorded).
        mutating func removeListener(at slot: Int) {
            guard listeners.indices.contains(slot), listeners[slot] != nil else { return }
            listeners[slot] = nil
            freeListeners.append(slot)
        }

        /// For each running auction with a source in `opened` (slots just paused, each with
        /// its retry instant), those sources and the retry instant, in admission order (not
        /// the dictionary's, which differs between processes: the same inputs give the same
        /// traces).
        func pauses(of opened: [(slot: Int, retryAt: MediationInstant)]) -> [(listener: any NetworkPauseListener, sources: [Int], retryAt: MediationInstant)] {
            var found: [(listener: any NetworkPauseListener, sources: [Int], retryAt: MediationInstant)] = []
            for (listener, plan) in listeners.compactMap({ $0 }).sorted(by: { $0.number < $1.number }).map({ ($0.listener, $0.plan) }) {
                for (slot, retryAt) in opened {
                    var sources: [Int] = []
                    for network in plan.networks where network.slot == slot { sources += network.sources }
                    for item in plan.lineItems where item.slot == slot { sources.append(item.source) }
                    if !sources.isEmpty { found.append((listener, sources, retryAt)) }
                }
            }
            return found
        }

        /// The slot of `subject`, made on first use.
        mutating func slot(of subject: HealthSubject) -> Int {
            if let slot = slots[subject] { return slot }
            let slot = machines.count
            slots[subject] = slot
            machines.append(nil)
            runs.append(LineItemRun())
            if subject.isLineItem {
                lineItemSlots[self.slot(of: .network(subject.networkID)), default: []].append(slot)
            }
            return slot
        }

        /// Makes `subjects` (the line items with a health of their own in the configuration in
        /// force) the only line items whose verdicts say whether another line item's failure is
        /// its own (``LineItemRun``): a line item a configuration removed, or gave another
        /// network, never fails again, so its last answer would stay its latest verdict for
        /// ever. Its run starts afresh; its machine (a pause, with its stored state) is kept.
        mutating func keepLineItems<Subjects: Sequence>(_ subjects: Subjects) where Subjects.Element == HealthSubject {
            var kept: [Int: [Int]] = [:]
            for subject in subjects {
                let itemSlot = slot(of: subject)
                let networkSlot = slot(of: .network(subject.networkID))
                if kept[networkSlot]?.contains(itemSlot) != true { kept[networkSlot, default: []].append(itemSlot) }
            }
            for (networkSlot, itemSlots) in lineItemSlots {
                for itemSlot in itemSlots where kept[networkSlot]?.contains(itemSlot) != true {
                    runs[itemSlot] = LineItemRun()
                }
            }
            lineItemSlots = kept
        }

        /// Whether the line item in `slot`, of the network in `networkSlot`, fails on its own.
        func failsAlone(_ slot: Int, ofNetworkIn networkSlot: Int) -> Bool {
            runs[slot].failsAlone(among: (lineItemSlots[networkSlot] ?? []).lazy.map { runs[$0] })
        }

        /// Notes the verdict of each of `items` (a network's line items in `plan`, the network
        /// in `networkSlot`) in this auction (``LineItemRun``) and returns their network's
        /// signal: any answer is a success; else a failure that is not a line item's own (it
        /// fails alone, or it is paused or probing on its own) is a failure; else nothing.
        mutating func noteLineItems(_ items: Range<Int>, of plan: Plan, networkSlot: Int, in signals: HealthSignals) -> HealthSignal? {
            var answered = false
            var failed = false
            for item in items {
                // A source beyond the auction's (none, in practice) says nothing.
                let signal = signals.signal(at: plan.lineItems[item].source)
                runs[plan.lineItems[item].slot].note(signal, auction: auctions)
                answered = answered || signal == .success
                failed = failed || signal == .failure
            }
            if answered { return .success }
            guard failed else { return nil }
            for item in items where signals.signal(at: plan.lineItems[item].source) == .failure {
                let slot = plan.lineItems[item].slot
                let ownPause = machines[slot].map { $0.phase != .closed } ?? false
                if !ownPause && !failsAlone(slot, ofNetworkIn: networkSlot) { return .failure }
            }
            return nil
        }

        /// The signal the machine (`machine`, in `slot`) of the line item of source `source`
        /// records: an answer; a failure when it is its own (it fails alone, or the line item
        /// is paused or probing); else nothing.
        func ownSignal(ofSource source: Int, in slot: Int, machine: NetworkHealth, networkSlot: Int, signals: HealthSignals) -> HealthSignal? {
            let signal = signals.signal(at: source)
            guard signal == .failure, machine.phase == .closed else { return signal }
            return failsAlone(slot, ofNetworkIn: networkSlot) ? .failure : nil
        }
    }

    private let state = Locked(Table())

    init(seed: UInt64, store: any StateStore, wallClock: @escaping @Sendable () -> Date, logger: any MediationLogger, emit: @escaping @Sendable (MediationEvent) -> Void) {
        self.seed = seed
        self.store = store
        self.wallClock = wallClock
        self.logger = logger
        self.emit = emit
    }

    /// The slot of `subject` in the table, made on first use.
    func slot(of subject: HealthSubject) -> Int {
        state.withLock { $0.slot(of: subject) }
    }

    /// A configuration came into force whose line items with a health of their own are
    /// `subjects`: a line item no longer among them (removed, or moved to another network) no
    /// longer decides whether another's failure is its own (``Table/keepLineItems(_:)``).
    func configurationChanged<Subjects: Sequence>(lineItems subjects: Subjects) where Subjects.Element == HealthSubject {
        state.withLock { $0.keepLineItems(subjects) }
    }

    /// Admits an auction at `now` over the networks of `plan`, then over the line items of
    /// each network it asks. `now` is read only when a machine is not closed (the clock is
    /// not read at all in the common case). `listener`, if any, is told of every pause of
    /// one of its networks or line items from now until ``record(_:plan:ticket:at:)``.
    func admit(_ plan: Plan, listener: (any NetworkPauseListener)? = nil, at clockNow: @autoclosure () -> MediationInstant) -> Ticket {
        guard !plan.networks.isEmpty else { return .open }
        var ticket = Ticket.open
        var events: [MediationEvent] = []
        var instant: MediationInstant?
        state.withLock { table in
            if let listener { ticket.listener = table.addListener(listener, plan: plan) }
            for place in plan.networks.indices {
                // A closed machine (nearly always) is asked, and nothing changes: read in place,
                // without copying the plan's entry or the machine.
                if table.machines[plan.networks[place].slot]?.phase != .closed {
                    let now = instant ?? clockNow()
                    instant = now
                    let network = plan.networks[place]
                    switch admit(network.subject, in: network.slot, settings: network.settings, table: &table, at: now, events: &events) {
                    case .ask(let probe):
                        if probe { ticket.probes.insert(place) }
                    case .paused(let retryAt):
                        for source in network.sources { ticket.paused[source] = retryAt }
                        continue // its line items are not asked: their machines are left as they are
                    }
                }
                for item in plan.networks[place].lineItems where table.machines[plan.lineItems[item].slot]?.phase != .closed {
                    let now = instant ?? clockNow()
                    instant = now
                    let lineItem = plan.lineItems[item]
                    switch admit(lineItem.subject, in: lineItem.slot, settings: plan.networks[place].settings, table: &table, at: now, events: &events) {
                    case .ask(let probe):
                        if probe { ticket.lineItemProbes.insert(item) }
                    case .paused(let retryAt):
                        ticket.paused[lineItem.source] = retryAt
                    }
                }
            }
        }
        for event in events { emit(event) }
        return ticket
    }

    /// Admits `subject`'s machine in `slot` (under the lock), reading its stored state first
    /// if no auction needed it yet.
    private func admit(_ subject: HealthSubject, in slot: Int, settings: NetworkHealthSettings, table: inout Table, at now: MediationInstant, events: inout [MediationEvent]) -> NetworkHealth.Admission {
        var health = table.machines[slot] ?? restore(subject, at: now, settings: settings, events: &events)
        let admission = health.admit(at: now, settings: settings)
        table.machines[slot] = health
        return admission
    }

    /// Records what an auction admitted over `plan` with `ticket` said of each of its
    /// networks and line items, at `now` (read only when a machine may change).
    ///
    /// Each network first: its signal (any answer of its line items is a success; a failure
    /// counts unless it is a line item's own, ``LineItemRun``). Then, only if the network is
    /// closed after it, or this auction was its probe and heard nothing of it, each of its line
    /// items' own signal: when the network is paused, or still paused (a probe failed), the
    /// failure is the network's and its line items are fed nothing (a probe's place is still
    /// freed).
    func record(_ trace: AuctionTrace, plan: Plan, ticket: Ticket, at clockNow: @autoclosure () -> MediationInstant) {
        guard !plan.networks.isEmpty else { return }
        let signals = trace.healthSignals
        var events: [MediationEvent] = []
        var instant: MediationInstant?
        var opened: [(slot: Int, retryAt: MediationInstant)] = []
        let pauses = state.withLock { table in
            if let listener = ticket.listener { table.removeListener(at: listener) }
            if !plan.lineItems.isEmpty { table.auctions &+= 1 }
            for place in plan.networks.indices {
                let slot = plan.networks[place].slot
                guard table.machines[slot] != nil else { continue }
                let items = plan.networks[place].lineItems
                let signal = items.isEmpty
                    ? Self.signal(of: plan.networks[place], in: signals)
                    : table.noteLineItems(items, of: plan, networkSlot: slot, in: signals)
                // Nearly always: a closed network that answered into a full window with no
                // failure (or said nothing); recording it would change nothing.
                // Read in place: the machine is copied only when it may change.
                if table.machines[slot]?.isUnchanged(byClosedSignal: signal, window: plan.networks[place].settings.window) != true {
                    let now = instant ?? clockNow()
                    instant = now
                    record(signal, of: plan.networks[place].subject, in: slot, settings: plan.networks[place].settings, probe: ticket.probes.contains(place), table: &table, at: now, events: &events, opened: &opened)
                }
                guard !items.isEmpty else { continue }
                // Its line items record their own verdicts when it is closed after this auction,
                // or when this auction was its probe and heard nothing of it (it is still
                // probing): their failures were then all their own, and a line item probing on
                // its own must hear its probe's verdict, or it would be probed (and waited for)
                // by every auction until another placement's answer decides the network's probe.
                let networkPhase = table.machines[slot]?.phase
                let feedsLineItems = networkPhase == .closed || (networkPhase == .halfOpen && ticket.probes.contains(place))
                for item in items {
                    // Read in place: the plan's entry is copied only when the machine may change.
                    let itemSlot = plan.lineItems[item].slot
                    guard let machine = table.machines[itemSlot] else { continue }
                    let own = feedsLineItems ? table.ownSignal(ofSource: plan.lineItems[item].source, in: itemSlot, machine: machine, networkSlot: slot, signals: signals) : nil
                    if machine.isUnchanged(byClosedSignal: own, window: plan.networks[place].settings.window) { continue }
                    let now = instant ?? clockNow()
                    instant = now
                    record(own, of: plan.lineItems[item].subject, in: itemSlot, settings: plan.networks[place].settings, probe: ticket.lineItemProbes.contains(item), table: &table, at: now, events: &events, opened: &opened)
                }
            }
            return opened.isEmpty ? [] : table.pauses(of: opened)
        }
        for event in events { emit(event) }
        // The auctions still waiting for a network just paused stop waiting for it (R24).
        for pause in pauses { pause.listener.networkPaused(sourcesAt: pause.sources, until: pause.retryAt) }
    }

    /// Records `signal` of `subject` in its machine in `slot` (under the lock), storing its
    /// state and collecting the event when it opens or closes (and the slot in `opened` when
    /// it opens).
    @inline(never)
    private func record(_ signal: HealthSignal?, of subject: HealthSubject, in slot: Int, settings: NetworkHealthSettings, probe: Bool, table: inout Table, at now: MediationInstant, events: inout [MediationEvent], opened: inout [(slot: Int, retryAt: MediationInstant)]) {
        guard var health = table.machines[slot] else { return }
        // The jitter numbers an opening, and only a failure opens.
        let jitter = signal == .failure ? HealthJitter.unit(seed: seed, networkID: subject.jitterID, opening: health.openings) : 0
        let transition = health.record(signal, probe: probe, at: now, settings: settings, jitter: jitter)
        table.machines[slot] = health
        guard let transition else { return }
        persist(health, of: subject, at: now)
        switch transition {
        case .opened(let cause, let failures, let outcomes, let backoff, let retryAt):
            opened.append((slot, retryAt))
            events.append(.networkPaused(MediationEvent.NetworkPause(subject, cause: cause, failures: failures, outcomes: outcomes, failedProbes: health.failedProbes, backoff: backoff, retryAt: retryAt, at: now)))
        case .closed(let failedProbes):
            events.append(.networkResumed(networkID: subject.networkID, failedProbes: failedProbes, at: now, placementID: subject.placementID, lineItemID: subject.lineItemID))
        }
    }

    /// The one signal of `network` in a finished auction whose sources said `signals`: its
    /// sources' signals combined (``HealthSignal/combined(signals:)``: any answer is a
    /// success), with its mask when it has one.
    static func signal(of network: Plan.Network, in signals: HealthSignals) -> HealthSignal? {
        if let mask = network.mask { return signals.signal(ofSourcesIn: mask) }
        return HealthSignal.combined(signals: network.sources.lazy.map { signals.signal(at: $0) })
    }

    /// The health of `subject` under its network's `settings`, reading its stored state if no
    /// auction needed it yet.
    func status(_ subject: HealthSubject, settings given: NetworkHealthSettings, at now: MediationInstant) -> MediationEngine.HealthStatus {
        let settings = given.clamped
        guard settings.enabled else { return MediationEngine.HealthStatus(NetworkHealth(), enabled: false) }
        var events: [MediationEvent] = []
        let health = state.withLock { table in
            let slot = table.slot(of: subject)
            if let health = table.machines[slot] { return health }
            let health = restore(subject, at: now, settings: settings, events: &events)
            table.machines[slot] = health
            return health
        }
        for event in events { emit(event) }
        return MediationEngine.HealthStatus(health, enabled: true)
    }

    /// The stored state of `subject` (R21): closed when there is none; a value that fails its
    /// checks is discarded with a warning; a paused one is clamped (``StoredNetworkHealth``).
    private func restore(_ subject: HealthSubject, at now: MediationInstant, settings: NetworkHealthSettings, events: inout [MediationEvent]) -> NetworkHealth {
        let key = subject.storeKey
        let stored: StoredNetworkHealth?
        do {
            stored = try store.value(StoredNetworkHealth.self, forKey: key)
        } catch {
            logger.warning("the stored health of network \(subject.text) was discarded: \(error)", source: "health")
            return NetworkHealth()
        }
        guard let stored else { return NetworkHealth() }
        if let problem = stored.problem(for: subject) {
            try? store.setData(nil, forKey: key)
            logger.warning("the stored health of network \(subject.text) was discarded: \(problem)", source: "health")
            return NetworkHealth()
        }
        let health = stored.health(at: now, wallNow: wallClock(), settings: settings)
        if let retryAt = health.retryAt {
            events.append(.networkPaused(MediationEvent.NetworkPause(subject, cause: .restored, failures: 0, outcomes: 0, failedProbes: health.failedProbes, backoff: health.backoff, retryAt: retryAt, at: now)))
        }
        return health
    }

    /// Stores `health` of `subject` (paused) or removes it (closed); a store that cannot be
    /// written costs a warning, never the auction.
    private func persist(_ health: NetworkHealth, of subject: HealthSubject, at now: MediationInstant) {
        let key = subject.storeKey
        do {
            if let stored = StoredNetworkHealth(health, of: subject, now: now, wallNow: wallClock()) {
                try store.setValue(stored, forKey: key)
            } else {
                try store.setData(nil, forKey: key)
            }
        } catch {
            logger.warning("the health of network \(subject.text) could not be stored: \(error)", source: "health")
        }
    }
}

extension MediationEvent.NetworkPause {
    /// The pause of `subject` (a network, or one of its line items).
    init(_ subject: HealthSubject, cause: MediationEvent.NetworkPause.Cause, failures: Int, outcomes: Int, failedProbes: Int, backoff: Duration, retryAt: MediationInstant, at: MediationInstant) {
        self.init(networkID: subject.networkID, cause: cause, failures: failures, outcomes: outcomes, failedProbes: failedProbes, backoffMilliseconds: backoff.milliseconds, retryAt: retryAt, at: at, placementID: subject.placementID, lineItemID: subject.lineItemID)
    }
}

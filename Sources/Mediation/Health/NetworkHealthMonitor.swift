import Foundation

/// The thin driver of every network's ``NetworkHealth`` (engine rule R24): one per engine,
/// shared by the auctions of every placement and every configuration. Before an auction it
/// says which networks are paused; after it, it feeds each network's one signal to its
/// machine, keeps paused states in the state store (`health.<network id>`) and publishes
/// `network_paused` and `network_resumed`.
///
/// All state sits in one ``Locked`` box; events are published outside it. A network's stored
/// state is read the first time an auction needs the network.
final class NetworkHealthMonitor: Sendable {
    /// The networks of an auction's sources with health on, each once in config order, with
    /// its settings (clamped) and the indices of its sources: built once per placement.
    struct Plan: Sendable {
        struct Network: Sendable {
            var id: String
            /// Its place in the monitor's table (``NetworkHealthMonitor/slot(of:)``).
            var slot: Int
            var settings: NetworkHealthSettings
            var sources: [Int]
        }

        var networks: [Network] = []

        /// The plan of `sources` on `monitor`'s table.
        init(_ sources: [AuctionSource], on monitor: NetworkHealthMonitor) {
            var places: [String: Int] = [:]
            for (index, source) in sources.enumerated() where source.health.enabled {
                if let place = places[source.lineItem.network] {
                    networks[place].sources.append(index)
                } else {
                    places[source.lineItem.network] = networks.count
                    networks.append(Network(id: source.lineItem.network, slot: monitor.slot(of: source.lineItem.network), settings: source.health.clamped, sources: [index]))
                }
            }
        }
    }

    /// What an auction was told: the networks paused for it, and those it asks as probes
    /// (by their place in the plan). Empty, as nearly always, it allocates nothing.
    struct Ticket: Sendable {
        /// Paused networks and when each is tried again.
        var paused: [String: MediationInstant] = [:]
        /// The plan's networks this auction asks as probes.
        var probes: Set<Int> = []

        /// A ticket that pauses nothing and probes nothing: made once (building the empty
        /// collections of a fresh one costs each auction a call).
        static let open = Ticket()
    }

    private let seed: UInt64
    private let store: any StateStore
    private let wallClock: @Sendable () -> Date
    private let logger: any MediationLogger
    private let emit: @Sendable (MediationEvent) -> Void
    /// Every network's machine, in a table whose slots plans hold (so an auction looks up no
    /// network id); `nil` until its stored state is read.
    private struct Table {
        var slots: [String: Int] = [:]
        var machines: [NetworkHealth?] = []

        /// The slot of `networkID`, made on first use.
        mutating func slot(of networkID: String) -> Int {
            if let slot = slots[networkID] { return slot }
            slots[networkID] = machines.count
            machines.append(nil)
            return machines.count - 1
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

    /// The slot of `networkID` in the table, made on first use.
    func slot(of networkID: String) -> Int {
        state.withLock { $0.slot(of: networkID) }
    }

    /// Admits an auction at `now` over the networks of `plan`. `now` is read only when a
    /// network is not closed (the clock is not read at all in the common case).
    func admit(_ plan: Plan, at clockNow: @autoclosure () -> MediationInstant) -> Ticket {
        guard !plan.networks.isEmpty else { return .open }
        var ticket = Ticket.open
        var events: [MediationEvent] = []
        var instant: MediationInstant?
        state.withLock { table in
            for place in plan.networks.indices {
                // A closed network (nearly always) is asked, and nothing changes: read in place,
                // without copying the plan's entry or the machine.
                if table.machines[plan.networks[place].slot]?.phase == .closed { continue }
                let now = instant ?? clockNow()
                instant = now
                let network = plan.networks[place]
                var health = table.machines[network.slot] ?? restore(network.id, at: now, settings: network.settings, events: &events)
                switch health.admit(at: now, settings: network.settings) {
                case .ask(let probe):
                    if probe { ticket.probes.insert(place) }
                case .paused(let retryAt):
                    ticket.paused[network.id] = retryAt
                }
                table.machines[network.slot] = health
            }
        }
        for event in events { emit(event) }
        return ticket
    }

    /// Records what an auction admitted over `plan` with `ticket` said of each of its
    /// networks (``signal(of:in:)``), at `now` (read only when a machine may change).
    func record(_ trace: AuctionTrace, plan: Plan, ticket: Ticket, at clockNow: @autoclosure () -> MediationInstant) {
        guard !plan.networks.isEmpty else { return }
        var events: [MediationEvent] = []
        var instant: MediationInstant?
        state.withLock { table in
            for place in plan.networks.indices {
                let slot = plan.networks[place].slot
                guard let current = table.machines[slot] else { continue }
                let signal = Self.signal(of: plan.networks[place].sources, in: trace)
                // Nearly always: a closed network that answered into a full window with no
                // failure (or said nothing); recording it would change nothing.
                if current.isUnchanged(byClosedSignal: signal, window: plan.networks[place].settings.window) { continue }
                let now = instant ?? clockNow()
                instant = now
                record(signal, of: plan.networks[place], probe: ticket.probes.contains(place), in: &table, at: now, events: &events)
            }
        }
        for event in events { emit(event) }
    }

    /// Records `signal` of `network` in its machine (under the lock), storing its state and
    /// collecting the event when it opens or closes.
    @inline(never)
    private func record(_ signal: HealthSignal?, of network: Plan.Network, probe: Bool, in table: inout Table, at now: MediationInstant, events: inout [MediationEvent]) {
        guard var health = table.machines[network.slot] else { return }
        let id = network.id
        // The jitter numbers an opening, and only a failure opens.
        let jitter = signal == .failure ? HealthJitter.unit(seed: seed, networkID: id, opening: health.openings) : 0
        let transition = health.record(signal, probe: probe, at: now, settings: network.settings, jitter: jitter)
        table.machines[network.slot] = health
        guard let transition else { return }
        persist(health, id: id, at: now)
        switch transition {
        case .opened(let cause, let failures, let outcomes, let backoff, let retryAt):
            events.append(.networkPaused(NetworkPause(networkID: id, cause: cause, failures: failures, outcomes: outcomes, failedProbes: health.failedProbes, backoffMilliseconds: backoff.milliseconds, retryAt: retryAt, at: now)))
        case .closed(let failedProbes):
            events.append(.networkResumed(networkID: id, failedProbes: failedProbes, at: now))
        }
    }

    /// The one signal of a network whose line items are `sources` (their indices) in a finished
    /// auction: their outcomes combined (``HealthSignal/combined(signals:)``: any answer is a
    /// success), read without building the trace's lines.
    static func signal(of sources: [Int], in trace: AuctionTrace) -> HealthSignal? {
        let count = trace.sourceCount
        return HealthSignal.combined(signals: sources.lazy.filter { $0 < count }.map { trace.healthSignal(at: $0) })
    }

    /// The health of `networkID` under `settings`, reading its stored state if no auction
    /// needed it yet.
    func status(_ networkID: String, settings given: NetworkHealthSettings, at now: MediationInstant) -> NetworkHealthStatus {
        let settings = given.clamped
        guard settings.enabled else { return NetworkHealthStatus(NetworkHealth(), enabled: false) }
        var events: [MediationEvent] = []
        let health = state.withLock { table in
            let slot = table.slot(of: networkID)
            if let health = table.machines[slot] { return health }
            let health = restore(networkID, at: now, settings: settings, events: &events)
            table.machines[slot] = health
            return health
        }
        for event in events { emit(event) }
        return NetworkHealthStatus(health, enabled: true)
    }

    /// The stored state of `id` (R21): closed when there is none; a value that fails its
    /// checks is discarded with a warning; a paused one is clamped (``StoredNetworkHealth``).
    private func restore(_ id: String, at now: MediationInstant, settings: NetworkHealthSettings, events: inout [MediationEvent]) -> NetworkHealth {
        let key = StoredNetworkHealth.key(id)
        let stored: StoredNetworkHealth?
        do {
            stored = try store.value(StoredNetworkHealth.self, forKey: key)
        } catch {
            logger.warning("the stored health of network \(DisplayText.escaped(id)) was discarded: \(error)", source: "health")
            return NetworkHealth()
        }
        guard let stored else { return NetworkHealth() }
        if let problem = stored.problem {
            try? store.setData(nil, forKey: key)
            logger.warning("the stored health of network \(DisplayText.escaped(id)) was discarded: \(problem)", source: "health")
            return NetworkHealth()
        }
        let health = stored.health(at: now, wallNow: wallClock(), settings: settings)
        if let retryAt = health.retryAt {
            events.append(.networkPaused(NetworkPause(networkID: id, cause: .restored, failures: 0, outcomes: 0, failedProbes: health.failedProbes, backoffMilliseconds: health.backoff.milliseconds, retryAt: retryAt, at: now)))
        }
        return health
    }

    /// Stores `health` of `id` (paused) or removes it (closed); a store that cannot be written
    /// costs a warning, never the auction.
    private func persist(_ health: NetworkHealth, id: String, at now: MediationInstant) {
        let key = StoredNetworkHealth.key(id)
        do {
            if let stored = StoredNetworkHealth(health, now: now, wallNow: wallClock()) {
                try store.setValue(stored, forKey: key)
            } else {
                try store.setData(nil, forKey: key)
            }
        } catch {
            logger.warning("the health of network \(DisplayText.escaped(id)) could not be stored: \(error)", source: "health")
        }
    }
}

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
    /// What an auction was told: the networks paused for it, and those it asks as probes.
    struct Ticket: Sendable {
        /// Paused networks and when each is tried again.
        var paused: [String: MediationInstant] = [:]
        /// Networks this auction asks as probes.
        var probes: Set<String> = []
        /// Networks with health on that this auction may ask.
        var watched: Set<String> = []
    }

    private struct State {
        var networks: [String: NetworkHealth] = [:]
        var settings: [String: NetworkHealthSettings] = [:]
    }

    private let seed: UInt64
    private let store: any StateStore
    private let wallClock: @Sendable () -> Date
    private let logger: any MediationLogger
    private let emit: @Sendable (MediationEvent) -> Void
    private let state = Locked(State())

    init(seed: UInt64, store: any StateStore, wallClock: @escaping @Sendable () -> Date, logger: any MediationLogger, emit: @escaping @Sendable (MediationEvent) -> Void) {
        self.seed = seed
        self.store = store
        self.wallClock = wallClock
        self.logger = logger
        self.emit = emit
    }

    /// Admits an auction at `now` over `networks` (each once, with its settings).
    func admit(_ networks: [(id: String, settings: NetworkHealthSettings)], at now: MediationInstant) -> Ticket {
        var ticket = Ticket()
        var events: [MediationEvent] = []
        state.withLock { state in
            for (id, given) in networks where given.enabled {
                let settings = given.clamped
                state.settings[id] = settings
                var health = state.networks[id] ?? restore(id, at: now, settings: settings, events: &events)
                switch health.admit(at: now, settings: settings) {
                case .ask(let probe):
                    ticket.watched.insert(id)
                    if probe { ticket.probes.insert(id) }
                case .paused(let retryAt):
                    ticket.paused[id] = retryAt
                }
                state.networks[id] = health
            }
        }
        for event in events { emit(event) }
        return ticket
    }

    /// Records what an auction admitted with `ticket` said of each network it may have asked
    /// (`signals`, by network id; a missing network said nothing), at `now`.
    func record(_ signals: [String: HealthSignal], ticket: Ticket, at now: MediationInstant) {
        guard !ticket.watched.isEmpty else { return }
        var events: [MediationEvent] = []
        state.withLock { state in
            for id in ticket.watched.sorted() {
                guard var health = state.networks[id], let settings = state.settings[id], settings.enabled else { continue }
                let jitter = HealthJitter.unit(seed: seed, networkID: id, opening: health.openings)
                let transition = health.record(signals[id], probe: ticket.probes.contains(id), at: now, settings: settings, jitter: jitter)
                state.networks[id] = health
                guard let transition else { continue }
                persist(health, id: id, at: now)
                switch transition {
                case .opened(let cause, let failures, let outcomes, let backoff, let retryAt):
                    events.append(.networkPaused(NetworkPause(networkID: id, cause: cause, failures: failures, outcomes: outcomes, failedProbes: health.failedProbes, backoffMilliseconds: backoff.milliseconds, retryAt: retryAt, at: now)))
                case .closed(let failedProbes):
                    events.append(.networkResumed(networkID: id, failedProbes: failedProbes, at: now))
                }
            }
        }
        for event in events { emit(event) }
    }

    /// The health of `networkID` under `settings`, reading its stored state if no auction
    /// needed it yet.
    func status(_ networkID: String, settings given: NetworkHealthSettings, at now: MediationInstant) -> NetworkHealthStatus {
        let settings = given.clamped
        guard settings.enabled else { return NetworkHealthStatus(NetworkHealth(), enabled: false) }
        var events: [MediationEvent] = []
        let health = state.withLock { state in
            if let health = state.networks[networkID] { return health }
            let health = restore(networkID, at: now, settings: settings, events: &events)
            state.networks[networkID] = health
            state.settings[networkID] = settings
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

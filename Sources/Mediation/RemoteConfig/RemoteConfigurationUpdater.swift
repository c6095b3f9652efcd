import Foundation

/// The remote configuration's driver (engine rule R22): it keeps the one timer of the next
/// check on the engine's clock, runs one check at a time (a request through the origin lock
/// under the timeout), takes ``RemoteVerdict``'s decision, applies a verified newer
/// configuration through the engine (between auctions), keeps the cache, feeds the result to
/// ``RemoteFetchPolicy`` and publishes a ``MediationEngine/RemoteConfiguration/Update`` for every
/// check. It decides nothing itself.
actor RemoteConfigurationUpdater {
    /// What the updater starts from (the engine's launch prepared it).
    struct Start: Sendable {
        var settings: MediationEngine.RemoteConfiguration
        var registry: NetworkRegistry
        var store: any StateStore
        var installID: String
        var highestApplied: Int
        var policy: RemoteFetchPolicy
        /// The envelope of the configuration running, when it came from the cache.
        var envelope: Data?
    }

    private weak var engine: MediationEngine?
    private let settings: MediationEngine.RemoteConfiguration
    private let registry: NetworkRegistry
    private let cache: ConfigurationCache
    private let transport: HTTP.OriginLockedTransport
    private let clock: any MediationClock
    private let wallClock: @Sendable () -> Date
    private var installID: String
    private var highestApplied: Int
    private var policy: RemoteFetchPolicy
    private var envelope: Data?
    /// The version of ``envelope``.
    private var envelopeVersion: Int
    private var foreground = true
    private var stopped = false
    /// The check running, if any: a second trigger joins it.
    private var checking: Task<MediationEngine.RemoteConfiguration.Update?, Never>?
    /// The number of the latest check started, and of the one ``settled(sleep:)`` gave up on.
    private var checkNumber = 0
    private var givenUpCheck: Int?
    /// The one timer task (the next check).
    private var timer: Task<Void, Never>?
    /// What the first check that ended came to (the launch check, unless a trigger came first).
    private var firstUpdate: MediationEngine.RemoteConfiguration.Update?

    init(_ start: Start, engine: MediationEngine) {
        self.engine = engine
        settings = start.settings
        registry = start.registry
        cache = ConfigurationCache(store: start.store)
        // Locked to the URL's origin once, for every request (R17).
        transport = HTTP.OriginLockedTransport(start.settings.transport, endpoint: start.settings.url)
        clock = engine.clock
        wallClock = engine.environment.wallClock
        installID = start.installID
        highestApplied = start.highestApplied
        policy = start.policy
        envelope = start.envelope
        envelopeVersion = engine.configurationVersion
        foreground = engine.isForeground
    }

    // MARK: - Triggers

    /// Sets the timer of the first check.
    func start() {
        scheduleTimer()
    }

    /// The app moved to the foreground or the background: back in the foreground it checks at
    /// once when a check came due meanwhile; in the background the timer's check waits.
    func setForeground(_ foreground: Bool) {
        self.foreground = foreground
        if foreground, policy.isDue(at: clock.now) { _ = startCheck() }
    }

    /// Checks now (joining a check that is running) and returns what it came to; `nil` once
    /// stopped.
    func checkNow() async -> MediationEngine.RemoteConfiguration.Update? {
        await startCheck()?.value
    }

    /// What the first check came to: the one that already ended, else the running one joined or
    /// a new one (so that a caller racing the launch check's timer sees the same first check
    /// whichever ran first); `nil` once stopped.
    func firstCheck() async -> MediationEngine.RemoteConfiguration.Update? {
        if let firstUpdate { return firstUpdate }
        return await checkNow()
    }

    /// Returns once no check is running, or once a check has been waited for as long as the
    /// fetch timeout (``MediationEngine/RemoteConfiguration/timeout``) of real time (for virtual-time runs that
    /// fetch over real HTTP). A check given up on is never waited for again: virtual time moves
    /// on, and the check's timeout fires at its instant on the engine's clock, so a server that
    /// never answers, or trickles its bytes, cannot hold virtual time still.
    /// - Parameter sleep: sleeps for a length of real time (the wall clock in `mediate`; a test
    ///   passes one it controls); it may return early, e.g. on Ctrl-C.
    func settled(sleep: @escaping @Sendable (Duration) async -> Void) async {
        while let running = checking, givenUpCheck != checkNumber {
            let number = checkNumber
            // The first of the check's end (true) and the real-time budget (false).
            let gate = FirstOf<Bool>()
            let answer = Task {
                _ = await running.value
                gate.resume(true)
            }
            let budget = Task { [timeout = settings.timeout] in
                await sleep(timeout)
                gate.resume(false)
            }
            let ended = await gate.value(ifCancelled: true)
            answer.cancel()
            budget.cancel()
            if !ended { givenUpCheck = number }
        }
    }

    /// A new install id (new rollout buckets) from now on; the next check asks unconditionally,
    /// so that a version the old bucket deferred is decided again for the new one.
    func setInstallID(_ id: String) {
        installID = id
        policy.forgetEntityTag()
    }

    /// Stops: no more checks; a running one is cancelled. Returns once it has ended.
    func stop() async {
        stopped = true
        timer?.cancel()
        timer = nil
        if let running = checking {
            running.cancel()
            _ = await running.value
        }
    }

    // MARK: - Checking

    private func startCheck() -> Task<MediationEngine.RemoteConfiguration.Update?, Never>? {
        guard !stopped else { return nil }
        if let checking { return checking }
        let task = clock.startTask { await self.performCheck() }
        checking = task
        checkNumber += 1
        return task
    }

    private func performCheck() async -> MediationEngine.RemoteConfiguration.Update? {
        defer {
            checking = nil
            scheduleTimer()
        }
        guard let engine, !stopped else { return nil }
        var headers = policy.conditionalHeaders
        headers["Accept"] = "application/json"
        let request = HTTP.Request(method: "GET", url: settings.url, headers: headers)
        let outcome = await RemoteFetch.send(request, through: transport, clock: clock, timeout: settings.timeout)
        guard !stopped else { return nil }
        let running = engine.configurationVersion
        // Another run sharing the store may have applied a newer version meanwhile.
        highestApplied = max(highestApplied, cache.appliedVersion().version)
        let verdict = RemoteVerdict.of(outcome, running: running, highestApplied: highestApplied, installID: installID, trustedKeys: settings.trustedKeys, registry: registry, wallClock: WallClockTime(wallClock()), conditional: headers["If-None-Match"] != nil)
        let update: MediationEngine.RemoteConfiguration.Update
        switch verdict {
        case .apply(let verified, let cacheHeaders):
            switch await apply(verified, headers: cacheHeaders, engine: engine) {
            case .published(let applied): return applied
            case .refused(let refusal): update = refusal
            }
        case .keep(let outcome, let code, let message, let offered, let cacheHeaders):
            policy.record(.answered(cacheHeaders), at: clock.now)
            let failure = keepCache(noStore: cacheHeaders.noStore)
            update = self.update(outcome, code, message, offered: offered, source: .remote, engine: engine)
            if let failure { engine.emit(.configuration(storeWarning(failure, engine: engine))) }
        case .refuse(let rejection, let offered):
            policy.record(.failed, at: clock.now)
            update = self.update(.refused, rejection.code, rejection.message, path: rejection.path, offered: offered, source: .remote, engine: engine)
        case .fail(let code, let message, let busy, let retryAfter):
            policy.record(busy ? .busy(retryAfter: retryAfter) : .failed, at: clock.now)
            update = self.update(.failed, code, message, source: .remote, engine: engine)
        }
        return publish(update, engine: engine)
    }

    /// Publishes what a check came to (with the next check's instant), the first one also as
    /// ``firstCheck()``'s answer.
    private func publish(_ update: MediationEngine.RemoteConfiguration.Update, engine: MediationEngine) -> MediationEngine.RemoteConfiguration.Update {
        var update = update
        update.nextCheckAt = policy.nextCheck
        if firstUpdate == nil { firstUpdate = update }
        engine.emit(.configuration(update))
        return update
    }

    /// What applying a verified configuration came to.
    private enum Application {
        /// Applied, and its update already published (from inside the swap).
        case published(MediationEngine.RemoteConfiguration.Update)
        /// The build refused it: the update to publish.
        case refused(MediationEngine.RemoteConfiguration.Update)
    }

    /// The update published from inside the swap of the configuration being applied.
    private var announced: MediationEngine.RemoteConfiguration.Update?

    /// Builds and applies `verified` (R19 runs in the build); keeps it in the cache. Its
    /// `config_applied` is published as soon as it is in force, before the placements take it
    /// or are removed: the application first, then its consequences.
    private func apply(_ verified: VerifiedConfiguration, headers: HTTPCacheHeaders, engine: MediationEngine) async -> Application {
        announced = nil
        do {
            try await engine.apply(verified.configuration, version: verified.version, source: .remote) { [self] in
                await announce(verified, headers: headers, engine: engine)
            }
        } catch {
            policy.record(.failed, at: clock.now)
            return .refused(update(.refused, .invalidConfig, "\(error.message) (\(error.code))", path: error.path, offered: verified.version, source: .remote, engine: engine))
        }
        let published = announce(verified, headers: headers, engine: engine) // announced in the swap
        announced = nil
        return .published(published)
    }

    /// Records `verified` as applied (the policy, the cache, the highest version) and
    /// publishes its update, once: later calls return the update published.
    @discardableResult
    private func announce(_ verified: VerifiedConfiguration, headers: HTTPCacheHeaders, engine: MediationEngine) -> MediationEngine.RemoteConfiguration.Update {
        if let announced { return announced }
        policy.record(.answered(headers), at: clock.now)
        highestApplied = max(highestApplied, verified.version)
        envelope = verified.envelope
        envelopeVersion = verified.version
        let failure = keepCache(noStore: headers.noStore)
        if let failure { engine.emit(.configuration(storeWarning(failure, engine: engine))) }
        let issued = verified.configuration.issuedAt.map { ", issued \($0)" } ?? ""
        let published = publish(update(.applied, .applied, "version \(verified.version) applied (key \(verified.keyID)\(issued)); each placement's next auction runs it", offered: verified.version, source: .remote, engine: engine), engine: engine)
        announced = published
        return published
    }

    /// Writes the cache record of the configuration running (its envelope, the entity tag and
    /// freshness now) and raises the floor to its version, unless the server said `no-store`
    /// (the record is removed) or nothing remote runs. The record is not written when another
    /// run sharing the store has applied a newer version (``ConfigurationCache/raiseAppliedVersion(to:caching:)``).
    private func keepCache(noStore: Bool) -> StateStoreError? {
        guard let envelope else { return nil }
        if noStore { cache.remove() }
        let metadata = ConfigurationCache.Metadata(entityTag: policy.entityTag, fetchedAt: WallClockTime(wallClock()), maxAgeSeconds: policy.maxAgeSeconds, staleSeconds: policy.staleSeconds)
        do {
            highestApplied = try cache.raiseAppliedVersion(to: envelopeVersion, caching: noStore ? nil : (envelope, metadata))
            return nil
        } catch {
            return error
        }
    }

    private func update(_ outcome: MediationEngine.RemoteConfiguration.Update.Outcome, _ code: MediationEngine.RemoteConfiguration.Update.Code, _ message: String, path: String? = nil, offered: Int? = nil, source: MediationEngine.RemoteConfiguration.Update.Source, engine: MediationEngine) -> MediationEngine.RemoteConfiguration.Update {
        MediationEngine.RemoteConfiguration.Update(outcome: outcome, code: code, message: message, path: path, runningVersion: engine.configurationVersion, offeredVersion: offered, source: source, nextCheckAt: policy.nextCheck, at: clock.now)
    }

    private func storeWarning(_ error: StateStoreError, engine: MediationEngine) -> MediationEngine.RemoteConfiguration.Update {
        update(.warning, .storeUnavailable, "the configuration cache could not be written: \(error)", source: .cache, engine: engine)
    }

    // MARK: - Timer

    /// Replaces the timer by one that wakes at the policy's next check.
    private func scheduleTimer() {
        timer?.cancel()
        timer = nil
        guard !stopped else { return }
        let wakeUp = policy.nextCheck
        let clock = self.clock
        timer = clock.startTask { [weak self] in
            do {
                try await clock.sleep(until: wakeUp)
            } catch {
                return
            }
            await self?.timerFired()
        }
    }

    /// The next check came due: checks now in the foreground; in the background it waits for
    /// ``setForeground(_:)``.
    private func timerFired() {
        guard foreground else { return }
        _ = startCheck()
    }
}

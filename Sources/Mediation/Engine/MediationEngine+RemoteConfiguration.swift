import Foundation

extension MediationEngine {
    /// Builds the engine on the best local configuration at once and keeps it up to date from a
    /// configuration server (engine rule R22). Launch never waits on the network:
    /// 1. the last verified remote configuration in the environment's state store
    ///    (``MediationEnvironment/stateStore``), when it verifies again, is not older than a
    ///    version this install applied, is at least as new as the bundled one and builds;
    /// 2. else the bundled configuration (always valid; version 0 when it is not signed).
    ///
    /// Then it checks the server in the background on the engine's clock (at once when the
    /// cache is missing or past its `max-age`), and applies each verified newer configuration
    /// between auctions (``MediationEngine/RemoteConfiguration/Update``, published as `config_...`
    /// events). A cache past its `max-age` but within `stale-while-revalidate` runs and is
    /// revalidated at once; past both it runs too (launch never waits) with a `config_expired`
    /// warning. What the launch found wrong (a damaged cache removed, the device clock behind the
    /// cache, an expired cache) is in ``launchWarnings`` and published to `onEvent` as
    /// `config_warning` events.
    ///
    /// ```swift
    /// let engine = try MediationEngine(
    ///     bundledConfiguration: Bundle.main.url(forResource: "mediation", withExtension: "json")!,
    ///     remote: MediationEngine.RemoteConfiguration(
    ///         url: URL(string: "https://config.example.com/chat/mediation.json")!,
    ///         trustedKeys: [try MediationEngine.RemoteConfiguration.PublicKey("mediation-ed25519 c882f47debb3cd17 Xb2…=")],
    ///         transport: HTTP.SystemTransport(maximumResponseBytes: MediationEngine.RemoteConfiguration.maximumBodyBytes)),
    ///     registry: .standard,
    ///     environment: MediationEnvironment(stateStore: try FileStateStore(directory: appSupport)))
    /// ```
    /// - Parameters:
    ///   - url: the bundled configuration: a plain configuration file, or a signed envelope
    ///     (verified with `remote`'s keys; its version then counts).
    ///   - remote: the configuration server and the keys the app trusts.
    ///   - registry: the network kinds.
    ///   - environment: clock, logger, seed, transport, storage (the state store keeps the cache
    ///     and the install id) and request signals.
    ///   - hostContext: the conversation and screen context of a placement's next request.
    ///   - onEvent: called synchronously for every event, in order; it must not block.
    /// - Throws: ``ConfigurationError`` when the bundled configuration cannot be read, does not
    ///   verify, or fails to build (a mistake in the app, not in the server's configuration).
    public convenience init(
        bundledConfiguration url: URL,
        remote: MediationEngine.RemoteConfiguration,
        registry: NetworkRegistry,
        environment: MediationEnvironment = MediationEnvironment(),
        hostContext: @escaping @Sendable (String) -> AdRequest.Context = { _ in AdRequest.Context() },
        onEvent: (@Sendable (MediationEvent) -> Void)? = nil
    ) throws(ConfigurationError) {
        let bundled = try Self.loadBundled(url, trustedKeys: remote.trustedKeys, registry: registry)
        try self.init(bundledConfiguration: bundled, remote: remote, registry: registry, environment: environment, hostContext: hostContext, onEvent: onEvent)
    }

    /// ``init(bundledConfiguration:remote:registry:environment:hostContext:onEvent:)`` with the
    /// bundled configuration already loaded (its `config_version` is its version: 0 unless it
    /// came from a signed envelope).
    /// - Throws: ``ConfigurationError`` when the bundled configuration fails to build.
    public convenience init(
        bundledConfiguration bundled: MediationConfiguration,
        remote: MediationEngine.RemoteConfiguration,
        registry: NetworkRegistry,
        environment: MediationEnvironment = MediationEnvironment(),
        hostContext: @escaping @Sendable (String) -> AdRequest.Context = { _ in AdRequest.Context() },
        onEvent: (@Sendable (MediationEvent) -> Void)? = nil
    ) throws(ConfigurationError) {
        var launch = RemoteLaunch.prepare(bundled: bundled, remote: remote, registry: registry, environment: environment)
        try self.init(candidates: launch.candidates, registry: registry, environment: environment, hostContext: hostContext, onEvent: onEvent)
        let now = clock.now
        for (candidate, error) in launchFailures where candidate.source == .cache {
            ConfigurationCache(store: environment.stateStore).remove()
            launch.warnings.append(MediationEngine.RemoteConfiguration.Update(outcome: .warning, code: .cacheInvalid, message: "the cached version \(candidate.version) does not build with this app: \(error.message) (\(error.code)); removed", path: error.path, runningVersion: configurationVersion, offeredVersion: candidate.version, source: .cache, at: now))
            launch.envelope = nil
        }
        var start = launch.start(now: now, wallClock: WallClockTime(environment.wallClock()), runningSource: configurationSource)
        if start.clockBehind {
            launch.warnings.append(MediationEngine.RemoteConfiguration.Update(outcome: .warning, code: .clockBehind, message: "the device clock is earlier than when the cached configuration was fetched: its age is unknown, so the server is checked now", runningVersion: configurationVersion, source: .cache, at: now))
        } else if configurationSource == .cache, start.updater.policy.freshness(at: now) == .expired {
            // Past max-age + stale-while-revalidate (RFC 5861): served all the same, and said so.
            launch.warnings.append(MediationEngine.RemoteConfiguration.Update(outcome: .warning, code: .configExpired, message: "the cached configuration is older than its max-age (\(start.updater.policy.maxAgeSeconds) s) plus stale-while-revalidate (\(start.updater.policy.staleSeconds) s): it runs while the server is checked now", runningVersion: configurationVersion, source: .cache, at: now))
        }
        // The floor only grows: the version running at launch counts as applied.
        if configurationVersion > start.updater.highestApplied {
            start.updater.highestApplied = (try? ConfigurationCache(store: environment.stateStore).raiseAppliedVersion(to: configurationVersion)) ?? configurationVersion
        }
        let warnings = launch.warnings.map { warning in
            var warning = warning
            warning.runningVersion = configurationVersion
            warning.nextCheckAt = start.updater.policy.nextCheck
            return warning
        }
        let updater = RemoteConfigurationUpdater(start.updater, engine: self)
        attach(updater, launchWarnings: warnings)
        for warning in warnings { emit(.configuration(warning)) }
        clock.startTask { await updater.start() }
    }

    /// Checks the configuration server now (joining a check that is running), applies what it
    /// says by the same rules as the background checks, and returns what it came to; `nil` when
    /// the engine has no remote configuration or was shut down. The host never needs it (the
    /// engine checks by itself); `mediate --config-url` runs one before its auction.
    public func checkConfiguration() async -> MediationEngine.RemoteConfiguration.Update? {
        await remoteUpdater?.checkNow()
    }

    /// Replaces the install id (the staged-rollout bucket of remote configurations; never sent
    /// anywhere) by a new random one, kept in the state store (``forgetUser()`` calls it). The
    /// configuration running stays; later checks use the new bucket.
    /// - Throws: ``StateStoreError`` when the store cannot be written.
    package func resetInstallID() async throws(StateStoreError) {
        let id = try InstallID.reset(in: environment.stateStore)
        experiments.installIDChanged(to: id)
        await remoteUpdater?.setInstallID(id)
    }

    /// What the first configuration check came to (the launch check, or the check it joined):
    /// for loopback tests and one-shot runs, which must not race the launch check's timer.
    package func firstConfigurationCheck() async -> MediationEngine.RemoteConfiguration.Update? {
        await remoteUpdater?.firstCheck()
    }

    /// Returns once no configuration check is running, or once the check running has been
    /// waited for as long as the fetch timeout of real time (virtual-time runs that fetch over
    /// real HTTP wait for it before moving time on; past that, time moves on and the check's
    /// timeout fires at its virtual instant).
    /// - Parameter sleep: sleeps for a length of real time; it may return early (Ctrl-C).
    package func configurationChecksSettled(sleep: @escaping @Sendable (Duration) async -> Void) async {
        await remoteUpdater?.settled(sleep: sleep)
    }

    /// The bundled configuration at `url`: a signed envelope (verified) or a plain file.
    private static func loadBundled(_ url: URL, trustedKeys: [MediationEngine.RemoteConfiguration.PublicKey], registry: NetworkRegistry) throws(ConfigurationError) -> MediationConfiguration {
        let loader = ConfigurationLoader(registry: registry)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            return try loader.load(contentsOf: url) // the loader's own error names the problem
        }
        guard case .success(let envelope) = SignedConfiguration.parse(data) else {
            return try loader.load(data: data)
        }
        if let rejection = envelope.checkSignature(trustedKeys: trustedKeys) {
            throw ConfigurationError(code: .invalidValue, path: "$", message: "the bundled signed configuration does not verify: \(rejection.message) (\(rejection.code))")
        }
        switch envelope.configuration(registry: registry) {
        case .success(let configuration): return configuration
        case .failure(let rejection): throw ConfigurationError(code: .invalidValue, path: rejection.path ?? "$", message: rejection.message)
        }
    }
}

/// What the engine's launch reads from the state store for its remote configuration: the
/// install id, the highest version applied, the cached configuration (verified again), and
/// the candidates to start on, best first.
struct RemoteLaunch {
    var candidates: [MediationEngine.LaunchCandidate]
    var warnings: [MediationEngine.RemoteConfiguration.Update] = []
    var envelope: Data?
    var metadata: ConfigurationCache.Metadata?
    var installID: String
    var highestApplied: Int
    let remote: MediationEngine.RemoteConfiguration
    let registry: NetworkRegistry
    let environment: MediationEnvironment

    /// Reads the store (never the network) and orders the candidates.
    static func prepare(bundled: MediationConfiguration, remote: MediationEngine.RemoteConfiguration, registry: NetworkRegistry, environment: MediationEnvironment) -> RemoteLaunch {
        let store = environment.stateStore
        let now = environment.clock.now
        var warnings: [MediationEngine.RemoteConfiguration.Update] = []
        func warn(_ code: MediationEngine.RemoteConfiguration.Update.Code, _ message: String, offered: Int? = nil) {
            warnings.append(MediationEngine.RemoteConfiguration.Update(outcome: .warning, code: code, message: message, runningVersion: bundled.version, offeredVersion: offered, source: .cache, at: now))
        }
        func warn(_ failure: StateStoreError) {
            warn(failure.kind == .discarded ? .cacheDiscarded : .storeUnavailable, failure.description)
        }
        var installID = ""
        var highestApplied = 0
        var candidates: [MediationEngine.LaunchCandidate] = []
        var envelope: Data?
        var metadata: ConfigurationCache.Metadata?
        // Read (and a stale cache removed) under the store's write lock: another run sharing the
        // store writes the floor and the cache together, never half-seen from here.
        func readStore() {
            let idFailure: StateStoreError?
            (installID, idFailure) = InstallID.current(in: store)
            if let idFailure { warn(idFailure) }
            let cache = ConfigurationCache(store: store)
            let floorFailure: StateStoreError?
            (highestApplied, floorFailure) = cache.appliedVersion()
            if let floorFailure { warn(floorFailure) }
            switch cache.read() {
            case .failure(let failure):
                warn(failure)
            case .success(nil):
                break
            case .success(let entry?):
                switch SignedConfiguration.verify(entry.envelope, trustedKeys: remote.trustedKeys, registry: registry) {
                case .failure(let rejection):
                    cache.remove()
                    warn(.cacheInvalid, "the cached configuration no longer verifies: \(rejection.message) (\(rejection.code)); removed")
                case .success(let verified) where verified.version < highestApplied:
                    cache.remove()
                    warn(.cacheInvalid, "the cached version \(verified.version) is older than version \(highestApplied), applied before on this install; removed", offered: verified.version)
                case .success(let verified) where verified.version < bundled.version:
                    break // the bundled configuration is newer: the cache is kept for its entity tag only
                case .success(let verified):
                    candidates.append(MediationEngine.LaunchCandidate(configuration: verified.configuration, version: verified.version, source: .cache))
                    envelope = verified.envelope
                    metadata = entry.metadata
                }
            }
        }
        do {
            try store.exclusively { () throws(StateStoreError) in readStore() }
        } catch {
            warn(error)
            readStore()
        }
        candidates.append(MediationEngine.LaunchCandidate(configuration: bundled, version: bundled.version, source: .bundled))
        return RemoteLaunch(candidates: candidates, warnings: warnings, envelope: envelope, metadata: metadata, installID: installID, highestApplied: highestApplied, remote: remote, registry: registry, environment: environment)
    }

    /// The updater's start: the schedule resumed from the cache when the engine runs it.
    func start(now: MediationInstant, wallClock: WallClockTime, runningSource: MediationEngine.RemoteConfiguration.Update.Source) -> (updater: RemoteConfigurationUpdater.Start, clockBehind: Bool) {
        // The jitter differs per install (the id is random) and repeats for a given store.
        let seed = environment.seed ^ SHA256Digest.hash(Array(installID.utf8)).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        var policy = RemoteFetchPolicy(settings: remote, seed: seed, now: now)
        var clockBehind = false
        let runsCache = runningSource == .cache && envelope != nil
        if runsCache, let metadata {
            clockBehind = !policy.resume(entityTag: metadata.entityTag, fetchedAt: WallClockTime(millisecondsSince1970: metadata.fetchedAtMilliseconds), maxAgeSeconds: metadata.maxAgeSeconds, staleSeconds: metadata.staleSeconds, wallClock: wallClock, now: now)
        }
        let start = RemoteConfigurationUpdater.Start(settings: remote, registry: registry, store: environment.stateStore, installID: installID, highestApplied: highestApplied, policy: policy, envelope: runsCache ? envelope : nil)
        return (start, clockBehind)
    }
}

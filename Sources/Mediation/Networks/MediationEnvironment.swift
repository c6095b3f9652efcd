import Foundation

/// What the host supplies to the engine and to every network's adapter: time, logging,
/// randomness, HTTP, storage (a directory, and the engine's state store) and the host's
/// request signals.
public struct MediationEnvironment: Sendable {
    /// The clock every auction, refresh, expiry and adapter waits on, and on which the engine
    /// and adapters start their tasks (``MediationClock/startTask(_:)``).
    public var clock: any MediationClock
    /// Where the engine's and adapters' log lines go. The library never prints.
    ///
    /// Unless it is the default (a logger that drops every line), each warning an adapter logs
    /// while it works for an auction source also goes on that source's trace line
    /// (`adapter_warning`).
    public var logger: any MediationLogger
    /// The seed for anything random in sandboxes and stub networks, so runs repeat.
    public var seed: UInt64
    /// The HTTP transport for networks whose endpoint is a URL; `nil` lets each network use its
    /// default (the standard networks share one `HTTP.SystemTransport`).
    package var transport: (any HTTP.Transport)?
    /// The simulated round-trip time of in-process sandbox servers.
    public var sandboxLatency: Duration
    /// A directory where adapters may keep non-secret state (consent, last-shown times);
    /// `nil` keeps it in memory for the process. Identity never goes there.
    public var storageDirectory: URL?
    /// The screen, device, app and privacy signals copied into every request; replace it at run
    /// time with ``MediationEngine/updateRequestTemplate(_:)``.
    public var requestTemplate: RequestTemplate
    /// Where every network's HTTP exchanges are recorded for debugging (`mediate --debug`);
    /// `nil` (the default) records nothing. Factories opt in with ``instrumented(_:networkID:)``.
    package var exchangeRecorder: HTTPExchangeRecorder?
    /// The wall clock, read once per auction for its trace's `started_at` (ISO 8601 UTC);
    /// tests fix it. Never used for deadlines or timers (those are ``clock``'s).
    public var wallClock: @Sendable () -> Date
    /// Where the engine keeps what it needs across launches (the last verified remote
    /// configuration, the install id; R21): a ``FileStateStore`` in a directory of the host's
    /// (on iOS in Application Support), or the default ``MemoryStateStore``, for the process.
    package var stateStore: any StateStore
    /// The seed of the engine's auction ids (`nil`, the default: a fresh random seed per
    /// placement). A simulation sets it so that its auction ids, and so an exploring
    /// placement's draws (R23), are the same in every run.
    package var auctionIDSeed: UInt64?

    /// Creates an environment.
    /// - Parameters:
    ///   - clock: the clock (default ``SystemClock``).
    ///   - logger: where log lines go (default: dropped).
    ///   - seed: the seed of sandboxes and stub networks (default 1).
    ///   - sandboxLatency: the sandboxes' simulated round trip (default zero).
    ///   - storageDirectory: where adapters may keep non-secret state (default: memory only).
    ///   - requestTemplate: the host's request signals.
    ///   - wallClock: the wall clock for traces' `started_at` (default `Date()`).
    ///   - stateStore: where the engine keeps state across launches: a ``FileStateStore`` in a
    ///     directory of the app's (default `nil`: memory only, for the process).
    public init(
        clock: any MediationClock = SystemClock(),
        logger: any MediationLogger = SilentLogger(),
        seed: UInt64 = 1,
        sandboxLatency: Duration = .zero,
        storageDirectory: URL? = nil,
        requestTemplate: RequestTemplate = RequestTemplate(),
        wallClock: @escaping @Sendable () -> Date = { Date() },
        stateStore: FileStateStore? = nil
    ) {
        self.init(
            clock: clock, logger: logger, seed: seed, transport: nil, sandboxLatency: sandboxLatency,
            storageDirectory: storageDirectory, requestTemplate: requestTemplate,
            exchangeRecorder: nil, wallClock: wallClock, stateStore: stateStore ?? MemoryStateStore()
        )
    }

    /// Creates an environment whose networks with a URL endpoint use `transport` and whose
    /// engine keeps its state in any store (tests, the command line).
    package init(
        clock: any MediationClock = SystemClock(),
        logger: any MediationLogger = SilentLogger(),
        seed: UInt64 = 1,
        transport: (any HTTP.Transport)? = nil,
        sandboxLatency: Duration = .zero,
        storageDirectory: URL? = nil,
        requestTemplate: RequestTemplate = RequestTemplate(),
        wallClock: @escaping @Sendable () -> Date = { Date() },
        stateStore: any StateStore = MemoryStateStore()
    ) {
        self.init(
            clock: clock, logger: logger, seed: seed, transport: transport, sandboxLatency: sandboxLatency,
            storageDirectory: storageDirectory, requestTemplate: requestTemplate,
            exchangeRecorder: nil, wallClock: wallClock, stateStore: stateStore
        )
    }

    /// Creates an environment that records every network's HTTP exchanges (`mediate --debug`).
    package init(
        clock: any MediationClock = SystemClock(),
        logger: any MediationLogger = SilentLogger(),
        seed: UInt64 = 1,
        transport: (any HTTP.Transport)? = nil,
        sandboxLatency: Duration = .zero,
        storageDirectory: URL? = nil,
        requestTemplate: RequestTemplate = RequestTemplate(),
        exchangeRecorder: HTTPExchangeRecorder?,
        wallClock: @escaping @Sendable () -> Date = { Date() },
        stateStore: any StateStore = MemoryStateStore()
    ) {
        self.clock = clock
        self.logger = logger
        self.seed = seed
        self.transport = transport
        self.sandboxLatency = sandboxLatency
        self.storageDirectory = storageDirectory
        self.requestTemplate = requestTemplate
        self.exchangeRecorder = exchangeRecorder
        self.wallClock = wallClock
        self.stateStore = stateStore
    }
}

import Foundation
@testable import Mediation
import MediationTestKit

/// A configuration server on the manual clock: each request gets the first step of the script
/// (the last step repeats), after its delay; a cancelled request throws `.cancelled` at once.
/// Records every request.
final class ScriptedTransport: HTTP.Transport {
    enum Step: Sendable {
        /// Answers this response after `delay`.
        case respond(HTTP.Response, after: Duration = .milliseconds(50))
        /// Fails with this error after `delay`.
        case fail(HTTP.TransportError, after: Duration = .milliseconds(5))
    }

    private let clock: ManualClock
    private let state = Locked<(steps: [Step], requests: [HTTP.Request])>(([], []))

    init(clock: ManualClock, _ steps: [Step] = []) {
        self.clock = clock
        state.withLock { $0.steps = steps }
    }

    /// Replaces the script: the next requests get these steps.
    func serve(_ steps: Step...) {
        state.withLock { $0.steps = steps }
    }

    /// Every request received, in order.
    var requests: [HTTP.Request] { state.withLock { $0.requests } }

    func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
        let step: Step = state.withLock { state in
            state.requests.append(request)
            let step = state.steps.first ?? .fail(HTTP.TransportError(kind: .connection, message: "no script"))
            if state.steps.count > 1 { state.steps.removeFirst() }
            return step
        }
        let delay: Duration
        switch step {
        case .respond(_, let after), .fail(_, let after): delay = after
        }
        do {
            try await clock.sleep(until: clock.now + delay)
        } catch {
            throw HTTP.TransportError(kind: .cancelled, message: "cancelled")
        }
        switch step {
        case .respond(let response, _): return response
        case .fail(let error, _): throw error
        }
    }

    /// A 200 with `body` and these headers.
    static func ok(_ body: Data, etag: String? = nil, cacheControl: String? = "max-age=300") -> HTTP.Response {
        var headers = ["Content-Type": "application/json"]
        if let etag { headers["ETag"] = etag }
        if let cacheControl { headers["Cache-Control"] = cacheControl }
        return HTTP.Response(statusCode: 200, headers: headers, body: body)
    }
}

/// An engine with a remote configuration over a ``ScriptedTransport`` on a manual clock: the
/// bundled configuration (version 0) and signed versions of it at other eCPMs.
final class RemoteHarness: Sendable {
    let clock = ManualClock()
    let recorder = EventRecorder()
    let fixture = RemoteConfigFixture()
    let transport: ScriptedTransport
    let store: any StateStore
    let neta: ScriptedAdapter
    let registry: NetworkRegistry
    let engine: MediationEngine
    let wallClock: Locked<Date>

    static let url = URL(string: "https://config.example.com/apps/chat/mediation.json")!
    static let bundledJSON = RemoteConfigFixture.configJSON(version: nil, eCPM: "0.5")
    static let installID = "00112233445566778899aabbccddeeff"

    /// Builds the engine. `store` stands for the install's disk (pass the same one to relaunch).
    init(store: any StateStore = MemoryStateStore(), steps: [ScriptedTransport.Step] = [], wallClock: Date = Date(timeIntervalSince1970: 1_796_220_000), settings: ((inout MediationEngine.RemoteConfiguration) -> Void)? = nil) throws {
        transport = ScriptedTransport(clock: clock, steps)
        self.store = store
        if (try? store.data(forKey: "install.id")) == nil {
            // A fixed install id: the rollout bucket and the back-off's jitter repeat.
            try? store.setData(Data(Self.installID.utf8), forKey: "install.id") // a failing store (a test of one) keeps none
        }
        neta = ScriptedAdapter(network: "neta", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)])
        var networks = PrebuiltNetworks()
        networks.add("neta", pricing: .fixedPrice, adapter: neta)
        registry = networks.registry
        let wall = Locked(wallClock)
        self.wallClock = wall
        var remote = MediationEngine.RemoteConfiguration(url: Self.url, trustedKeys: [fixture.key.publicKey], transport: transport)
        settings?(&remote)
        engine = try MediationEngine(
            bundledConfiguration: MediationConfiguration(json: Self.bundledJSON, registry: networks.registry),
            remote: remote,
            registry: networks.registry,
            environment: MediationEnvironment(clock: clock, seed: 7, wallClock: { wall.withLock { $0 } }, stateStore: store),
            onEvent: recorder.handler
        )
    }

    /// A signed configuration of version `version` whose line item is worth `eCPM`.
    func signed(_ version: Int, eCPM: String = "1.2", rollout: MediationConfiguration.Rollout? = nil) throws -> Data {
        try Self.signed(version, eCPM: eCPM, rollout: rollout)
    }

    /// ``signed(_:eCPM:rollout:)`` before a harness exists (its script is given at init: the
    /// first check runs as soon as the engine's clock runs its work).
    static func signed(_ version: Int, eCPM: String = "1.2", rollout: MediationConfiguration.Rollout? = nil) throws -> Data {
        try RemoteConfigFixture().signed(version: version, rollout: rollout, eCPM: eCPM)
    }

    /// The configuration updates published, in order.
    var updates: [MediationEngine.RemoteConfiguration.Update] {
        recorder.events.compactMap { event in
            if case .configuration(let update) = event { return update }
            return nil
        }
    }

    /// Moves the clock to `seconds` from the origin.
    func advance(to seconds: Double) async {
        await clock.advance(to: .origin + .milliseconds(Int64((seconds * 1000).rounded())))
    }

    /// Runs one auction now (to the clock's `seconds` + 1) and returns its trace, releasing
    /// the winner: the app keeps serving ads, from which configuration.
    func auction() async throws -> AuctionTrace {
        let engine = engine
        let task = clock.startTask { await engine.runAuction(placementID: "home_banner") }
        await clock.advance(by: .seconds(1))
        guard let outcome = await task.value else { throw CancellationError() }
        outcome.winner?.ad.releaseResources()
        return outcome.trace
    }

    /// After shutdown: every ad was released exactly once (the harness never shows one).
    func shutdownAndCountAds() async -> Bool {
        let engine = engine
        let task = clock.startTask { await engine.shutdown() }
        await clock.runUntilIdle()
        await task.value
        return neta.ads.allSatisfy { $0.releaseCount == 1 && $0.impressionCount == 0 }
    }
}

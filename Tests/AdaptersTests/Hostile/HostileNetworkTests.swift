import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

// The hostile-network suite (engine rules R16, R17): every network that speaks HTTP (Elo, Nitx,
// Qartvelo; the fallback network has no HTTP and is the well-behaved second source instead) is
// played by the loopback server misbehaving in its own protocol: malformed, huge and wrongly
// typed bodies, absurd prices, sizes, densities, TTLs and refresh intervals, thousands of
// items, huge ids and reasons, slow drips, silence, connection resets, 5xx, HTML, bad gzip and
// redirects to another origin or in a loop. Each scenario runs through `MediationEngine` with a
// configuration whose endpoint is the loopback server, in both modes:
// - one-shot: `MediationEngine.runAuction`;
// - placement: a refreshing banner with a visible view, three auctions (the load and two
//   refreshes).
// Both run on `ManualClock`, moved on only while no request is on the wire
// (`WireWatchingTransport`): each exchange with the loopback server takes the real time it
// takes, and the 800 ms deadline passes only after it, so a loaded machine cannot turn an answer
// into a timeout. A scenario whose answer never comes (silence, a slow drip) is not waited for:
// virtual time moves on to its deadline at once. Only a real hang fails on time: an auction not
// over after 30 s of real time.
// Each asserts: no crash; the auction's trace ends by its 800 ms deadline (exactly, on virtual
// time); the hostile source's outcome and its detail (status, reason, error code, HTTP status);
// every id and text in the trace bounded; a valid winner: the hostile source's bounded ad, or
// the fallback source's.

/// The suite's two loopback servers (the hostile one, and another origin that redirects point
/// at), started once per test process and shared by every scenario.
struct HostileServers: Sendable {
    /// The mode a scenario runs in (each mode and network has its own transport).
    enum Mode: String, Sendable, CaseIterable {
        case oneShot, placement
    }

    let hostile: LoopbackServer
    let other: LoopbackServer
    let scenarios: [HostileScenario]
    private let transports: [String: HTTP.SystemTransport]

    static let shared = Task<HostileServers, any Error> { try await start() }

    private static func start() async throws -> HostileServers {
        // The other origin's answers name it as `$SELF`, so it starts first, with no port known.
        let other = try await LoopbackServer(routes: HostileScenarios.otherOriginRoutes(otherBase: "$SELF"))
        let scenarios = HostileScenarios.all(otherBase: other.baseURL.absoluteString)
        var routes: [String: [LoopbackServer.Response]] = [:]
        for scenario in scenarios {
            for (key, responses) in scenario.routes {
                let parts = key.split(separator: " ", maxSplits: 1)
                routes["\(parts[0]) \(scenario.prefix)\(parts[1])"] = responses
            }
        }
        let hostile = try await LoopbackServer(routes: routes)
        var transports: [String: HTTP.SystemTransport] = [:]
        for mode in Mode.allCases {
            for network in HostileScenario.Network.allCases {
                // Its own sessions: held connections (drip, never) never queue another suite's
                // requests behind them.
                transports["\(mode.rawValue)-\(network.rawValue)"] = HTTP.SystemTransport(backstopTimeout: 10)
            }
        }
        return HostileServers(hostile: hostile, other: other, scenarios: scenarios, transports: transports)
    }

    /// The scenario named like `argument` (arguments are built before the other origin's port
    /// is known).
    func scenario(_ argument: HostileScenario) throws -> HostileScenario {
        try #require(scenarios.first { $0.network == argument.network && $0.name == argument.name })
    }

    func transport(_ network: HostileScenario.Network, _ mode: Mode) -> HTTP.SystemTransport? {
        transports["\(mode.rawValue)-\(network.rawValue)"]
    }
}

/// Runs and checks one scenario.
enum HostileRun {
    static let placementID = "hostile_banner"
    static let hostileSource = "hostile_source"
    static let backupSource = "backup_source"
    static let deadlineMilliseconds = 800.0
    static let auctionsPerPlacement = 3
    /// How long in real time a run may take before it counts as a hang: far beyond any
    /// exchange (the transport's backstop is 10 s), however loaded the machine.
    static let realLimit: Duration = .seconds(30)

    /// The arguments of one network's tests (names only: see ``HostileServers/scenario(_:)``).
    /// `HOSTILE_ONLY=drip,never swift test --filter Hostile` runs only the scenarios named.
    static func arguments(_ network: HostileScenario.Network) -> [HostileScenario] {
        let all = HostileScenarios.scenarios(for: network, otherBase: "http://127.0.0.1:0")
        guard let only = ProcessInfo.processInfo.environment["HOSTILE_ONLY"] else { return all }
        let names = only.split(separator: ",").map(String.init)
        return names.flatMap { name in all.filter { $0.name == name } }
    }

    /// The configuration: the hostile network at the scenario's endpoint on the loopback
    /// server, a well-behaved fallback source beside it, one refreshing banner placement with
    /// an 800 ms deadline.
    static func configuration(_ scenario: HostileScenario, base: URL) -> String {
        let endpoint = base.absoluteString + scenario.prefix
        let network: String
        let source: String
        switch scenario.network {
        case .elo:
            network = #"{"adapter":"elo","credentials":{"publisher_id":"pub-hostile"},"endpoint":"\#(endpoint)","options":{"share_geo":false,"log_level":"none"}}"#
            source = #"{"id":"\#(hostileSource)","network":"hostile","ad_unit_id":"elo-hostile"}"#
        case .nitx:
            network = #"{"adapter":"nitx","credentials":{"source_code":"SDK-AM-HOSTILE"},"endpoint":"\#(endpoint)","options":{"personalization":false,"request_mode":"get"}}"#
            source = #"{"id":"\#(hostileSource)","network":"hostile","ad_unit_id":"SLOT-HOSTILE","ecpm":2.0}"#
        case .qartvelo:
            network = #"{"adapter":"qartvelo","credentials":{"app_id":"qv-hostile"},"endpoint":"\#(endpoint)"}"#
            source = #"{"id":"\#(hostileSource)","network":"hostile","ad_unit_id":"qv-hostile","ecpm":2.0}"#
        }
        return #"""
        {
          "networks": {
            "hostile": \#(network),
            "backup": {"adapter":"fallback","credentials":{"app_id":"ca-app-pub-0000000000000000~0000000001"},"endpoint":"sandbox",
                       "options":{"fill_rate":1.0,"latency_ms":20,"latency_jitter_ms":0,"seed":5,"creative_sizes":{"banner":["320x50"]}}}
          },
          "placements": {
            "\#(placementID)": {
              "format": "banner", "sizing": "anchored", "slot": {"max_height": 90},
              "refresh_seconds": 30, "deadline_ms": \#(Int(deadlineMilliseconds)),
              "sources": [
                \#(source),
                {"id":"\#(backupSource)","network":"backup","ad_unit_id":"ca-app-pub-0000000000000000/9","ecpm":0.10}
              ]
            }
          }
        }
        """#
    }

    static func engine(_ scenario: HostileScenario, _ servers: HostileServers, clock: any MediationClock, transport: any HTTP.Transport) throws -> MediationEngine {
        let configuration = try MediationConfiguration(json: configuration(scenario, base: servers.hostile.baseURL), registry: .standard)
        return try MediationEngine(
            configuration: configuration,
            registry: .standard,
            environment: MediationEnvironment(clock: clock, seed: 1, transport: transport)
        )
    }

    /// The transport of `scenario` in `mode`, counting the requests on the wire.
    static func wire(_ scenario: HostileScenario, _ servers: HostileServers, mode: HostileServers.Mode) throws -> WireWatchingTransport {
        WireWatchingTransport(try #require(servers.transport(scenario.network, mode)))
    }

    /// Whether virtual time waits for a request on the wire: not when no answer is expected by
    /// the deadline (silence, a slow drip), whose deadline passes at once.
    static func waitsForTheWire(_ scenario: HostileScenario) -> Bool {
        if case .timeout = scenario.expected { return false }
        return true
    }

    // MARK: - Modes

    static func oneShot(_ argument: HostileScenario) async throws {
        let servers = try await HostileServers.shared.value
        let scenario = try servers.scenario(argument)
        let clock = ManualClock()
        let wire = try wire(scenario, servers, mode: .oneShot)
        let engine = try engine(scenario, servers, clock: clock, transport: wire)
        let outcome = Locked<MediationEngine.AuctionOutcome??>(nil)
        clock.startTask {
            let result = await engine.runAuction(placementID: placementID)
            outcome.withLock { $0 = .some(result) }
        }
        let finished = await wire.drive(clock, waitsForTheWire: waitsForTheWire(scenario), realLimit: realLimit) { outcome.withLock { $0 != nil } }
        #expect(finished, "the auction was not over after \(realLimit) of real time: a hang")
        guard let ran = outcome.withLock({ $0 }) else {
            await engine.shutdown()
            return
        }
        let result = try #require(ran)
        check(result.trace, scenario)
        if let winner = result.winner {
            check(winner.ad, lineItem: winner.lineItem.id, scenario)
            winner.ad.releaseResources()
        } else {
            Issue.record("no winner: the fallback source always fills")
        }
        try await checkOtherOrigin(scenario, servers)
        await engine.shutdown()
    }

    /// What a placement run saw.
    struct PlacementRun: Sendable {
        var traces: [AuctionTrace] = []
        var loaded: [(ad: MediationEvent.AdSummary, expiresAt: MediationInstant, at: MediationInstant)] = []
    }

    static func placement(_ argument: HostileScenario) async throws {
        let servers = try await HostileServers.shared.value
        let scenario = try servers.scenario(argument)
        let clock = ManualClock()
        let wire = try wire(scenario, servers, mode: .placement)
        let engine = try engine(scenario, servers, clock: clock, transport: wire)
        let events = engine.events()
        let placement = try #require(engine.placement(placementID))
        let run = Locked(PlacementRun())
        // The host: on the clock, so virtual time waits for it too.
        let host = clock.startTask {
            for await event in events {
                switch event {
                case .auctionFinished(_, let trace, _):
                    run.withLock { $0.traces.append(trace) }
                case .adLoaded(let ad, let expiresAt, let at):
                    run.withLock { $0.loaded.append((ad, expiresAt, at)) }
                    // The host renders every new ad at once (its impression tracking runs too).
                    if let current = await placement.currentAd?.ad { _ = await placement.reportShown(current) }
                default:
                    break
                }
                if run.withLock({ $0.traces.count }) == auctionsPerPlacement { break }
            }
        }
        clock.startTask { _ = await placement.attachView(visible: true) }
        let finished = await wire.drive(clock, waitsForTheWire: waitsForTheWire(scenario), realLimit: realLimit) { run.withLock { $0.traces.count >= auctionsPerPlacement } }
        #expect(finished, "\(auctionsPerPlacement) auctions were not over after \(realLimit) of real time: a hang")
        host.cancel()
        await engine.shutdown()
        try await check(run.withLock { $0 }, scenario, servers)
    }

    /// Checks what one placement run saw.
    static func check(_ result: PlacementRun, _ scenario: HostileScenario, _ servers: HostileServers) async throws {
        #expect(result.traces.count == auctionsPerPlacement)
        for trace in result.traces {
            check(trace, scenario)
        }
        // Auctions 2 and 3 are refreshes: at least 30 s apart on the placement's clock.
        for (previous, next) in zip(result.traces, result.traces.dropFirst()) {
            #expect(next.startedAtMilliseconds - previous.endedAtMilliseconds >= 30_000)
        }
        for loaded in result.loaded {
            #expect(NetworkValueBounds.isValidAdSize(loaded.ad.size))
            #expect(loaded.ad.adID.count <= NetworkValueBounds.maximumIdentifierLength)
            #expect(loaded.ad.creativeID.count <= NetworkValueBounds.maximumIdentifierLength)
            #expect(loaded.expiresAt - loaded.at <= NetworkValueBounds.maximumDuration)
            if case .wins(let size?) = scenario.expected, loaded.ad.lineItemID == hostileSource {
                #expect(loaded.ad.size == size)
            }
        }
        try await checkOtherOrigin(scenario, servers)
    }

    // MARK: - Checks

    static func check(_ trace: AuctionTrace, _ scenario: HostileScenario, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(trace.deadlineMilliseconds - trace.startedAtMilliseconds - deadlineMilliseconds) < 0.001, sourceLocation: sourceLocation)
        #expect(trace.endedAtMilliseconds <= trace.deadlineMilliseconds, "the trace ends by the deadline", sourceLocation: sourceLocation)
        for line in trace.sources {
            #expect((line.creativeID?.count ?? 0) <= NetworkValueBounds.maximumIdentifierLength, sourceLocation: sourceLocation)
            #expect((line.adID?.count ?? 0) <= NetworkValueBounds.maximumIdentifierLength, sourceLocation: sourceLocation)
            switch line.outcome {
            case .noFill(let reason):
                #expect(reason.code.count <= NetworkValueBounds.maximumIdentifierLength, sourceLocation: sourceLocation)
                #expect((reason.message?.count ?? 0) <= NetworkValueBounds.maximumTextLength, sourceLocation: sourceLocation)
            case .error(let error):
                #expect(error.message.count <= NetworkValueBounds.maximumTextLength, sourceLocation: sourceLocation)
            default:
                break
            }
        }
        // R17: whatever a network sent, the trace's text has no raw control character.
        #expect(!trace.description.unicodeScalars.contains { DisplayText.needsEscape($0) && $0 != "\n" }, "raw control character in\n\(trace)", sourceLocation: sourceLocation)
        guard let hostile = trace.source(hostileSource) else {
            Issue.record("no trace line for the hostile source", sourceLocation: sourceLocation)
            return
        }
        switch scenario.expected {
        case .wins:
            #expect(hostile.outcome == .won, sourceLocation: sourceLocation)
            #expect(trace.winner == hostileSource, sourceLocation: sourceLocation)
            return
        case .noFill(let code, let message):
            guard case .noFill(let reason) = hostile.outcome else {
                Issue.record("expected no fill \(code), got \(hostile.outcome) in\n\(trace)", sourceLocation: sourceLocation)
                return
            }
            #expect(reason.code == code, sourceLocation: sourceLocation)
            for part in message {
                #expect(reason.message?.contains(part) == true, "\(reason) lacks \(part)", sourceLocation: sourceLocation)
            }
        case .error(let kind, let code, let httpStatus, let message):
            guard case .error(let error) = hostile.outcome else {
                Issue.record("expected an error \(kind)(\(code)), got \(hostile.outcome) in\n\(trace)", sourceLocation: sourceLocation)
                return
            }
            #expect(error.kind == kind, sourceLocation: sourceLocation)
            #expect(error.code == code, sourceLocation: sourceLocation)
            #expect(error.httpStatus == httpStatus, sourceLocation: sourceLocation)
            for part in message {
                #expect(error.message.contains(part), "\(error) lacks \(part)", sourceLocation: sourceLocation)
            }
        case .fails:
            #expect(hostile.outcome != .won, "got \(hostile.outcome)", sourceLocation: sourceLocation)
        case .lost:
            guard case .lost = hostile.outcome else {
                Issue.record("expected the auction to refuse the answer, got \(hostile.outcome) in\n\(trace)", sourceLocation: sourceLocation)
                return
            }
        case .timeout:
            // Virtual time moved to the deadline with the request still on the wire.
            #expect(hostile.outcome.isTimeout, "got \(hostile.outcome)", sourceLocation: sourceLocation)
            #expect(trace.endedAtMilliseconds >= trace.deadlineMilliseconds, "a silent bidder or higher source holds the auction to its deadline", sourceLocation: sourceLocation)
        }
        // The well-behaved source wins instead.
        #expect(trace.winner == backupSource, sourceLocation: sourceLocation)
        #expect(trace.winningECPM == 0.10, sourceLocation: sourceLocation)
        #expect(trace.source(backupSource)?.outcome == .won, sourceLocation: sourceLocation)
    }

    /// The winner of a one-shot auction: the hostile source's ad bounded, or the fallback's.
    static func check(_ ad: any LoadedAd, lineItem: String, _ scenario: HostileScenario) {
        #expect(NetworkValueBounds.isValidAdSize(ad.size))
        #expect(ad.id.count <= NetworkValueBounds.maximumIdentifierLength)
        #expect(ad.creativeID.count <= NetworkValueBounds.maximumIdentifierLength)
        #expect((ad.timeToLive ?? .zero) <= NetworkValueBounds.maximumDuration)
        if let refresh = ad.serverRefreshSeconds {
            #expect((1...NetworkValueBounds.refreshSeconds.upperBound).contains(refresh))
        }
        if case .wins(let size) = scenario.expected {
            #expect(lineItem == hostileSource)
            if let size { #expect(ad.size == size) }
        } else {
            #expect(lineItem == backupSource)
        }
    }

    /// A redirect to the other origin was never followed.
    static func checkOtherOrigin(_ scenario: HostileScenario, _ servers: HostileServers) async throws {
        guard scenario.redirectsToOtherOrigin else { return }
        let asked = try await servers.other.receivedRequests().filter { $0.path.hasPrefix(scenario.prefix) }
        #expect(asked.isEmpty, "the other origin was asked: \(asked.map(\.path))")
    }
}

/// The six suites run one scenario at a time (the parent is serialized): the suite holds
/// connections open on purpose and moves megabytes, so it keeps its own load, and the load it
/// puts on the rest of the test run, low.
@Suite("Hostile networks (R16, R17)", .serialized, .enabled(if: !ThreadSanitizer.isOn, "real loopback I/O, megabytes of it: the plain pass runs these (see ThreadSanitizer)"))
struct HostileNetworkTests {
    @Suite("one-shot auctions: Elo")
    struct EloOneShot {
        @Test(arguments: HostileRun.arguments(.elo))
        func scenario(_ scenario: HostileScenario) async throws {
            try await HostileRun.oneShot(scenario)
        }
    }

    @Suite("one-shot auctions: Nitx")
    struct NitxOneShot {
        @Test(arguments: HostileRun.arguments(.nitx))
        func scenario(_ scenario: HostileScenario) async throws {
            try await HostileRun.oneShot(scenario)
        }
    }

    @Suite("one-shot auctions: Qartvelo")
    struct QartveloOneShot {
        @Test(arguments: HostileRun.arguments(.qartvelo))
        func scenario(_ scenario: HostileScenario) async throws {
            try await HostileRun.oneShot(scenario)
        }
    }

    @Suite("refreshing placements: Elo")
    struct EloPlacement {
        @Test(arguments: HostileRun.arguments(.elo))
        func scenario(_ scenario: HostileScenario) async throws {
            try await HostileRun.placement(scenario)
        }
    }

    @Suite("refreshing placements: Nitx")
    struct NitxPlacement {
        @Test(arguments: HostileRun.arguments(.nitx))
        func scenario(_ scenario: HostileScenario) async throws {
            try await HostileRun.placement(scenario)
        }
    }

    @Suite("refreshing placements: Qartvelo")
    struct QartveloPlacement {
        @Test(arguments: HostileRun.arguments(.qartvelo))
        func scenario(_ scenario: HostileScenario) async throws {
            try await HostileRun.placement(scenario)
        }
    }
}

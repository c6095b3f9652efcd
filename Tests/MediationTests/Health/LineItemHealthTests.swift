import Foundation
import MediationTestKit
import Testing
@testable import Mediation

/// An engine whose one network `ads` serves every line item (the ad unit decides the answer),
/// on a manual clock, with an injected state store and wall clock and the default health
/// settings but a first back-off of 30 s (7 failures of the last 10, 30 s, at most 600 s, one
/// probe): the instants below are spaced for it.
struct LineItemHealthFixture: Sendable {
    static let settings = NetworkHealthSettings(backoff: .seconds(30))
    /// How far the clock moves per auction: past any auction's 3000 ms deadline.
    static let step = Duration.seconds(5)

    let clock = ManualClock()
    let ads: ScriptedAdapter
    let engine: MediationEngine
    let recorder = EventRecorder()
    let logger = RecordingLogger()

    /// - Parameters:
    ///   - placements: the placements (their sources all on `ads`).
    ///   - store: the engine's state store (shared across a relaunch).
    ///   - wallClock: the wall clock.
    ///   - answer: `ads`'s answer to a request for an ad unit.
    init(
        placements: [MediationConfiguration.Placement],
        store: any StateStore = MemoryStateStore(),
        wallClock: @escaping @Sendable () -> Date = { Date(timeIntervalSince1970: 1_000_000) },
        answer: @escaping @Sendable (_ adUnitID: String) -> ScriptedAnswer
    ) throws {
        ads = ScriptedAdapter(network: "ads", pricing: .fixedPrice, clock: clock) { _, request in answer(request.adUnitID) }
        var networks = PrebuiltNetworks()
        networks.add("ads", pricing: .fixedPrice, adapter: ads, health: LineItemHealthFixture.settings)
        engine = try MediationEngine(
            configuration: networks.configuration(placements: placements),
            registry: networks.registry,
            environment: MediationEnvironment(clock: clock, logger: logger, wallClock: wallClock, stateStore: store),
            onEvent: recorder.handler
        )
    }

    /// One placement `p` with a failing line item `bad` (ad unit `u_bad`, eCPM 2) and an
    /// answering one `good` (`u_good`, eCPM 1) of the same network, in parallel.
    static let twoLineItems = [MediationConfiguration.Placement(id: "p", format: .interstitial, sources: [
        .fixedPrice("bad", network: "ads", adUnitID: "u_bad", eCPM: 2),
        .fixedPrice("good", network: "ads", adUnitID: "u_good", eCPM: 1),
    ])]

    /// ``twoLineItems`` answering: `u_bad` an error at 200 ms until `badAnswers` is set, then a
    /// fill at 100 ms like `u_good`.
    static func twoLineItems(badAnswers: Locked<Bool>) throws -> LineItemHealthFixture {
        try LineItemHealthFixture(placements: twoLineItems) { unit in
            unit == "u_bad" && !badAnswers.withLock({ $0 }) ? .after(.milliseconds(200), .error) : .after(.milliseconds(100), .fill)
        }
    }

    /// Two placements sharing `ads`: `home` (line item `home_ads`, ad unit `u_home`) and
    /// `level` (`level_ads`, `u_level`).
    static let twoPlacements = [
        MediationConfiguration.Placement(id: "home", format: .interstitial, sources: [.fixedPrice("home_ads", network: "ads", adUnitID: "u_home", eCPM: 1)]),
        MediationConfiguration.Placement(id: "level", format: .interstitial, sources: [.fixedPrice("level_ads", network: "ads", adUnitID: "u_level", eCPM: 1)]),
    ]

    /// Runs one auction of `placementID` from the clock's instant, moving the clock ``step`` on.
    func auction(_ placementID: String = "p") async throws -> MediationEngine.AuctionOutcome {
        let engine = engine
        let task = clock.startTask { await engine.runAuction(placementID: placementID) }
        await clock.runUntilIdle()
        await clock.advance(by: Self.step)
        return try #require(await task.value)
    }

    var pauses: [MediationEvent.NetworkPause] {
        recorder.events.compactMap { if case .networkPaused(let pause) = $0 { pause } else { nil } }
    }

    /// The resumes, as `network` or `network/line item`.
    var resumes: [String] {
        recorder.events.compactMap { if case .networkResumed(let id, _, _, _, let lineItem) = $0 { lineItem.map { "\(id)/\($0)" } ?? id } else { nil } }
    }

    /// The requests `ads` received for ad unit `adUnitID`, by instant.
    func requestInstants(_ adUnitID: String) -> [MediationInstant] {
        zip(ads.requests, ads.requestInstants).filter { $0.0.adUnitID == adUnitID }.map(\.1)
    }

    /// The back-off of line item `lineItemID` of `placementID`'s opening number `opening`
    /// after `failedProbes` failed probes, under the environment's default seed (1).
    static func backoff(_ lineItemID: String, of placementID: String, failedProbes: Int = 0, opening: Int = 0) -> Duration {
        let subject = HealthSubject.lineItem(lineItemID, placementID: placementID, networkID: "ads")
        return NetworkHealth.backoff(failedProbes: failedProbes, settings: LineItemHealthFixture.settings, jitter: HealthJitter.unit(seed: 1, networkID: subject.jitterID, opening: opening))
    }
}

/// Engine rule R24 per line item: a line item that fails while its network answers for its
/// other line items is paused on its own, at exact instants on the manual clock.
@Suite("Network health: a line item's own (R24)")
struct LineItemHealthTests {
    @Test("a line item failing beside an answering one opens at its 7th failure of 10; its network stays closed; the other is always asked; it probes at its back-off, a failed probe makes it 1.25 times longer, an answer closes it")
    func failingLineItemIsPausedOnItsOwn() async throws {
        let badAnswers = Locked(false)
        let fixture = try LineItemHealthFixture.twoLineItems(badAnswers: badAnswers)
        for _ in 0..<6 { _ = try await fixture.auction() }
        #expect(fixture.pauses.isEmpty)
        #expect(fixture.engine.lineItemHealth("bad", placementID: "p")?.recentFailures == 6)
        _ = try await fixture.auction() // starts at 30 s; bad's 7th failure at 30.2 s ends it
        let openedAt = MediationInstant.origin + .milliseconds(30_200)
        let backoff = LineItemHealthFixture.backoff("bad", of: "p")
        let retryAt = openedAt + backoff
        #expect(fixture.pauses == [MediationEvent.NetworkPause(networkID: "ads", cause: .failures, failures: 7, outcomes: 7, failedProbes: 0, backoffMilliseconds: backoff.milliseconds, retryAt: retryAt, at: openedAt, placementID: "p", lineItemID: "bad")])
        #expect(fixture.engine.lineItemHealth("bad", placementID: "p")?.state == .open)
        #expect(fixture.engine.lineItemHealth("bad", placementID: "p")?.retryAt == retryAt)
        #expect(fixture.engine.lineItemHealth("good", placementID: "p")?.state == .closed)
        #expect(fixture.engine.networkHealth("ads")?.state == .closed)
        #expect(fixture.engine.networkHealth("ads")?.recentFailures == 0)

        let paused = try await fixture.auction() // starts at 35 s
        #expect(paused.trace.source("bad")?.outcome == .notAsked(.networkPaused))
        #expect(paused.trace.source("bad")?.retryAtMilliseconds == retryAt.milliseconds)
        #expect(paused.winner?.lineItem.id == "good")
        #expect(fixture.requestInstants("u_bad").count == 7)
        await fixture.clock.advance(to: retryAt - .milliseconds(1))
        #expect(fixture.engine.lineItemHealth("bad", placementID: "p")?.state == .open)

        // At the back-off instant one auction probes it; the probe fails: the back-off grows by a quarter.
        await fixture.clock.advance(to: retryAt)
        _ = try await fixture.auction()
        #expect(fixture.requestInstants("u_bad").last == retryAt)
        let failedAt = retryAt + .milliseconds(200)
        let second = LineItemHealthFixture.backoff("bad", of: "p", failedProbes: 1, opening: 1)
        #expect(second > .milliseconds(18_750) && second <= .milliseconds(37_500))
        #expect(fixture.pauses.last == MediationEvent.NetworkPause(networkID: "ads", cause: .probeFailed, failures: 1, outcomes: 1, failedProbes: 1, backoffMilliseconds: second.milliseconds, retryAt: failedAt + second, at: failedAt, placementID: "p", lineItemID: "bad"))

        // The next probe answers: it closes.
        badAnswers.withLock { $0 = true }
        await fixture.clock.advance(to: failedAt + second)
        let probe = try await fixture.auction()
        #expect(fixture.requestInstants("u_bad").last == failedAt + second)
        #expect(probe.winner?.lineItem.id == "bad")
        #expect(fixture.resumes == ["ads/bad"])
        #expect(fixture.engine.lineItemHealth("bad", placementID: "p")?.state == .closed)

        // The network was never paused, and `good` was asked in every auction.
        #expect(fixture.pauses.allSatisfy { $0.lineItemID == "bad" })
        #expect(fixture.requestInstants("u_good").count == 10)
    }

    @Test("two placements share a network: the hanging placement's line item is paused, the other placement's is never")
    func crossPlacementHangPausesTheLineItemOnly() async throws {
        let fixture = try LineItemHealthFixture(placements: LineItemHealthFixture.twoPlacements) { unit in
            unit == "u_level" ? .never : .after(.milliseconds(100), .fill)
        }
        // Auction n starts at 5 s × n: home at even n, level at odd n (timing out at its
        // 3000 ms deadline). Level's first failure (n = 1) comes before home answered since it
        // began failing: it is the network's. From n = 3 on its failures are its own.
        for _ in 0..<8 {
            _ = try await fixture.auction("home")
            _ = try await fixture.auction("level")
        }
        let openedAt = MediationInstant.origin + .milliseconds(5000 * 15 + 3000)
        let backoff = LineItemHealthFixture.backoff("level_ads", of: "level")
        #expect(fixture.pauses == [MediationEvent.NetworkPause(networkID: "ads", cause: .failures, failures: 7, outcomes: 7, failedProbes: 0, backoffMilliseconds: backoff.milliseconds, retryAt: openedAt + backoff, at: openedAt, placementID: "level", lineItemID: "level_ads")])
        #expect(fixture.engine.networkHealth("ads")?.state == .closed)
        #expect(fixture.engine.networkHealth("ads")?.recentFailures == 1)

        let home = try await fixture.auction("home")
        let level = try await fixture.auction("level")
        #expect(level.trace.source("level_ads")?.outcome == .notAsked(.networkPaused))
        #expect(level.trace.source("level_ads")?.retryAtMilliseconds == (openedAt + backoff).milliseconds)
        #expect(home.winner?.lineItem.id == "home_ads")
        #expect(fixture.requestInstants("u_home").count == 9)
        #expect(fixture.requestInstants("u_level").count == 8)
        #expect(fixture.engine.lineItemHealth("home_ads", placementID: "home")?.state == .closed)
        #expect(fixture.engine.lineItemHealth("level_ads", placementID: "level")?.state == .open)
        let event = try #require(fixture.recorder.events.first { $0.name == "network_paused" })
        #expect(event.placementID == "level")
        #expect(EventRecord(event).lineItemID == "level_ads")
        #expect(EventRecord(event).network == "ads")
        #expect(event.description.contains("network_paused ads line item level_ads of level (failures: 7 of 7 failed)"))
    }

    @Test("the hanging placement dominates (3 auctions to 1): still only its line item is paused, never the network")
    func dominantHangingPlacementPausesTheLineItemOnly() async throws {
        let fixture = try LineItemHealthFixture(placements: LineItemHealthFixture.twoPlacements) { unit in
            unit == "u_level" ? .never : .after(.milliseconds(100), .fill)
        }
        // home, level, level, level, home, …: level's first three failures come before home
        // answered since level began failing (the network's: 3 of its verdicts); from the
        // 6th auction on, level's are its own. Counted for the network, they would pause it
        // at the 10th auction (7 of its last 10 verdicts).
        for index in 0..<14 { _ = try await fixture.auction(index % 4 == 0 ? "home" : "level") }
        let openedAt = MediationInstant.origin + .milliseconds(5000 * 13 + 3000)
        let backoff = LineItemHealthFixture.backoff("level_ads", of: "level")
        #expect(fixture.pauses == [MediationEvent.NetworkPause(networkID: "ads", cause: .failures, failures: 7, outcomes: 7, failedProbes: 0, backoffMilliseconds: backoff.milliseconds, retryAt: openedAt + backoff, at: openedAt, placementID: "level", lineItemID: "level_ads")])
        #expect(fixture.engine.networkHealth("ads")?.state == .closed)
        #expect(fixture.engine.networkHealth("ads")?.recentFailures == 3)
        #expect(fixture.requestInstants("u_home").count == 4)
    }

    @Test("a whole-network hang after a healthy start pauses the network exactly as without line item health: one network_paused, no line item event", arguments: [0, 4])
    func wholeNetworkHangPausesTheNetworkOnly(healthyAuctions: Int) async throws {
        let hung = Locked(false)
        let fixture = try LineItemHealthFixture(placements: LineItemHealthFixture.twoPlacements) { _ in
            hung.withLock { $0 } ? .never : .after(.milliseconds(100), .fill)
        }
        var auctions = 0
        func next() async throws {
            _ = try await fixture.auction(auctions % 2 == 0 ? "home" : "level")
            auctions += 1
        }
        for _ in 0..<healthyAuctions { try await next() }
        hung.withLock { $0 = true }
        for _ in 0..<7 { try await next() }
        // The network's rule alone: its 7th failure (of the last 10 verdicts) opens it at the
        // end of that auction, its deadline.
        let openedAt = MediationInstant.origin + .milliseconds(5000 * (healthyAuctions + 6) + 3000)
        let backoff = NetworkHealth.backoff(failedProbes: 0, settings: LineItemHealthFixture.settings, jitter: HealthJitter.unit(seed: 1, networkID: "ads", opening: 0))
        #expect(fixture.pauses == [MediationEvent.NetworkPause(networkID: "ads", cause: .failures, failures: 7, outcomes: min(10, healthyAuctions + 7), failedProbes: 0, backoffMilliseconds: backoff.milliseconds, retryAt: openedAt + backoff, at: openedAt)])
        #expect(fixture.engine.lineItemHealth("home_ads", placementID: "home")?.state == .closed)
        #expect(fixture.engine.lineItemHealth("level_ads", placementID: "level")?.state == .closed)
        #expect(fixture.engine.lineItemHealth("home_ads", placementID: "home")?.recentFailures == 0)
        #expect(fixture.engine.lineItemHealth("level_ads", placementID: "level")?.recentFailures == 0)

        // Its probe fails: the network's again, and only the network's.
        await fixture.clock.advance(to: openedAt + backoff)
        try await next()
        #expect(fixture.pauses.map(\.cause) == [.failures, .probeFailed])
        #expect(fixture.pauses.allSatisfy { $0.lineItemID == nil && $0.placementID == nil })
        #expect(fixture.resumes.isEmpty)
        #expect(fixture.recorder.events.filter { $0.name == "network_paused" }.allSatisfy { $0.placementID.isEmpty })
    }

    @Test("a line item a configuration change removed no longer makes another's failures its own: a whole-network outage after the swap pauses the network only")
    func removedLineItemNoLongerSpeaksForTheNetwork() async throws {
        let down = Locked(false)
        let fixture = try LineItemHealthFixture(placements: [MediationConfiguration.Placement(id: "p", format: .interstitial, sources: [
            .fixedPrice("a", network: "ads", adUnitID: "u_a", eCPM: 2),
            .fixedPrice("b", network: "ads", adUnitID: "u_b", eCPM: 1),
        ])]) { unit in
            unit == "u_a" || down.withLock({ $0 }) ? .after(.milliseconds(200), .error) : .after(.milliseconds(100), .fill)
        }
        // `a` fails beside `b`, which answers: 3 failures of `a`'s own.
        for _ in 0..<3 { _ = try await fixture.auction() }
        #expect(fixture.engine.lineItemHealth("a", placementID: "p")?.recentFailures == 3)
        // `b` is replaced by `c`; then the whole network fails, `a` and `c` from the same auction on.
        var v2 = fixture.engine.configuration
        v2.placements = [MediationConfiguration.Placement(id: "p", format: .interstitial, sources: [
            .fixedPrice("a", network: "ads", adUnitID: "u_a", eCPM: 2),
            .fixedPrice("c", network: "ads", adUnitID: "u_c", eCPM: 1),
        ])]
        try await fixture.engine.apply(v2, version: 2, source: .remote)
        down.withLock { $0 = true }
        for _ in 0..<7 { _ = try await fixture.auction() }
        // Every failure is the network's (nothing of it answered since the outage): the
        // network opens at its 7th, and `a` (whose answering peer is gone) is not paused.
        #expect(fixture.pauses.map(\.lineItemID) == [nil])
        #expect(fixture.engine.lineItemHealth("a", placementID: "p")?.state == .closed)
        #expect(fixture.engine.lineItemHealth("a", placementID: "p")?.recentFailures == 3)
        #expect(fixture.engine.networkHealth("ads")?.state == .open)
    }

    @Test("line items flapping at different periods across two placements, with a whole-network outage in the middle: the same events twice, and every paused line item or network is asked again once its back-off ends")
    func flappingIsDeterministicAndNeverStuck() async throws {
        func run() async throws -> (events: [String], fixture: LineItemHealthFixture) {
            let auction = Locked(0)
            let fixture = try LineItemHealthFixture(placements: [
                MediationConfiguration.Placement(id: "home", format: .interstitial, sources: [
                    .fixedPrice("h1", network: "ads", adUnitID: "u_h1", eCPM: 2),
                    .fixedPrice("h2", network: "ads", adUnitID: "u_h2", eCPM: 1),
                ]),
                MediationConfiguration.Placement(id: "level", format: .interstitial, sources: [.fixedPrice("h1", network: "ads", adUnitID: "u_l1", eCPM: 1)]),
            ]) { unit in
                let n = auction.withLock { $0 }
                let down = (60..<90).contains(n)
                let fails = down || (unit == "u_h1" && n % 11 != 0) || (unit == "u_l1" && n % 7 != 0) || (unit == "u_h2" && n % 5 == 0)
                return fails ? (n % 4 == 0 ? .never : .after(.milliseconds(200), .error)) : .after(.milliseconds(100), .fill)
            }
            for n in 0..<240 {
                auction.withLock { $0 = n }
                _ = try await fixture.auction(n % 3 == 2 ? "level" : "home")
            }
            return (fixture.recorder.events.filter { $0.name.hasPrefix("network_") }.map(\.description), fixture)
        }
        let first = try await run()
        let second = try await run()
        #expect(first.events == second.events)
        #expect(!first.events.isEmpty)
        // Nothing is paused for ever: every pause's retry instant is followed by a request.
        let fixture = first.fixture
        for pause in fixture.pauses where pause.retryAt < fixture.clock.now - .seconds(60) {
            let units: [String] = switch (pause.placementID, pause.lineItemID) {
            case ("home", "h1"): ["u_h1"]
            case ("home", "h2"): ["u_h2"]
            case ("level", "h1"): ["u_l1"]
            default: ["u_h1", "u_h2", "u_l1"]
            }
            #expect(units.contains { unit in fixture.requestInstants(unit).contains { $0 >= pause.retryAt } }, "\(pause)")
        }
    }

    @Test("health turned off for the network while a line item is paused on its own: the line item is asked at once and reads off; turned on again after its back-off, it is probed by the next auction and closes on an answer")
    func healthTurnedOffWhileALineItemIsPaused() async throws {
        let badAnswers = Locked(false)
        let fixture = try LineItemHealthFixture.twoLineItems(badAnswers: badAnswers)
        for _ in 0..<7 { _ = try await fixture.auction() }
        #expect(fixture.engine.lineItemHealth("bad", placementID: "p")?.state == .open)
        var off = fixture.engine.configuration
        off.networks[0].health.enabled = false
        try await fixture.engine.apply(off, version: 2, source: .remote)
        #expect(fixture.engine.lineItemHealth("bad", placementID: "p")?.enabled == false)
        let asked = try await fixture.auction()
        #expect(asked.trace.source("bad")?.outcome != .notAsked(.networkPaused))
        badAnswers.withLock { $0 = true }
        await fixture.clock.advance(by: .seconds(700))
        var on = off
        on.networks[0].health.enabled = true
        try await fixture.engine.apply(on, version: 3, source: .remote)
        let probe = try await fixture.auction()
        #expect(probe.trace.source("bad")?.outcome == .won)
        #expect(fixture.resumes == ["ads/bad"])
        #expect(fixture.engine.lineItemHealth("bad", placementID: "p")?.state == .closed)
        #expect(fixture.pauses.map(\.lineItemID) == ["bad"])
    }

    @Test("a paused line item is kept across a relaunch on the same store until its back-off ends, and not longer")
    func lineItemPauseSurvivesARelaunch() async throws {
        let store = MemoryStateStore()
        let wall = Locked(Date(timeIntervalSince1970: 1_000_000))
        let answer: @Sendable (String) -> ScriptedAnswer = { $0 == "u_bad" ? .after(.milliseconds(200), .error) : .after(.milliseconds(100), .fill) }
        let before = try LineItemHealthFixture(placements: LineItemHealthFixture.twoLineItems, store: store, wallClock: { wall.withLock { $0 } }, answer: answer)
        for _ in 0..<7 { _ = try await before.auction() }
        let key = HealthSubject.lineItem("bad", placementID: "p", networkID: "ads").storeKey
        #expect(try store.data(forKey: key) != nil)
        #expect(try store.data(forKey: "health.ads") == nil)
        await before.engine.shutdown()

        wall.withLock { $0 += 10 } // relaunched 10 s later on the wall clock
        let after = try LineItemHealthFixture(placements: LineItemHealthFixture.twoLineItems, store: store, wallClock: { wall.withLock { $0 } }, answer: answer)
        let retryAt = MediationInstant.origin + LineItemHealthFixture.backoff("bad", of: "p") - .seconds(10)
        #expect(after.engine.lineItemHealth("bad", placementID: "p")?.state == .open)
        #expect(after.engine.lineItemHealth("bad", placementID: "p")?.retryAt == retryAt)
        #expect(after.engine.networkHealth("ads")?.state == .closed)
        #expect(after.pauses.map(\.cause) == [.restored])
        #expect(after.pauses.map(\.lineItemID) == ["bad"])
        let paused = try await after.auction()
        #expect(paused.trace.source("bad")?.outcome == .notAsked(.networkPaused))
        #expect(paused.trace.source("good")?.outcome == .won)
        await after.clock.advance(to: retryAt - .milliseconds(1))
        #expect(after.engine.lineItemHealth("bad", placementID: "p")?.state == .open)
        await after.clock.advance(to: retryAt)
        _ = try await after.auction()
        #expect(after.requestInstants("u_bad") == [retryAt])
    }

    @Test("a tampered stored line item state, or one naming another line item, is discarded with a warning")
    func tamperedLineItemStateIsDiscarded() throws {
        let store = MemoryStateStore()
        let bad = HealthSubject.lineItem("bad", placementID: "p", networkID: "ads").storeKey
        let good = HealthSubject.lineItem("good", placementID: "p", networkID: "ads").storeKey
        try store.setData(Data(#"{"version":1,"retry_at_wall_ms":-5,"backoff_ms":30000,"failed_probes":0,"openings":1,"network":"ads","placement":"p","line_item":"bad"}"#.utf8), forKey: bad)
        try store.setData(Data(#"{"version":1,"retry_at_wall_ms":1000010000,"backoff_ms":30000,"failed_probes":0,"openings":1,"network":"ads","placement":"p","line_item":"bad"}"#.utf8), forKey: good)
        try store.setData(Data(#"{"version":1,"retry_at_wall_ms":1000010000,"backoff_ms":30000,"failed_probes":0,"openings":1,"network":"ads","placement":"p","line_item":"good"}"#.utf8), forKey: "health.ads")
        let fixture = try LineItemHealthFixture(placements: LineItemHealthFixture.twoLineItems, store: store) { _ in .after(.milliseconds(100), .fill) }
        #expect(fixture.engine.lineItemHealth("bad", placementID: "p")?.state == .closed)
        #expect(fixture.engine.lineItemHealth("good", placementID: "p")?.state == .closed)
        #expect(fixture.engine.networkHealth("ads")?.state == .closed)
        for key in [bad, good, "health.ads"] { #expect(try store.data(forKey: key) == nil) }
        #expect(fixture.logger.warnings.filter { $0.contains("was discarded") }.count == 3)
        #expect(fixture.logger.warnings.filter { $0.contains("names another line item") }.count == 2)
        #expect(fixture.pauses.isEmpty)
    }

    @Test("a line item's store key is valid and its own for any ids, and never a network's")
    func storeKeys() {
        let long = String(repeating: "é", count: 500)
        let subjects: [HealthSubject] = [
            .lineItem("a", placementID: "b:c", networkID: "n"),
            .lineItem("c:a", placementID: "b", networkID: "n"),
            .lineItem("b", placementID: "n", networkID: "a"),
            .lineItem(long, placementID: long, networkID: long),
            .lineItem("", placementID: "", networkID: ""),
            .lineItem("x\u{0}y", placementID: "../..", networkID: "health.n"),
        ]
        let keys = subjects.map(\.storeKey)
        #expect(Set(keys).count == keys.count)
        #expect(keys.allSatisfy { StateStoreKey.isValid($0) && $0.hasPrefix("health_line_item.") && !$0.hasPrefix("health.") })
        #expect(HealthSubject.network("n").storeKey == "health.n")
    }

    @Test("a network's only line item keeps no health of its own (its verdicts are its network's)")
    func loneLineItemHasNoMachine() throws {
        let clock = ManualClock()
        var networks = PrebuiltNetworks()
        networks.add("solo", pricing: .fixedPrice, adapter: ScriptedAdapter(network: "solo", pricing: .fixedPrice, clock: clock, script: []), health: LineItemHealthFixture.settings)
        networks.add("ads", pricing: .fixedPrice, adapter: ScriptedAdapter(network: "ads", pricing: .fixedPrice, clock: clock, script: []), health: LineItemHealthFixture.settings)
        let configuration = networks.configuration(placements: [
            MediationConfiguration.Placement(id: "p", format: .interstitial, sources: [.fixedPrice("solo_p", network: "solo", eCPM: 1), .fixedPrice("ads_p", network: "ads", eCPM: 1)]),
            MediationConfiguration.Placement(id: "q", format: .interstitial, sources: [.fixedPrice("ads_q", network: "ads", eCPM: 1)]),
        ])
        #expect(configuration.networksWithLineItemHealth == ["ads"])
        let monitor = NetworkHealthMonitor(seed: 1, store: MemoryStateStore(), wallClock: { Date() }, logger: RecordingLogger(), emit: { _ in })
        let sources = configuration.placements[0].sources.map { AuctionSource(lineItem: $0, adapter: ScriptedAdapter(network: $0.network, pricing: .fixedPrice, clock: clock, script: []), lineItemHealth: $0.network == "ads") }
        let plan = NetworkHealthMonitor.Plan(sources, placementID: "p", on: monitor)
        #expect(plan.networks.map(\.lineItems.count) == [0, 1])
        #expect(plan.lineItems.map(\.subject) == [.lineItem("ads_p", placementID: "p", networkID: "ads")])
    }
}

/// Engine rule R24's attribution of a line item's failure (``LineItemRun``), on the pure value.
@Suite("Network health: whose failure (R24)")
struct LineItemRunTests {
    @Test("a failure is the line item's own only when another line item answered since it began failing and that is still its latest verdict")
    func attribution() {
        var failing = LineItemRun()
        var other = LineItemRun()
        other.note(.success, auction: 1)
        failing.note(.failure, auction: 2)
        #expect(!failing.failsAlone(among: [failing, other])) // the other answered before it began failing
        other.note(.success, auction: 3)
        #expect(failing.failsAlone(among: [failing, other]))
        failing.note(.failure, auction: 4) // still failing since 2
        #expect(failing.failingSince == 2)
        other.note(.failure, auction: 5) // the other fails too now: the network may be down
        #expect(!failing.failsAlone(among: [failing, other]))
        other.note(nil, auction: 6) // saying nothing changes nothing
        #expect(!failing.failsAlone(among: [failing, other]))
        failing.note(.success, auction: 7)
        #expect(!failing.failsAlone(among: [failing, other]))
        #expect(failing.failingSince == 0 && failing.lastAnswer == 7)
        // An answer in the same auction as its first failure counts.
        var lone = LineItemRun()
        var peer = LineItemRun()
        lone.note(.failure, auction: 8)
        peer.note(.success, auction: 8)
        #expect(lone.failsAlone(among: [peer]))
        #expect(!lone.failsAlone(among: [LineItemRun]()))
    }
}

/// Engine rule R24 on the monitor with hand-made traces, at exact instants: a line item's
/// machine under a network that is paused, or whose probe fails.
@Suite("Network health: line items under their network (R24)")
struct LineItemHealthMonitorTests {
    static let failed = SourceOutcome.error(AdLoadResult.Error(kind: .server, code: 500, message: "x"))
    static let answered = SourceOutcome.noFill(.noInventory)

    let events = Locked<[MediationEvent]>([])
    let clock = ManualClock()

    func monitor() -> NetworkHealthMonitor {
        let events = events
        return NetworkHealthMonitor(seed: 1, store: MemoryStateStore(), wallClock: { Date(timeIntervalSince1970: 1_000_000) }, logger: RecordingLogger(), emit: { event in events.withLock { $0.append(event) } })
    }

    func plan(_ placementID: String, _ lineItemIDs: [String], on monitor: NetworkHealthMonitor) -> NetworkHealthMonitor.Plan {
        let sources = lineItemIDs.map { AuctionSource(lineItem: .fixedPrice($0, network: "ads", eCPM: 1), adapter: ScriptedAdapter(network: "ads", pricing: .fixedPrice, clock: clock, script: []), health: LineItemHealthFixture.settings) }
        return NetworkHealthMonitor.Plan(sources, placementID: placementID, on: monitor)
    }

    func trace(_ outcomes: [(String, SourceOutcome)]) -> AuctionTrace {
        AuctionTrace(auctionID: "a", placementID: "p", mode: .parallel, startedAtMilliseconds: 0, endedAtMilliseconds: 200, deadlineMilliseconds: 3000, winner: nil, winningECPM: nil, sources: outcomes.map {
            AuctionTrace.Source(lineItemID: $0.0, network: "ads", pricing: .fixedPrice, startOffsetMilliseconds: 0, latencyMilliseconds: 200, outcome: $0.1)
        })
    }

    /// `network` or `network/line item`, and `+` for a pause, `-` for a resume, with its cause.
    var log: [String] {
        events.withLock { $0 }.compactMap { event in
            switch event {
            case .networkPaused(let pause): "+\(pause.lineItemID.map { "ads/\($0)" } ?? "ads") \(pause.cause.rawValue)"
            case .networkResumed(_, _, _, _, let lineItem): "-\(lineItem.map { "ads/\($0)" } ?? "ads")"
            default: nil
            }
        }
    }

    @Test("a line item probing on its own in its network's probe, with no other line item of the network in the auction: its failure is its own and reopens it; the network's probe, which heard nothing, frees its place (neither is probed in every auction)")
    func lineItemProbeInsideANetworkProbeThatHearsNothing() {
        let monitor = monitor()
        let p = plan("p", ["a"], on: monitor)
        let q = plan("q", ["m"], on: monitor)
        func at(_ seconds: Double) -> MediationInstant { .origin + .milliseconds(Int(seconds * 1000)) }
        // `a` fails while `m` answers: `a`'s first failure is the network's, from the second
        // on its own; it opens on its own at its 8th failure.
        for second in 0..<8 {
            let ticket = monitor.admit(p, at: at(Double(2 * second)))
            monitor.record(trace([("a", Self.failed)]), plan: p, ticket: ticket, at: at(Double(2 * second) + 0.2))
            let other = monitor.admit(q, at: at(Double(2 * second + 1)))
            monitor.record(trace([("m", Self.answered)]), plan: q, ticket: other, at: at(Double(2 * second + 1) + 0.2))
        }
        #expect(log == ["+ads/a failures"])
        // Then `m` fails too: the network's failures; it opens.
        for second in 20..<27 {
            let ticket = monitor.admit(q, at: at(Double(second)))
            monitor.record(trace([("m", Self.failed)]), plan: q, ticket: ticket, at: at(Double(second) + 0.2))
        }
        #expect(log == ["+ads/a failures", "+ads failures"])
        // Both back-offs over: a `p` auction probes the network and `a`; `a` fails. The failure
        // is `a`'s own (it is probing on its own): `a` opens again with a longer back-off; the
        // network's probe heard nothing and frees its place.
        let probe = monitor.admit(p, at: at(100))
        #expect(probe.probes == [0] && probe.lineItemProbes == [0])
        monitor.record(trace([("a", Self.failed)]), plan: p, ticket: probe, at: at(100.2))
        #expect(log == ["+ads/a failures", "+ads failures", "+ads/a probe_failed"])
        // The next `p` auction does not ask `a` again: it is paused until its longer back-off.
        let next = monitor.admit(p, at: at(101))
        #expect(next.paused.keys.sorted() == [0])
        #expect(next.lineItemProbes.isEmpty)
        monitor.record(trace([("a", .notAsked(.networkPaused))]), plan: p, ticket: next, at: at(101.2))
        // The network's probe place was freed: a `q` auction probes it.
        #expect(monitor.admit(q, at: at(102)).probes == [0])
    }

    @Test("when the network's probe fails, its line items are fed nothing (no line item event) and a line item's probe frees its place; once the network answers, the line item probes and closes")
    func lineItemsUnderAFailedNetworkProbe() {
        let monitor = monitor()
        let p = plan("p", ["bad", "good"], on: monitor)
        let q = plan("q", ["m"], on: monitor)
        func at(_ seconds: Double) -> MediationInstant { .origin + .milliseconds(Int(seconds * 1000)) }
        // `bad` fails while `good` answers: `bad` opens on its own at its 7th failure.
        for second in 0..<7 {
            let ticket = monitor.admit(p, at: at(Double(second)))
            monitor.record(trace([("bad", Self.failed), ("good", Self.answered)]), plan: p, ticket: ticket, at: at(Double(second) + 0.2))
        }
        #expect(log == ["+ads/bad failures"])
        // Then `good` fails too (`bad` is paused): the failures are the network's; it opens.
        for second in 7..<14 {
            let ticket = monitor.admit(p, at: at(Double(second)))
            #expect(ticket.paused.keys.sorted() == [0])
            monitor.record(trace([("bad", .notAsked(.networkPaused)), ("good", Self.failed)]), plan: p, ticket: ticket, at: at(Double(second) + 0.2))
        }
        #expect(log == ["+ads/bad failures", "+ads failures"])
        // Both back-offs over: one auction probes the network and `bad`; both fail. The
        // network opens again; `bad` is fed nothing, but its probe's place is freed.
        let probe = monitor.admit(p, at: at(60))
        #expect(probe.probes == [0] && probe.lineItemProbes == [0] && probe.paused.isEmpty)
        monitor.record(trace([("bad", Self.failed), ("good", Self.failed)]), plan: p, ticket: probe, at: at(60.2))
        #expect(log == ["+ads/bad failures", "+ads failures", "+ads probe_failed"])
        // `q`'s line item answers the network's next probe: it closes. Then `bad` is probed.
        let resume = monitor.admit(q, at: at(180))
        #expect(resume.probes == [0])
        monitor.record(trace([("m", Self.answered)]), plan: q, ticket: resume, at: at(180.2))
        let again = monitor.admit(p, at: at(181))
        #expect(again.paused.isEmpty && again.probes.isEmpty && again.lineItemProbes == [0])
        monitor.record(trace([("bad", Self.answered), ("good", Self.answered)]), plan: p, ticket: again, at: at(181.2))
        #expect(log == ["+ads/bad failures", "+ads failures", "+ads probe_failed", "-ads", "-ads/bad"])
    }
}

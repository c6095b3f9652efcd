import Foundation
import Testing
@testable import Mediation

/// Engine rule R24 on the pure state machine: exact instants, no clock.
@Suite("Network health: the state machine (R24)")
struct NetworkHealthTests {
    let settings = NetworkHealthSettings(failuresToOpen: 3, window: 5, backoff: .seconds(30), maxBackoff: .seconds(100), probes: 1)
    let t0 = MediationInstant.origin + .seconds(10)

    @Test("it opens when failures_to_open of the last window fail, for the back-off from that instant")
    func opensAfterTheRulesFailures() {
        var health = NetworkHealth()
        #expect(health.record(.failure, probe: false, at: t0, settings: settings, jitter: 0) == nil)
        #expect(health.record(.success, probe: false, at: t0, settings: settings, jitter: 0) == nil)
        #expect(health.record(.failure, probe: false, at: t0, settings: settings, jitter: 0) == nil)
        #expect(health.phase == .closed)
        let transition = health.record(.failure, probe: false, at: t0, settings: settings, jitter: 0)
        #expect(transition == .opened(cause: .failures, failures: 3, outcomes: 4, backoff: .seconds(30), retryAt: t0 + .seconds(30)))
        #expect(health.phase == .open)
        #expect(health.admit(at: t0 + .milliseconds(29_999), settings: settings) == .paused(retryAt: t0 + .seconds(30)))
    }

    @Test("old failures leave the window: 3 failures spread over more than 5 verdicts never open it")
    func failuresOutsideTheWindowDoNotCount() {
        var health = NetworkHealth()
        for signal: HealthSignal in [.failure, .success, .success, .success, .failure, .failure, .success, .success] {
            #expect(health.record(signal, probe: false, at: t0, settings: settings, jitter: 0) == nil)
        }
        #expect(health.phase == .closed)
        #expect(health.recentFailures == 2)
    }

    @Test("a no-fill is an answer: any number of them never opens it")
    func noFillNeverOpens() {
        var health = NetworkHealth()
        for _ in 0..<100 {
            #expect(health.record(HealthSignal(.noFill(.noInventory)), probe: false, at: t0, settings: settings, jitter: 0) == nil)
        }
        #expect(health.phase == .closed)
        #expect(HealthSignal(.noFill(.noInventory)) == .success)
        #expect(HealthSignal(.lost(.lostToHigherBid)) == .success)
        #expect(HealthSignal(.timeout(.network)) == .failure)
        #expect(HealthSignal(.error(AdLoadResult.Error(kind: .server, code: 500, message: "x"))) == .failure)
        #expect(HealthSignal(.error(AdLoadResult.Error(kind: .configuration, code: 401, message: "x"))) == nil)
        #expect(HealthSignal(.cancelled(couldNotBeat: 1)) == nil)
        #expect(HealthSignal(.notAsked(.tierNotReached)) == nil)
        #expect(HealthSignal.combined(signals: [HealthSignal(.error(AdLoadResult.Error(kind: .network, code: 1, message: "x"))), HealthSignal(.noFill(.noInventory))]) == .success)
        #expect(HealthSignal.combined(signals: [HealthSignal(.error(AdLoadResult.Error(kind: .network, code: 1, message: "x"))), HealthSignal(.cancelled(couldNotBeat: nil))]) == .failure)
    }

    @Test("at the back-off instant one probe asks it; a failed probe makes the back-off 1.25 times longer, up to the cap; a success closes it")
    func probesAtTheBackoffInstant() {
        var health = NetworkHealth()
        for _ in 0..<3 { _ = health.record(.failure, probe: false, at: t0, settings: settings, jitter: 0) }
        let retry = t0 + .seconds(30)
        #expect(health.admit(at: retry, settings: settings) == .ask(probe: true))
        #expect(health.phase == .halfOpen)
        #expect(health.admit(at: retry, settings: settings) == .paused(retryAt: retry)) // one probe at a time
        // A verdict of an auction admitted before it opened counts for nothing.
        #expect(health.record(.success, probe: false, at: retry, settings: settings, jitter: 0) == nil)
        let failed = retry + .seconds(1)
        #expect(health.record(.failure, probe: true, at: failed, settings: settings, jitter: 0) == .opened(cause: .probeFailed, failures: 1, outcomes: 1, backoff: .milliseconds(37_500), retryAt: failed + .milliseconds(37_500)))
        #expect(health.admit(at: failed + .milliseconds(37_500), settings: settings) == .ask(probe: true))
        let again = failed + .milliseconds(37_500)
        #expect(health.record(.failure, probe: true, at: again, settings: settings, jitter: 0) == .opened(cause: .probeFailed, failures: 1, outcomes: 1, backoff: .milliseconds(46_875), retryAt: again + .milliseconds(46_875)))
        #expect(health.admit(at: again + .milliseconds(46_875), settings: settings) == .ask(probe: true))
        #expect(health.record(.success, probe: true, at: again + .milliseconds(46_875), settings: settings, jitter: 0) == .closed(failedProbes: 2))
        #expect(health.phase == .closed)
        #expect(health.admit(at: again + .milliseconds(46_875), settings: settings) == .ask(probe: false))
        // 30 s × 1.25^n: 91.55 s after 5 failed probes, the cap (100 s) from the sixth on.
        #expect(NetworkHealth.backoff(failedProbes: 5, settings: settings, jitter: 0) == .milliseconds(91_552))
        #expect(NetworkHealth.backoff(failedProbes: 6, settings: settings, jitter: 0) == .seconds(100))
        #expect(NetworkHealth.backoff(failedProbes: 1_000_000, settings: settings, jitter: 0) == .seconds(100))
    }

    @Test("a probe whose auction said nothing of it frees its place")
    func aSilentProbeFreesItsPlace() {
        var health = NetworkHealth()
        for _ in 0..<3 { _ = health.record(.failure, probe: false, at: t0, settings: settings, jitter: 0) }
        let retry = t0 + .seconds(30)
        #expect(health.admit(at: retry, settings: settings) == .ask(probe: true))
        #expect(health.record(nil, probe: true, at: retry, settings: settings, jitter: 0) == nil)
        #expect(health.admit(at: retry, settings: settings) == .ask(probe: true))
    }

    @Test("the jitter is seeded: the same seed, network and opening give the same back-off, at most 50 % shorter")
    func jitterIsSeeded() {
        let a = HealthJitter.unit(seed: 7, networkID: "elo", opening: 0)
        #expect(a == HealthJitter.unit(seed: 7, networkID: "elo", opening: 0))
        #expect(a != HealthJitter.unit(seed: 7, networkID: "nitx", opening: 0))
        #expect((0..<1).contains(a))
        let backoff = NetworkHealth.backoff(failedProbes: 0, settings: settings, jitter: a)
        #expect(backoff <= .seconds(30) && backoff >= .seconds(15))
        #expect(NetworkHealth.backoff(failedProbes: 0, settings: settings, jitter: 0.5) == .milliseconds(22_500))
    }

    @Test("the monitor's fast path is exact: whenever it skips a verdict, recording it would have changed nothing")
    func fastPathSkipsOnlyVerdictsThatChangeNothing() {
        // Seeded walks over every phase: each step admits or records a random signal; whenever
        // `isUnchanged` says so, the full `record` must return nil and leave the state equal.
        var counter: UInt64 = 24
        func nextRandom() -> UInt64 {
            counter &+= 0x9E37_79B9_7F4A_7C15
            return AuctionIDGenerator.mix(counter) // SplitMix64's finaliser
        }
        var skipped = 0
        for walk in 0..<200 {
            var health = NetworkHealth()
            var now = t0
            let window = [1, 3, 5, 10, 64][walk % 5]
            let walkSettings = NetworkHealthSettings(failuresToOpen: min(3, window), window: window, backoff: .seconds(1), maxBackoff: .seconds(4), probes: 1)
            for _ in 0..<300 {
                now = now + .milliseconds(Int(nextRandom() % 700))
                let roll = nextRandom() % 10
                let signal: HealthSignal? = roll < 7 ? .success : roll < 9 ? .failure : nil
                if nextRandom() % 3 == 0 { _ = health.admit(at: now, settings: walkSettings) }
                let probe = health.phase != .closed && nextRandom() % 2 == 0
                if health.isUnchanged(byClosedSignal: signal, window: walkSettings.window) {
                    skipped += 1
                    var copy = health
                    #expect(copy.record(signal, probe: probe, at: now, settings: walkSettings, jitter: 0.5) == nil)
                    #expect(copy == health)
                }
                _ = health.record(signal, probe: probe, at: now, settings: walkSettings, jitter: 0.5)
            }
        }
        #expect(skipped > 10_000) // the walks do reach the steady state the fast path serves
        // A success into a window that is not yet full, or holds a failure, is not skipped.
        var filling = NetworkHealth()
        _ = filling.record(.success, probe: false, at: t0, settings: settings, jitter: 0)
        #expect(!filling.isUnchanged(byClosedSignal: .success, window: settings.window))
        #expect(filling.isUnchanged(byClosedSignal: nil, window: settings.window))
        #expect(!filling.isUnchanged(byClosedSignal: .failure, window: settings.window))
    }
}


import Testing
@testable import Mediation
import MediationVirtualTime

@Suite("Manual clock: virtual time that knows when the work is done")
struct ManualClockTests {
    @Test func wakesSleepersInDeadlineOrderAtTheirOwnInstants() async {
        let clock = ManualClock()
        let woken = Locked<[(String, MediationInstant)]>([])
        let late = clock.startTask {
            try? await clock.sleep(until: .origin + .milliseconds(300))
            woken.withLock { $0.append(("late", clock.now)) }
        }
        let early = clock.startTask {
            try? await clock.sleep(until: .origin + .milliseconds(100))
            woken.withLock { $0.append(("early", clock.now)) }
        }
        #expect(await clock.settle { clock.sleeperCount == 2 })
        await clock.advance(by: .seconds(1))
        _ = await (late.value, early.value)
        let order = woken.withLock { $0 }
        #expect(order.map(\.0) == ["early", "late"])
        #expect(order.map(\.1) == [.origin + .milliseconds(100), .origin + .milliseconds(300)])
        #expect(clock.now == .origin + .seconds(1))
    }

    @Test func cancellationEndsASleepPromptly() async {
        let clock = ManualClock()
        let sleeper = clock.startTask { () -> Bool in
            do {
                try await clock.sleep(until: .origin + .seconds(60))
                return false
            } catch {
                return error is CancellationError
            }
        }
        #expect(await clock.settle { clock.sleeperCount == 1 })
        sleeper.cancel()
        #expect(await sleeper.value)
        #expect(clock.sleeperCount == 0)
    }

    @Test func aPastDeadlineReturnsAtOnce() async throws {
        let clock = ManualClock(start: .origin + .seconds(5))
        try await clock.sleep(until: .origin + .seconds(1))
        #expect(clock.now == .origin + .seconds(5))
    }

    @Test func instantsPrintAsSecondsWithMilliseconds() {
        #expect((MediationInstant.origin + .milliseconds(30_100)).description == "30.100s")
        #expect((MediationInstant.origin + .milliseconds(5)).description == "0.005s")
    }

    /// The executor's empty queue is the proof that the work is done: a chain of tasks, actor
    /// hops and yields, however long, has run to the end when `runUntilIdle()` returns. No
    /// quiet period, no give-up.
    @Test func runUntilIdleWaitsForEveryTaskItSetsOff() async {
        let clock = ManualClock()
        let counter = Counter()
        let depth = 200
        @Sendable func chain(_ remaining: Int) async {
            for _ in 0..<5 { await Task.yield() }
            await counter.increment()
            if remaining > 0 { clock.startTask { await chain(remaining - 1) } }
        }
        clock.startTask { await chain(depth - 1) }
        await clock.runUntilIdle()
        #expect(await counter.value == depth)
    }

    /// Sleepers due at one instant wake in the order their sleeps began, and all the work the
    /// first sets off runs before the second wakes.
    @Test func sameInstantSleepersWakeOneAtATimeInOrder() async {
        let clock = ManualClock()
        let log = Locked<[String]>([])
        for name in ["a", "b", "c"] {
            clock.startTask {
                try? await clock.sleep(until: .origin + .milliseconds(100))
                log.withLock { $0.append("\(name) woke") }
                await clock.startTask {
                    for _ in 0..<10 { await Task.yield() }
                    log.withLock { $0.append("\(name) done") }
                }.value
            }
        }
        await clock.advance(to: .origin + .milliseconds(100))
        #expect(log.withLock { $0 } == ["a woke", "a done", "b woke", "b done", "c woke", "c done"])
    }

    /// The same racing tasks give the same interleaving every run.
    @Test func racingTasksInterleaveTheSameWayEveryRun() async {
        var first: [String]?
        for _ in 0..<50 {
            let clock = ManualClock()
            let log = Locked<[String]>([])
            await clock.perform {
                for worker in 0..<4 {
                    clock.startTask {
                        for step in 0..<20 {
                            log.withLock { $0.append("\(worker).\(step)") }
                            if step % 3 == worker % 3 { await Task.yield() }
                            if step == 10 { try? await clock.sleep(until: .origin + .milliseconds(Int64(worker) * 7)) }
                        }
                    }
                }
                await clock.advance(to: .origin + .seconds(1))
            }
            let run = log.withLock { $0 }
            #expect(run.count == 80)
            if let first {
                #expect(run == first)
            } else {
                first = run
            }
        }
    }

    /// `run(_:)` moves time until the operation finishes, and says so when it never can.
    @Test func runMovesTimeUntilTheOperationFinishesOrStalls() async {
        let clock = ManualClock()
        let finished = await clock.run { () -> MediationInstant in
            try? await clock.sleep(until: .origin + .seconds(2))
            try? await clock.sleep(until: .origin + .seconds(5))
            return clock.now
        }
        #expect(finished == .origin + .seconds(5))

        let stalled = await clock.run { () -> Bool in
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in } // never resumed
            return true
        }
        #expect(stalled == nil)
    }

    /// `settle(until:)` does not poll: what does not hold once the work is done is reported at once.
    @Test func settleReportsAConditionThatDoesNotHold() async {
        let clock = ManualClock()
        clock.startTask { try? await clock.sleep(until: .origin + .seconds(1)) }
        #expect(await clock.settle { clock.sleeperCount == 1 })
        #expect(await clock.settle { clock.sleeperCount == 2 } == false)
    }
}

/// A counter behind an actor (its jobs run on the clock's executor too).
private actor Counter {
    private(set) var value = 0
    func increment() { value += 1 }
}

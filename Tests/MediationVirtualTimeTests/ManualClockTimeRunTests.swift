import Testing
@testable import Mediation
import MediationVirtualTime

/// The manual clock's time run, where the executor's drain loop wakes the sleepers itself: the
/// order of sleepers and end-of-instant work, cancellation during a run, sleeps from tasks off
/// the clock, and runs with nothing to do.
@Suite("Manual clock time runs")
struct ManualClockTimeRunTests {
    /// A scenario of sleepers at shared and distinct instants, each leaving end-of-instant work
    /// and a child task, recorded as `label@milliseconds` lines; `advance` moves time to 1 s.
    private static func scenario(_ advance: @escaping @Sendable (ManualClock) async -> Void) async -> [String] {
        let clock = ManualClock()
        let log = Locked<[String]>([])
        @Sendable func note(_ line: String) {
            let now = clock.now.milliseconds
            log.withLock { $0.append("\(line)@\(Int(now))") }
        }
        let instants: [Int64] = [100, 30, 100, 250, 30, 100, 999, 1000, 250]
        for (index, instant) in instants.enumerated() {
            clock.startTask {
                try? await clock.sleep(until: .origin + .milliseconds(instant))
                note("wake\(index)")
                clock.atEndOfInstant { note("end\(index)") }
                await clock.startTask { note("child\(index)") }.value
                if index % 3 == 0 {
                    // A second sleep, begun while time runs, to an instant some sleeper shares.
                    try? await clock.sleep(until: .origin + .milliseconds(instant + 150))
                    note("again\(index)")
                }
            }
            // The sleeps begin in this order.
            await clock.runUntilIdle()
        }
        await advance(clock)
        note("done")
        return log.withLock { $0 }
    }

    @Test("Sleepers of one instant wake in the order their sleeps began, each one's jobs first, then the instant's end-of-instant work, before any later instant")
    func orderWithinAndAcrossInstants() async {
        let log = await Self.scenario { await $0.advance(to: .origin + .seconds(1)) }
        // The sleeps begun while time ran (index 0, 3, 6) wake at their own instants, in order.
        func position(_ line: String) -> Int? { log.firstIndex(of: line) }
        let waking = log.filter { $0.hasPrefix("wake") || $0.hasPrefix("again") }
        let instants = waking.compactMap { $0.split(separator: "@").last.flatMap { Int($0) } }
        #expect(instants == instants.sorted())
        #expect(log.last == "done@1000")
        // Within an instant: wakes in the order the sleeps began, each child right after its
        // wake, every end after the last wake of the instant and before the next instant.
        var byInstant: [Int: [String]] = [:]
        for line in log.dropLast() {
            guard let at = line.split(separator: "@").last.flatMap({ Int($0) }) else { continue }
            byInstant[at, default: []].append(String(line.split(separator: "@")[0]))
        }
        #expect(byInstant[30] == ["wake1", "child1", "wake4", "child4", "end1", "end4"])
        #expect(byInstant[100] == ["wake0", "child0", "wake2", "child2", "wake5", "child5", "end0", "end2", "end5"])
        // The sleep begun at 100 ms wakes after the two begun before it.
        #expect(byInstant[250] == ["wake3", "child3", "wake8", "child8", "again0", "end3", "end8"])
        #expect(byInstant[400] == ["again3"])
        #expect(position("end5@100").map { $0 < (position("wake3@250") ?? 0) } == true)
        #expect(byInstant[999] == ["wake6", "child6", "end6"])
        #expect(byInstant[1000] == ["wake7", "child7", "end7"])
    }

    @Test("Moving time in small steps gives the same run as one big step")
    func stepsMatchOneAdvance() async {
        let once = await Self.scenario { await $0.advance(to: .origin + .seconds(1)) }
        let steps = await Self.scenario { clock in
            for _ in 0..<200 { await clock.advance(by: .milliseconds(5)) }
        }
        let odd = await Self.scenario { clock in
            for _ in 0..<142 { await clock.advance(by: .milliseconds(7)) }
            await clock.advance(to: .origin + .seconds(1))
        }
        let onClock = await Self.scenario { clock in
            await clock.perform {
                for _ in 0..<40 { await clock.advance(by: .milliseconds(25)) }
            }
        }
        #expect(steps == once)
        #expect(odd == once)
        #expect(onClock == once)
    }

    @Test("Cancelling a sleeping task while time runs throws CancellationError once and never resumes it twice")
    func cancellationDuringATimeRun() async {
        let clock = ManualClock()
        let results = Locked<[String]>([])
        let victims = Locked<[Task<Void, Never>]>([])
        // Victim 0 sleeps to 200 ms, victim 1 to 100 ms (the canceller's own instant, its sleep
        // begun after the canceller's), victim 2 to 100 ms (begun before the canceller's: it
        // has woken by then).
        for (index, instant) in [(0, 200), (2, 100)] {
            let task = clock.startTask {
                do {
                    try await clock.sleep(until: .origin + .milliseconds(Int64(instant)))
                    results.withLock { $0.append("woke\(index)@\(Int(clock.now.milliseconds))") }
                } catch is CancellationError {
                    results.withLock { $0.append("cancelled\(index)@\(Int(clock.now.milliseconds))") }
                } catch {
                    results.withLock { $0.append("other\(index)") }
                }
            }
            victims.withLock { $0.append(task) }
            await clock.runUntilIdle()
        }
        clock.startTask {
            try? await clock.sleep(until: .origin + .milliseconds(100))
            for victim in victims.withLock({ $0 }) { victim.cancel() }
        }
        await clock.runUntilIdle()
        let late = clock.startTask {
            do {
                try await clock.sleep(until: .origin + .milliseconds(100))
                results.withLock { $0.append("woke1@\(Int(clock.now.milliseconds))") }
            } catch {
                results.withLock { $0.append("cancelled1@\(Int(clock.now.milliseconds))") }
            }
        }
        victims.withLock { $0.append(late) }
        await clock.runUntilIdle()
        #expect(clock.sleeperCount == 4)
        await clock.advance(to: .origin + .seconds(1))
        for victim in victims.withLock({ $0 }) { await victim.value }
        #expect(results.withLock { $0 }.sorted() == ["cancelled0@100", "cancelled1@100", "woke2@100"])
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == .origin + .seconds(1))
        // The clock goes on: a new sleep of a cancelled-then-finished clock's task works.
        let next = clock.startTask { () -> Bool in (try? await clock.sleep(until: .origin + .seconds(2))) != nil }
        await clock.advance(by: .seconds(1))
        #expect(await next.value)
    }

    @Test("A task not started on the clock sleeps and wakes on it")
    func sleepFromATaskOffTheClock() async throws {
        let clock = ManualClock()
        let offClock = Task { () -> Bool in
            do {
                try await clock.sleep(until: .origin + .milliseconds(100))
                return true
            } catch {
                return false
            }
        }
        // Wait (without the wall clock) for its sleep to begin.
        while clock.sleeperCount == 0 { await Task.yield() }
        #expect(clock.nextDeadline == .origin + .milliseconds(100))
        await clock.advance(to: .origin + .milliseconds(50))
        #expect(clock.sleeperCount == 1)
        await clock.advance(to: .origin + .milliseconds(100))
        #expect(await offClock.value)
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == .origin + .milliseconds(100))
    }

    @Test("Advancing with nothing to do moves the clock (never back) and runs the instant's work")
    func advanceWithNothingToDo() async {
        let clock = ManualClock()
        await clock.advance(to: .origin + .seconds(3))
        #expect(clock.now == .origin + .seconds(3))
        await clock.advance(to: .origin + .seconds(1))
        #expect(clock.now == .origin + .seconds(3))
        await clock.advance(by: .zero)
        await clock.advance(by: .seconds(-1))
        #expect(clock.now == .origin + .seconds(3))
        #expect(clock.sleeperCount == 0)
        // End-of-instant work asked for outside any time run still runs, at the instant.
        let ran = Locked<[Double]>([])
        clock.atEndOfInstant { ran.withLock { $0.append(clock.now.milliseconds) } }
        await clock.advance(by: .seconds(1))
        #expect(ran.withLock { $0 } == [3000])
        #expect(clock.now == .origin + .seconds(4))
        #expect(clock.endOfInstantCount == 0)
    }

    @Test("run(_:) reports a stall when nothing left on the clock can wake the operation")
    func runReportsAStall() async {
        let clock = ManualClock()
        let other = ManualClock()
        // A sleeper on the clock that does not help: run moves past it, then reports the stall.
        clock.startTask { try? await clock.sleep(until: .origin + .seconds(5)) }
        let stalled = await clock.run { () -> Bool in
            // Waits on another clock that nobody moves.
            await other.sleepIgnoringCancellation(until: .origin + .seconds(1))
            return true
        }
        #expect(stalled == nil)
        #expect(clock.now == .origin + .seconds(5))
        // Free the waiting task.
        await other.advance(by: .seconds(1))
        await clock.runUntilIdle()
        let finished = await clock.run { () -> Int in
            try? await clock.sleep(until: clock.now + .seconds(1))
            return 7
        }
        #expect(finished == 7)
        #expect(clock.now == .origin + .seconds(6))
    }
}

import Testing
@testable import Mediation

@Suite("Manual clock")
struct ManualClockTests {
    @Test func wakesSleepersInDeadlineOrderAtTheirOwnInstants() async {
        let clock = ManualClock()
        let woken = Locked<[(String, MediationInstant)]>([])
        let late = Task {
            try? await clock.sleep(until: .origin + .milliseconds(300))
            woken.withLock { $0.append(("late", clock.now)) }
        }
        let early = Task {
            try? await clock.sleep(until: .origin + .milliseconds(100))
            woken.withLock { $0.append(("early", clock.now)) }
        }
        await clock.settle()
        await clock.advance(by: .seconds(1))
        _ = await (late.value, early.value)
        let order = woken.withLock { $0 }
        #expect(order.map(\.0) == ["early", "late"])
        #expect(order.map(\.1) == [.origin + .milliseconds(100), .origin + .milliseconds(300)])
        #expect(clock.now == .origin + .seconds(1))
    }

    @Test func cancellationEndsASleepPromptly() async {
        let clock = ManualClock()
        let sleeper = Task { () -> Bool in
            do {
                try await clock.sleep(until: .origin + .seconds(60))
                return false
            } catch {
                return error is CancellationError
            }
        }
        await clock.settle()
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
}

@testable import Mediation
import MediationTestKit
import Testing

/// The one "first of" gate: the first value resumes the waiter exactly once, later ones are
/// ignored, a value before the wait is kept, and a cancellation is one more racer.
@Suite("FirstOf gate")
struct FirstOfTests {
    @Test func theFirstValueWinsAndLaterOnesAreIgnored() async {
        let gate = FirstOf<Int>()
        let waiter = Task { await gate.value(ifCancelled: -1) }
        #expect(gate.resume(1))
        #expect(!gate.resume(2))
        #expect(!gate.resume(3))
        #expect(await waiter.value == 1)
        #expect(gate.isResolved)
    }

    @Test func aValueBeforeTheWaitIsKept() async {
        let gate = FirstOf<String>()
        #expect(!gate.isResolved)
        #expect(gate.resume("early"))
        #expect(!gate.resume("late"))
        #expect(await gate.value(ifCancelled: "cancelled") == "early")
    }

    @Test func cancellingTheWaiterOffersItsValue() async {
        let gate = FirstOf<String>()
        let waiter = Task { await gate.value(ifCancelled: "cancelled") }
        waiter.cancel()
        #expect(await waiter.value == "cancelled")
        #expect(!gate.resume("answer"), "the cancellation came first")
    }

    @Test func aCancellationAfterTheValueChangesNothing() async {
        let gate = FirstOf<String>()
        let waiter = Task { await gate.value(ifCancelled: "cancelled") }
        gate.resume("answer")
        waiter.cancel()
        #expect(await waiter.value == "answer")
    }

    /// Many racers on many threads: exactly one wins, and the waiter gets its value.
    @Test func exactlyOneOfManyRacersWins() async {
        for _ in 0..<200 {
            let gate = FirstOf<Int>()
            let waiter = Task { await gate.value(ifCancelled: -1) }
            let wins = await withTaskGroup(of: Bool.self) { group in
                for racer in 0..<8 { group.addTask { gate.resume(racer) } }
                var wins = 0
                for await won in group where won { wins += 1 }
                return wins
            }
            #expect(wins == 1)
            let value = await waiter.value
            #expect((0..<8).contains(value))
        }
    }
}

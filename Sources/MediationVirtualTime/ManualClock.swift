import Mediation

/// Virtual time: a clock that moves only when told to, and that knows, without looking at the
/// wall clock, when all the work due at the current instant is done.
///
/// Tests of deadlines, refresh and expiry run on it exactly and instantly, and so do the
/// virtual-time runs of the project (`mediate --watch --fast`, the example host, the
/// benchmark's placements run).
///
/// How it knows the work is done: every task the engine and its adapters start goes through
/// ``startTask(_:)``, which runs it on this clock's serial executor (as do the actors it calls
/// and the tasks it resumes). When that executor has no job left, every such task is suspended:
/// sleeping on this clock, waiting for something no job will do, or finished.
/// ``runUntilIdle()`` waits for exactly that; ``advance(to:)`` alternates it with waking the
/// earliest sleeper, in deadline order (ties in the order the sleeps began), setting ``now`` to
/// each sleeper's deadline before waking it. So every event is stamped with the instant it was
/// due, and the same inputs give the same run, line for line.
///
/// Rules for code that runs on it:
/// - Start tasks with ``startTask(_:)``, not `Task { }`: a task on the global executor is
///   invisible to ``runUntilIdle()``.
/// - Drive the engine from a task on the clock (``perform(_:)``) when the order of the work
///   started within one instant matters: what a task elsewhere starts runs beside it.
/// - Do not wait on anything outside the process (real HTTP): virtual time cannot know when it
///   answers.
/// - Drive time from one task at a time.
///
/// On Apple platforms before macOS 15 / iOS 18 (no task executors) tasks run on the global
/// executor and ``runUntilIdle()`` can only yield; runs there are not deterministic.
public final class ManualClock: MediationClock {
    private struct Sleeper {
        var continuation: UnsafeContinuation<Void, any Error>
        var deadline: MediationInstant
    }

    private struct State {
        var now: MediationInstant
        var sleepers: [UInt64: Sleeper] = [:]
        /// Sleepers by deadline; entries whose sleeper is gone are skipped when popped.
        var queue = DeadlineQueue<UInt64>()
        var cancelledBeforeRegistration: Set<UInt64> = []
        var nextID: UInt64 = 0
        var sleepsBegun = 0

        mutating func pruneQueue() {
            while let id = queue.firstPayload, sleepers[id] == nil { _ = queue.pop() }
        }
    }

    private let state: Locked<State>
    /// The serial executor (a `SerialJobExecutor` where task executors exist).
    private let executor: (any Sendable)?

    /// Creates a clock standing at `start`.
    /// - Parameter start: the initial instant (default the origin).
    public init(start: MediationInstant = .origin) {
        state = Locked(State(now: start))
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            executor = SerialJobExecutor()
        } else {
            executor = nil
        }
    }

    // MARK: - Reading

    /// The current virtual instant.
    public var now: MediationInstant {
        state.withLock { $0.now }
    }

    /// The number of tasks sleeping on this clock.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// How many sleeps that had to wait have begun on this clock so far.
    public var sleepCount: Int {
        state.withLock { $0.sleepsBegun }
    }

    /// The earliest instant a sleeper waits for, if any.
    public var nextDeadline: MediationInstant? {
        state.withLock { state in
            state.pruneQueue()
            return state.queue.firstKey
        }
    }

    // MARK: - Tasks

    /// Starts `operation` as a task on this clock's serial executor, so that
    /// ``runUntilIdle()`` and ``advance(to:)`` wait for it.
    /// - Parameter operation: the work.
    /// - Returns: the task.
    @discardableResult
    public func startTask<Success: Sendable>(_ operation: sending @escaping @isolated(any) () async -> Success) -> Task<Success, Never> {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), let executor = executor as? SerialJobExecutor {
            return Task(executorPreference: executor, operation: operation)
        }
        return Task(operation: operation)
    }

    /// Runs `body` as a task on this clock and returns what it returns. Code that drives the
    /// engine from inside such a task (starting tasks, calling placements, moving time)
    /// interleaves with the engine's tasks the same way every run; code on another executor
    /// runs beside them, so the order of the work it starts within one instant may vary.
    /// - Parameter body: the driving code.
    /// - Returns: its result.
    public func perform<Success: Sendable>(_ body: @escaping @Sendable () async -> Success) async -> Success {
        await startTask(body).value
    }

    /// ``perform(_:)`` for a body that throws.
    /// - Parameter body: the driving code.
    /// - Returns: its result.
    /// - Throws: what `body` throws.
    public func perform<Success: Sendable>(_ body: @escaping @Sendable () async throws -> Success) async throws -> Success {
        try await startTask { () -> Result<Success, any Error> in
            do {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }.value.get()
    }

    /// Returns once every task on this clock is suspended (sleeping on the clock, waiting for
    /// something no task on the clock will do, or finished): all the work due at the current
    /// instant is done. Time does not move.
    ///
    /// The end of the instant is part of that work: the work asked for with
    /// ``atEndOfInstant(_:)`` runs once every task is suspended, one piece at a time.
    ///
    /// That is a guarantee only where task executors exist (macOS 15, iOS 18 and later, and
    /// Linux), where the clock's ``SerialJobExecutor`` knows when its queue is empty. Before
    /// them the tasks run on the global executor, which cannot say so: this then yields 1000
    /// times and returns, a best effort that guarantees nothing (work still running after the
    /// yields is not waited for). Tests and simulations that need exact runs need an OS with
    /// task executors.
    public func runUntilIdle() async {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), let executor = executor as? SerialJobExecutor {
            await executor.whenIdle()
            return
        }
        for _ in 0..<1000 { await Task.yield() }
    }

    /// Queues `work` for the end of the current instant: it runs on this clock's executor once
    /// every task on this clock is suspended and every sleeper due now has been woken (so
    /// ``runUntilIdle()`` and ``advance(to:)`` wait for it), before time moves on. An auction
    /// takes its decisions there, so answers due at one instant count alike in whatever order
    /// they ran (engine rule R6a). Without task executors (Apple platforms before macOS 15 /
    /// iOS 18) it runs at once.
    /// - Parameter work: the decision to take at the end of the instant.
    public func atEndOfInstant(_ work: @escaping @Sendable () -> Void) {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), let executor = executor as? SerialJobExecutor {
            executor.atEndOfInstant(work)
            return
        }
        work()
    }

    /// `true` where ``atEndOfInstant(_:)`` queues its work for the end of the instant (with task
    /// executors), `false` where it runs it at once.
    public var defersEndOfInstant: Bool {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), executor is SerialJobExecutor {
            return true
        }
        return false
    }

    /// How many pieces of work wait for the end of the current instant.
    public var endOfInstantCount: Int {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), let executor = executor as? SerialJobExecutor {
            return executor.endOfInstantCount
        }
        return 0
    }

    /// Wakes `sleeper`, then every other sleeper due at the same instant, each followed by the
    /// jobs it sets off, holding the end-of-instant work back until all of them have run; then
    /// runs that work (``runUntilIdle()``).
    /// Without task executors: wakes `sleeper`, then every other sleeper due at its instant,
    /// yielding between them.
    private func wakeInstant(startingWith sleeper: Sleeper) async {
        sleeper.continuation.resume()
        await runUntilIdle()
        while let next = popSleeper(dueBy: now) {
            next.continuation.resume()
            await runUntilIdle()
        }
    }

    /// Wakes one sleeper, as a time run of the executor asks (``SerialJobExecutor/runTime(_:)``):
    /// one due at the current instant, or the earliest due by `target` (moving ``now`` to its
    /// deadline). Returns whether it woke one.
    private func wake(_ wake: SerialJobExecutor.Wake, target: MediationInstant) -> Bool {
        let sleeper: Sleeper? = switch wake {
        case .dueNow: popSleeper(dueBy: nil)
        case .dueByTarget: popSleeper(dueBy: target)
        }
        guard let sleeper else { return false }
        sleeper.continuation.resume()
        return true
    }

    /// ``runUntilIdle()``: runs the work due now; time does not move.
    public func settle() async {
        await runUntilIdle()
    }

    /// Runs the work due now (``runUntilIdle()``) and tells whether `condition` then holds, for
    /// a test to assert: `#expect(await clock.settle { adapter.requestCount == 3 })`. Nothing
    /// is waited for beyond that work, so a condition that does not hold then never will
    /// without a move of time.
    /// - Parameter condition: what the test expects once the work is done.
    /// - Returns: whether it holds.
    public func settle(until condition: () -> Bool) async -> Bool {
        await runUntilIdle()
        return condition()
    }

    // MARK: - Sleeping

    /// Suspends until the clock is advanced to `deadline`; returns at once when it has passed.
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: MediationInstant) async throws {
        let id = newSleepID()
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledBeforeRegistration.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    register(id, continuation, until: deadline, in: &state)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                state.cancelledBeforeRegistration.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        // A cancellation that raced with the wake-up leaves a marker: drop it. Only a cancelled
        // task's handler leaves one.
        if Task.isCancelled {
            state.withLock { _ = $0.cancelledBeforeRegistration.remove(id) }
        }
    }

    /// Suspends until the clock is advanced to `deadline`, whatever happens to the calling task:
    /// a test double for a network that ignores cancellation.
    public func sleepIgnoringCancellation(until deadline: MediationInstant) async {
        let id = newSleepID()
        try? await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
            let due: Bool = state.withLock { state in
                if deadline <= state.now { return true }
                register(id, continuation, until: deadline, in: &state)
                return false
            }
            if due { continuation.resume() }
        }
    }

    private func newSleepID() -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
    }

    private func register(_ id: UInt64, _ continuation: UnsafeContinuation<Void, any Error>, until deadline: MediationInstant, in state: inout State) {
        state.sleepers[id] = Sleeper(continuation: continuation, deadline: deadline)
        state.queue.push(deadline, id)
        state.sleepsBegun += 1
    }

    // MARK: - Moving time

    /// Moves time forward by `duration` (see ``advance(to:)``).
    /// - Parameter duration: how far to move; a negative duration only runs the current instant.
    public func advance(by duration: Duration) async {
        await advance(to: now + duration)
    }

    /// Runs the work due now, then wakes every sleeper due by `target` one at a time, earliest
    /// first (ties in the order their sleeps began): ``now`` becomes the sleeper's deadline, the
    /// sleeper wakes, and every job it sets off runs before the next one. Once every sleeper
    /// due at that instant has run, the instant's end-of-instant work runs
    /// (``atEndOfInstant(_:)``), then time moves on. The clock then stands at `target` (or
    /// where it was, if later).
    /// - Parameter target: the instant to stop at.
    public func advance(to target: MediationInstant) async {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), let executor = executor as? SerialJobExecutor {
            // The executor's drain loop wakes the sleepers itself, in the same order.
            await executor.runTime { [self] in wake($0, target: target) }
        } else {
            await runUntilIdle()
            while let sleeper = popSleeper(dueBy: target) {
                await wakeInstant(startingWith: sleeper)
            }
        }
        state.withLock { state in
            if target > state.now { state.now = target }
        }
        await runUntilIdle()
    }

    /// ``advance(to:)``: runs virtual time up to `limit`.
    /// - Parameter limit: the latest instant to run to; the clock ends there.
    public func run(until limit: MediationInstant) async {
        await advance(to: limit)
    }

    /// Runs `operation` on this clock and moves time, one wake-up at a time, until it finishes.
    /// - Parameter operation: the work, started with ``startTask(_:)``.
    /// - Returns: its result, or `nil` when it can never finish: it is still waiting with no
    ///   sleeper left on the clock to wake it (a stall, which a test should report).
    public func run<Success: Sendable>(_ operation: @escaping @Sendable () async -> Success) async -> Success? {
        let result = Locked<Success?>(nil)
        _ = startTask {
            let value = await operation()
            result.withLock { $0 = value }
        }
        while true {
            await runUntilIdle()
            if let value = result.withLock({ $0 }) { return value }
            guard let next = nextDeadline else { return nil }
            await advance(to: next)
        }
    }

    /// Takes the earliest sleeper due by `target` (`nil`: the current instant), moving ``now``
    /// to its deadline.
    private func popSleeper(dueBy target: MediationInstant?) -> Sleeper? {
        state.withLock { state in
            state.pruneQueue()
            guard let deadline = state.queue.firstKey, deadline <= (target ?? state.now), let (_, id) = state.queue.pop(),
                  let sleeper = state.sleepers.removeValue(forKey: id)
            else { return nil }
            if deadline > state.now { state.now = deadline }
            return sleeper
        }
    }
}

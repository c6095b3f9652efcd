import Dispatch
import Mediation

/// The executor of a ``ManualClock``: runs every job of the tasks that prefer it one at a time,
/// in the order they were enqueued, and knows when it has nothing left to run.
///
/// Tasks started with ``ManualClock/startTask(_:)`` prefer this executor, and so do the default
/// actors they call (a `Placement`), their child tasks, and the continuations they resume. So
/// when its queue is empty, every such task is suspended: on the clock, on a continuation no
/// job will resume, or finished. That is a fact, not a guess from a quiet period, and it is how
/// ``ManualClock/advance(to:)`` knows that the work due at an instant is done.
///
/// It also runs the clock's end-of-instant work (``ManualClock/atEndOfInstant(_:)``) once its
/// queue is empty, one piece at a time, each followed by every job it queues.
///
/// While the clock moves time (``runTime(_:)``), the drain loop itself wakes the clock's
/// sleepers whenever its queue is empty, in this order: a sleeper due at the current instant
/// (every job the last one set off has run); else the instant's end-of-instant work, one piece
/// at a time; else the next sleeper due by the clock's target, which moves the clock to its
/// deadline. Time thus runs without a round trip through the task that moves it for every
/// sleeper, and in exactly the order that stepping one sleeper at a time would give.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class SerialJobExecutor: TaskExecutor {
    /// Which sleeper a ``Waker`` should wake.
    enum Wake {
        /// One due at the clock's current instant.
        case dueNow
        /// The earliest due by the target of the run (moving the clock to its deadline).
        case dueByTarget
    }

    /// Wakes one sleeper of the clock, if one is due as asked; returns whether it woke one.
    typealias Waker = @Sendable (Wake) -> Bool

    private enum Step {
        case run(UnownedJob)
        case moveTime(Waker, generation: UInt64)
        case endOfInstant(@Sendable () -> Void)
        case resume(CheckedContinuation<Void, Never>)
        case stop
    }

    private struct State {
        var jobs: [UnownedJob] = []
        var head = 0
        /// A drain loop is scheduled or running.
        var draining = false
        /// Tasks waiting for the queue to be empty, first come first served.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var jobsRun: UInt64 = 0
        /// End-of-instant work, in the order it was asked for.
        var endOfInstant: [@Sendable () -> Void] = []
        /// The waker of the time run in progress (``runTime(_:)``), if any.
        var waker: Waker?
        /// Tells time runs apart, so that one ending clears only its own waker.
        var wakerGeneration: UInt64 = 0

        mutating func popJob() -> UnownedJob? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            return job
        }

        /// Marks a drain loop as needed; returns whether one must be started.
        mutating func startDraining() -> Bool {
            guard !draining else { return false }
            draining = true
            return true
        }
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "MediationTestKit.ManualClock")

    /// Queues `job`; the drain loop runs it after every job queued before it.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let startDrain = state.withLock { state -> Bool in
            state.jobs.append(job)
            return state.startDraining()
        }
        if startDrain { queue.async { self.drain() } }
    }

    /// Queues end-of-instant work: it runs once no job is left and no sleeper due at the
    /// current instant is left to wake.
    func atEndOfInstant(_ work: @escaping @Sendable () -> Void) {
        let startDrain = state.withLock { state -> Bool in
            state.endOfInstant.append(work)
            return state.startDraining()
        }
        if startDrain { queue.async { self.drain() } }
    }

    /// How many pieces of end-of-instant work are waiting.
    var endOfInstantCount: Int { state.withLock { $0.endOfInstant.count } }

    /// The number of jobs run so far.
    var jobsRun: UInt64 { state.withLock { $0.jobsRun } }

    /// Suspends until the executor has no job left to run. Called from a task of this executor,
    /// it returns once every other job queued (and every job those queue) has run.
    func whenIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.draining else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Moves time with `waker` (see the type's description) until no job, no end-of-instant
    /// work and no sleeper it may wake is left; returns then.
    /// - Parameter waker: wakes the clock's next sleeper as asked.
    func runTime(_ waker: @escaping Waker) async {
        let startDrain = state.withLock { state -> Bool in
            state.wakerGeneration &+= 1
            state.waker = waker
            return state.startDraining()
        }
        if startDrain { queue.async { self.drain() } }
        await whenIdle()
    }

    /// Runs jobs until none is left, moving time while a time run is in progress; then wakes
    /// one idle waiter at a time (a waiter on this executor queues its own job, which runs
    /// before the next waiter is told).
    private func drain() {
        while true {
            let step = state.withLock { state -> Step in
                if let job = state.popJob() {
                    state.jobsRun &+= 1
                    return .run(job)
                }
                if let waker = state.waker { return .moveTime(waker, generation: state.wakerGeneration) }
                if !state.endOfInstant.isEmpty { return .endOfInstant(state.endOfInstant.removeFirst()) }
                if !state.idleWaiters.isEmpty { return .resume(state.idleWaiters.removeFirst()) }
                state.draining = false
                return .stop
            }
            switch step {
            case .run(let job):
                job.runSynchronously(on: asUnownedTaskExecutor())
            case .moveTime(let waker, let generation):
                moveTime(waker, generation: generation)
            case .endOfInstant(let work):
                work()
            case .resume(let waiter):
                waiter.resume()
            case .stop:
                return
            }
        }
    }

    /// One step of a time run, the queue being empty: wakes a sleeper due now, else runs one
    /// piece of end-of-instant work, else wakes the next sleeper due by the target, else ends
    /// the run.
    private func moveTime(_ waker: Waker, generation: UInt64) {
        if waker(.dueNow) { return }
        let work = state.withLock { state -> (@Sendable () -> Void)? in
            state.endOfInstant.isEmpty ? nil : state.endOfInstant.removeFirst()
        }
        if let work {
            work()
            return
        }
        if waker(.dueByTarget) { return }
        state.withLock { state in
            if state.wakerGeneration == generation { state.waker = nil }
        }
    }
}

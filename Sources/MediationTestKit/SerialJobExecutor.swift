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
/// It also runs the clock's end-of-instant work (``ManualClock/atEndOfInstant(_:)``): once its
/// queue is empty, and unless the clock holds it back while it wakes the other sleepers due
/// at the same instant (``hold()``), it runs that work one piece at a time, each followed by
/// every job it queues.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class SerialJobExecutor: TaskExecutor {
    private enum Step {
        case run(UnownedJob)
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
        /// While positive, end-of-instant work waits (the clock is still waking sleepers due
        /// at the current instant); idle waiters are told when the jobs alone are done.
        var holds = 0

        /// Whether end-of-instant work may run now.
        var endOfInstantDue: Bool { holds == 0 && !endOfInstant.isEmpty }

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
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "MediationTestKit.ManualClock")

    /// Queues `job`; the drain loop runs it after every job queued before it.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let startDrain = state.withLock { state -> Bool in
            state.jobs.append(job)
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        if startDrain { queue.async { self.drain() } }
    }

    /// Queues end-of-instant work: it runs once no job is left and no hold is in place.
    func atEndOfInstant(_ work: @escaping @Sendable () -> Void) {
        let startDrain = state.withLock { state -> Bool in
            state.endOfInstant.append(work)
            guard !state.draining, state.holds == 0 else { return false }
            state.draining = true
            return true
        }
        if startDrain { queue.async { self.drain() } }
    }

    /// Holds end-of-instant work back until the matching ``release()``.
    func hold() {
        state.withLock { $0.holds += 1 }
    }

    /// Ends a ``hold()``: end-of-instant work held back runs now (``whenIdle()`` waits for it).
    func release() {
        let startDrain = state.withLock { state -> Bool in
            state.holds -= 1
            guard !state.draining, state.endOfInstantDue else { return false }
            state.draining = true
            return true
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

    /// Runs jobs until none is left, then wakes one idle waiter at a time (a waiter on this
    /// executor queues its own job, which runs before the next waiter is told).
    private func drain() {
        while true {
            let step = state.withLock { state -> Step in
                if let job = state.popJob() {
                    state.jobsRun &+= 1
                    return .run(job)
                }
                if state.endOfInstantDue { return .endOfInstant(state.endOfInstant.removeFirst()) }
                if !state.idleWaiters.isEmpty { return .resume(state.idleWaiters.removeFirst()) }
                state.draining = false
                return .stop
            }
            switch step {
            case .run(let job):
                job.runSynchronously(on: asUnownedTaskExecutor())
            case .endOfInstant(let work):
                work()
            case .resume(let waiter):
                waiter.resume()
            case .stop:
                return
            }
        }
    }
}

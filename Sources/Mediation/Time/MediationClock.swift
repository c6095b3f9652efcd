/// The source of time for the engine: the auction's deadline, per-source limits, refresh and
/// expiry all read and wait on one injected clock, and every task the engine or an adapter
/// starts is started through it.
///
/// Production code uses ``SystemClock``. Tests and virtual-time runs (`mediate --watch --fast`,
/// the example host, the benchmark's placements run) use the test kit's `ManualClock`, which
/// moves only when told to and runs every task started through ``startTask(_:)`` on one serial
/// executor, so it knows, without waiting on the wall clock, when all the work due at the
/// current instant is done.
///
/// Contract for implementers:
/// - ``now`` never goes backwards.
/// - ``sleep(until:)`` returns at or after `deadline`, returns at once when `deadline` has
///   passed, and throws `CancellationError` promptly when the calling task is cancelled.
/// - ``startTask(_:)`` starts an unstructured task; a virtual clock runs it where its time is
///   kept. The default starts a plain `Task`.
public protocol MediationClock: Sendable {
    /// The current instant.
    var now: MediationInstant { get }

    /// Suspends the calling task until `deadline`.
    /// - Parameter deadline: the instant to wake at.
    /// - Throws: `CancellationError` when the task is cancelled before the deadline.
    func sleep(until deadline: MediationInstant) async throws

    /// Starts an unstructured task running `operation`. The engine and adapters start every
    /// task of theirs through this (an auction's sources, its timer, a placement's auctions
    /// and timer, an adapter's background work), never with `Task { }` directly.
    /// - Parameter operation: the work.
    /// - Returns: the task.
    @discardableResult
    func startTask<Success: Sendable>(_ operation: sending @escaping @isolated(any) () async -> Success) -> Task<Success, Never>

    /// Runs `work` once every other piece of work due at the current instant has run: the
    /// "end of the instant", where an auction takes its decisions, so that answers due at the
    /// same instant count alike whatever order they were processed in (engine rule R6a).
    ///
    /// A virtual clock (the test kit's `ManualClock`) runs it when its executor is idle and no
    /// sleeper is due at the current instant. On continuous time (``SystemClock``, the
    /// default) every arrival is an instant of its own, so `work` runs at once, on the
    /// calling thread. `work` must not block.
    /// - Parameter work: the decision to take; it reads ``now`` itself.
    func atEndOfInstant(_ work: @escaping @Sendable () -> Void)

    /// Whether ``atEndOfInstant(_:)`` defers its work (a virtual clock's barrier) rather than
    /// running it at once. When it does not (continuous time, the default `false`), an auction
    /// takes the decision due after an answer in the same step as recording it, without a
    /// second round trip: the outcome is the same, it is only cheaper.
    var defersEndOfInstant: Bool { get }
}

extension MediationClock {
    /// Starts a plain `Task` (on the global concurrent executor).
    @discardableResult
    public func startTask<Success: Sendable>(_ operation: sending @escaping @isolated(any) () async -> Success) -> Task<Success, Never> {
        Task(operation: operation)
    }

    /// Runs `work` at once: on continuous time every arrival is its own instant.
    public func atEndOfInstant(_ work: @escaping @Sendable () -> Void) {
        work()
    }

    /// `false`: ``atEndOfInstant(_:)`` runs its work at once.
    public var defersEndOfInstant: Bool { false }
}

/// The wall clock: a `ContinuousClock` (monotonic; it keeps counting while the system sleeps)
/// whose origin is the moment this clock was created.
@usableFromInline
package struct SystemClock: MediationClock {
    private let origin: ContinuousClock.Instant

    /// Creates a clock whose origin is now.
    @usableFromInline
    package init() {
        origin = ContinuousClock.now
    }

    /// The time since this clock was created.
    public var now: MediationInstant {
        MediationInstant(offset: ContinuousClock.now - origin)
    }

    /// The longest single sleep on the system clock; a later deadline is reached in steps of
    /// at most this, so an absurd deadline (an unbounded network value) never overflows the
    /// system's timer arithmetic.
    static let longestSleep: Duration = .seconds(86_400)

    /// Sleeps on `ContinuousClock` with no tolerance, so deadlines fire as close to exact as
    /// the system allows. A deadline more than a day away is waited for a day at a time, so
    /// no deadline, however far, can trap.
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(until deadline: MediationInstant) async throws {
        let clock = ContinuousClock()
        while true {
            let elapsed = clock.now - origin
            if deadline.offset <= elapsed + SystemClock.longestSleep {
                try await clock.sleep(until: origin + deadline.offset, tolerance: nil)
                return
            }
            try await clock.sleep(until: origin + elapsed + SystemClock.longestSleep, tolerance: nil)
        }
    }
}

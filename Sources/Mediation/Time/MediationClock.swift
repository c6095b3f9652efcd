/// The source of time for the engine: the auction's deadline, per-source timeouts, refresh
/// and expiry all read and wait on one injected clock.
///
/// Production code uses ``SystemClock``; tests and `mediate --fast` use ``ManualClock``, which
/// only moves when told to, so deadlines and refresh run exactly and instantly.
///
/// Contract for implementers:
/// - ``now`` never goes backwards.
/// - ``sleep(until:)`` returns at or after `deadline`, returns at once when `deadline` has
///   passed, and throws `CancellationError` promptly when the calling task is cancelled.
public protocol MediationClock: Sendable {
    /// The current instant.
    var now: MediationInstant { get }

    /// Suspends the calling task until `deadline`.
    /// - Parameter deadline: the instant to wake at.
    /// - Throws: `CancellationError` when the task is cancelled before the deadline.
    func sleep(until deadline: MediationInstant) async throws
}

/// The wall clock: a `ContinuousClock` (monotonic; it keeps counting while the system sleeps)
/// whose origin is the moment this clock was created.
public struct SystemClock: MediationClock {
    private let origin: ContinuousClock.Instant

    /// Creates a clock whose origin is now.
    public init() {
        origin = ContinuousClock.now
    }

    /// The time since this clock was created.
    public var now: MediationInstant {
        MediationInstant(offset: ContinuousClock.now - origin)
    }

    /// Sleeps on `ContinuousClock` with no tolerance, so deadlines fire as close to exact as
    /// the system allows.
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(until deadline: MediationInstant) async throws {
        try await ContinuousClock().sleep(until: origin + deadline.offset, tolerance: nil)
    }
}

import Mediation
import MediationTestKit

/// A transport that counts the requests on the wire, so that a test on `ManualClock` against a
/// real (loopback) server moves virtual time only while no request is in flight: a real
/// exchange takes the real time it takes, however loaded the machine, and a deadline passes
/// only when the test moves time on (``drive(_:waitsForTheWire:realLimit:until:)``).
final class WireWatchingTransport: HTTP.Transport {
    private struct Counts {
        var begun = 0
        var finished = 0
    }

    private let inner: any HTTP.Transport
    private let counts = Locked(Counts())

    init(_ inner: any HTTP.Transport) {
        self.inner = inner
    }

    /// Requests sent and not yet answered (or failed).
    var inFlight: Int { counts.withLock { $0.begun - $0.finished } }

    func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
        counts.withLock { $0.begun += 1 }
        defer { counts.withLock { $0.finished += 1 } }
        return try await inner.send(request)
    }

    /// Drives `clock` until `done()` holds: runs the work due now; then, while a request is on
    /// the wire and `waitsForTheWire`, waits for it in real time; otherwise moves virtual time to
    /// the next sleeper's instant (an auction's deadline, a refresh). Only a run that has not
    /// finished after `realLimit` of real time fails: a real hang (an auction that never ends,
    /// a request never given up), never a slow machine.
    /// - Returns: whether `done()` held before `realLimit`.
    func drive(_ clock: ManualClock, waitsForTheWire: Bool, realLimit: Duration = .seconds(30), until done: () -> Bool) async -> Bool {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < realLimit {
            await clock.runUntilIdle()
            if done() { return true }
            if waitsForTheWire, inFlight > 0 {
                try? await Task.sleep(for: .milliseconds(2))
                continue
            }
            guard let next = clock.nextDeadline else {
                // Nothing sleeps on the clock and nothing is on the wire: a response being
                // handed back, or a hang; look again shortly.
                try? await Task.sleep(for: .milliseconds(2))
                continue
            }
            await clock.advance(to: next)
        }
        return false
    }
}

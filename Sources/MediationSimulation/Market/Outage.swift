import Mediation

/// A stretch of virtual time during which a network answers differently: it hangs (never
/// answers), errors, or is slow. Read from a network's `outages` in the market file
/// (`docs/simulation.md`, "Outages").
///
/// An outage applies to a request by the instant the request is made, measured on the run's
/// virtual time from its start: a request made at `t` with ``start`` ≤ `t` < ``end`` is
/// affected. Only timed runs (``SimulationOptions/rate``) have a timeline from the run's start,
/// so only they accept a market with outages.
public struct Outage: Hashable, Sendable {
    /// What a request to the network does during the outage.
    public enum Kind: Hashable, Sendable {
        /// No answer ever comes (the engine gives it up at its limit).
        case hang
        /// It answers with a server error after its drawn latency.
        case error
        /// It answers as usual, after its drawn latency × `latencyFactor`.
        case slow(latencyFactor: Double)

        /// The word the market file uses: `hang`, `error` or `slow`.
        public var name: String {
            switch self {
            case .hang: "hang"
            case .error: "error"
            case .slow: "slow"
            }
        }
    }

    /// The first instant of the outage, from the run's start.
    public var start: Duration
    /// The first instant after it (exclusive).
    public var end: Duration
    /// What requests do during it.
    public var kind: Kind

    /// Creates an outage over `start ..< end`.
    /// - Parameters:
    ///   - start: its first instant from the run's start.
    ///   - end: the instant it ends (exclusive), after `start`.
    ///   - kind: what requests do during it.
    public init(start: Duration, end: Duration, kind: Kind) {
        self.start = start
        self.end = end
        self.kind = kind
    }

    /// Whether a request made `offset` after the run's start falls in the outage.
    /// - Parameter offset: the request's instant from the run's start.
    public func contains(_ offset: Duration) -> Bool {
        offset >= start && offset < end
    }

    /// `draw` as a request made during this outage answers it: silence for a hang, an error after
    /// the same latency, or the same answer after the latency × the factor (rounded to whole
    /// milliseconds, at most ``SourceDraw/maximumLatencyMilliseconds``). The price draw is kept,
    /// so the other draws of the source are the same as without the outage.
    /// - Parameter draw: the draw without the outage.
    /// - Returns: the draw during the outage.
    public func applied(to draw: SourceDraw) -> SourceDraw {
        var result = draw
        switch kind {
        case .hang:
            result.answer = .never
        case .error:
            if result.answer != .never { result.answer = .error }
        case .slow(let factor):
            result.latencyMilliseconds = SourceDraw.wholeMilliseconds(Double(draw.latencyMilliseconds) * factor)
        }
        return result
    }
}

extension [Outage] {
    /// The outage a request made `offset` after the run's start falls in, if any.
    func active(at offset: Duration) -> Outage? {
        first { $0.contains(offset) }
    }
}

/// A point in time on a ``MediationClock``: the time elapsed since the clock's origin.
///
/// Instants and lengths of time are kept apart (an instant is never a `Double` of
/// milliseconds): subtracting two instants gives a `Duration`, and adding a `Duration`
/// to an instant gives an instant. Instants of different clocks must not be compared.
public struct MediationInstant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The time elapsed since the clock's origin.
    public var offset: Duration

    /// Creates the instant `offset` after the clock's origin.
    /// - Parameter offset: the time since the clock's origin.
    public init(offset: Duration) {
        self.offset = offset
    }

    /// The clock's origin (offset zero).
    public static let origin = MediationInstant(offset: .zero)

    /// Orders instants by their offset.
    public static func < (lhs: MediationInstant, rhs: MediationInstant) -> Bool {
        lhs.offset < rhs.offset
    }

    /// The instant `duration` after `instant`.
    public static func + (instant: MediationInstant, duration: Duration) -> MediationInstant {
        MediationInstant(offset: instant.offset + duration)
    }

    /// The instant `duration` before `instant`.
    public static func - (instant: MediationInstant, duration: Duration) -> MediationInstant {
        MediationInstant(offset: instant.offset - duration)
    }

    /// The time from `rhs` to `lhs` (negative when `lhs` is earlier).
    public static func - (lhs: MediationInstant, rhs: MediationInstant) -> Duration {
        lhs.offset - rhs.offset
    }

    /// The offset in milliseconds, with sub-millisecond precision.
    public var milliseconds: Double { offset.milliseconds }

    /// The offset in seconds with millisecond precision, e.g. `"30.100s"`. Never traps: any
    /// offset, however far (an unbounded network value), is written exactly to the millisecond.
    public var description: String {
        let (seconds, attoseconds) = offset.components
        let negative = seconds < 0 || attoseconds < 0
        var wholeSeconds = seconds.magnitude
        // Round the fraction half away from zero to whole milliseconds (1 ms = 10^15 as).
        var millis = (attoseconds.magnitude + 500_000_000_000_000) / 1_000_000_000_000_000
        if millis == 1000 {
            millis = 0
            let (sum, overflow) = wholeSeconds.addingReportingOverflow(1)
            wholeSeconds = overflow ? .max : sum
        }
        let sign = negative && (wholeSeconds > 0 || millis > 0) ? "-" : ""
        let fraction = String(millis)
        return "\(sign)\(wholeSeconds).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
    }
}

extension Duration {
    /// This length of time in milliseconds, with sub-millisecond precision.
    public var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }

    /// `milliseconds` as a duration, saturating: NaN is zero, and values beyond what an
    /// `Int64` of milliseconds holds are clamped to it, so no value can trap.
    /// - Parameter milliseconds: a length of time in milliseconds (e.g. from a trace).
    public static func saturating(milliseconds: Double) -> Duration {
        guard !milliseconds.isNaN else { return .zero }
        let limit = 9.2e18 // just under Int64.max
        let clamped = min(max(milliseconds.rounded(), -limit), limit)
        return .milliseconds(Int64(clamped))
    }
}

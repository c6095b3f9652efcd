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

    /// The offset in seconds with millisecond precision, e.g. `"30.100s"`.
    public var description: String {
        let millis = Int64((offset.milliseconds).rounded(.toNearestOrAwayFromZero))
        let sign = millis < 0 ? "-" : ""
        let magnitude = millis.magnitude
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
    }
}

extension Duration {
    /// This length of time in milliseconds, with sub-millisecond precision.
    public var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }
}

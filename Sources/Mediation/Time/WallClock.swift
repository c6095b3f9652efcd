import Foundation

extension WallClockTime {
    /// The time of `date`.
    /// - Parameter date: a wall-clock date.
    public init(_ date: Date) {
        self.init(secondsSince1970: date.timeIntervalSince1970)
    }

    /// The system's wall clock now (`Date()`).
    public static let systemNow: @Sendable () -> WallClockTime = { WallClockTime(Date()) }
}

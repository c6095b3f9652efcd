import Foundation

/// A small lock box: a value reachable only inside ``withLock(_:)``.
///
/// `Synchronization.Mutex` needs iOS 18 / macOS 15, above this package's minimums (iOS 16,
/// macOS 13), so the engine keeps its shared mutable state in this box instead.
///
/// `@unchecked Sendable` is sound because `value` is read and written only while `lock` is
/// held, and the box never hands out a reference to it.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Creates a box holding `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    /// - Parameter body: reads or changes the value; it must not block or call back into this box.
    /// - Returns: what `body` returns.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A small lock box: a value reachable only inside ``withLock(_:)``.
///
/// `Synchronization.Mutex` needs iOS 18 / macOS 15, above this package's minimums (iOS 16,
/// macOS 13), so the engine keeps its shared mutable state in this box instead. The value and
/// the system's lock (`os_unfair_lock` on Apple platforms, a `pthread_mutex_t` elsewhere) sit in
/// one allocation, a `ManagedBuffer`, as swift-nio's `NIOLockedValueBox` does: a box costs one
/// allocation, where a box holding an `NSLock` costs three on Linux (the box, the lock object
/// and its mutex). Copies of a `Locked` share the one box.
///
/// The box is `Sendable` only where its value is (as `Mutex` and `NIOLockedValueBox` are): the
/// lock makes access exclusive, but a non-`Sendable` value (a class with shared state, a
/// closure) could still escape through ``withLock(_:)``'s result, so the compiler checks each
/// value put in a box that crosses a concurrency boundary.
package struct Locked<Value> {
    private let storage: LockedStorage<Value>

    /// Creates a box holding `value`.
    package init(_ value: Value) {
        storage = LockedStorage.make(value)
    }

    /// Runs `body` with exclusive access to the value.
    /// - Parameter body: reads or changes the value; it must not block or call back into this box.
    /// - Returns: what `body` returns.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLock(body)
    }
}

/// `@unchecked` is sound because the value is read and written only while the lock is held,
/// and the box never hands out a reference to it; the value's own `Sendable` conformance
/// covers what `withLock` returns.
extension Locked: @unchecked Sendable where Value: Sendable {}

#if canImport(Darwin)
/// The system lock a ``Locked`` box holds.
private typealias SystemLock = os_unfair_lock
#else
/// The system lock a ``Locked`` box holds.
private typealias SystemLock = pthread_mutex_t
#endif

/// The value (the buffer's header) and the lock (its one element) of a ``Locked`` box.
private final class LockedStorage<Value>: ManagedBuffer<Value, SystemLock> {
    /// A box holding `value`, its lock initialised.
    static func make(_ value: Value) -> LockedStorage<Value> {
        let buffer = create(minimumCapacity: 1) { _ in value }
        // `create` returns an instance of the class it is called on.
        let storage = unsafeDowncast(buffer, to: LockedStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { lock in
            #if canImport(Darwin)
            lock.initialize(to: os_unfair_lock())
            #else
            lock.initialize(to: pthread_mutex_t())
            // A default (non-recursive) mutex; it cannot fail with default attributes.
            _ = pthread_mutex_init(lock, nil)
            #endif
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements { lock in
            #if !canImport(Darwin)
            _ = pthread_mutex_destroy(lock)
            #endif
            _ = lock.deinitialize(count: 1)
        }
    }

    @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { value, lock in
            #if canImport(Darwin)
            os_unfair_lock_lock(lock)
            defer { os_unfair_lock_unlock(lock) }
            #else
            _ = pthread_mutex_lock(lock)
            defer { _ = pthread_mutex_unlock(lock) }
            #endif
            return try body(&value.pointee)
        }
    }
}

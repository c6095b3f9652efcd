import Foundation
import Mediation

/// A ``SecureStore`` in memory, for tests: it stands for the platform Keychain (values survive a
/// "relaunch" as long as the same store object is passed to the new engine or client), and can
/// be told to fail.
public final class MemorySecureStore: SecureStore {
    private struct State {
        var values: [String: Data] = [:]
        var failure: SecureStoreError?
        var writes = 0
    }

    private let state = Locked(State())

    /// Creates an empty store.
    public init() {}

    /// The value of `key`.
    /// - Throws: the failure set with ``failAll(_:)``.
    public func data(forKey key: String) throws(SecureStoreError) -> Data? {
        let (value, failure) = state.withLock { ($0.values[key], $0.failure) }
        if let failure { throw failure }
        return value
    }

    /// Stores (or, for `nil`, deletes) the value of `key`.
    /// - Throws: the failure set with ``failAll(_:)``.
    public func setData(_ data: Data?, forKey key: String) throws(SecureStoreError) {
        let failure = state.withLock { state -> SecureStoreError? in
            if let failure = state.failure { return failure }
            state.values[key] = data
            state.writes += 1
            return nil
        }
        if let failure { throw failure }
    }

    /// Makes every later read and write throw `failure` (`nil` heals the store).
    /// - Parameter failure: the error, or `nil`.
    public func failAll(_ failure: SecureStoreError?) {
        state.withLock { $0.failure = failure }
    }

    /// The keys holding a value.
    public var keys: [String] { state.withLock { $0.values.keys.sorted() } }

    /// How many writes succeeded.
    public var writeCount: Int { state.withLock { $0.writes } }
}

import Foundation

/// A ``StateStore`` in memory, for the life of the process: the default when the host gives no
/// directory, and what tests use. Values are kept as framed records and read back through the
/// same checks as a file's (engine rule R21), so a test can damage one
/// (``setRecord(_:forKey:)``) and see it discarded. The same store object passed to a new engine
/// stands for a relaunch. (The damage and failure hooks are `package`: the project's tests use
/// them.)
package final class MemoryStateStore: StateStore {
    private struct State {
        var records: [String: Data] = [:]
        var failure: String?
    }

    /// The largest value accepted, in bytes.
    public let maximumValueBytes: Int
    private let state = Locked(State())
    /// Held (recursively) by the thread inside ``exclusively(_:)``.
    private let writers = NSRecursiveLock()

    /// Creates an empty store.
    /// - Parameter maximumValueBytes: the largest value accepted (default
    ///   ``FileStateStore/defaultMaximumValueBytes``, 8 MiB).
    public init(maximumValueBytes: Int = FileStateStore.defaultMaximumValueBytes) {
        self.maximumValueBytes = max(0, maximumValueBytes)
    }

    /// The value stored under `key`.
    /// - Throws: ``StateStoreError``: `discarded` for a damaged record (removed), `invalidKey`,
    ///   or `unavailable` while ``failAll(_:)`` is set.
    public func data(forKey key: String) throws(StateStoreError) -> Data? {
        guard StateStoreKey.isValid(key) else { throw FileStateStore.invalidKey(key) }
        let (record, failure) = state.withLock { ($0.records[key], $0.failure) }
        if let failure { throw StateStoreError(kind: .unavailable, key: key, message: failure) }
        guard let record else { return nil }
        switch StateRecord.decode(record, key: key, maximumValueBytes: maximumValueBytes) {
        case .success(let value):
            return value
        case .failure(let refusal):
            state.withLock { $0.records[key] = nil }
            throw StateStoreError(kind: .discarded, key: key, message: "\(refusal.reason); removed")
        }
    }

    /// Stores (or, for `nil`, deletes) the value of `key`.
    /// - Throws: ``StateStoreError``: `tooLarge`, `invalidKey`, or `unavailable` while
    ///   ``failAll(_:)`` is set.
    public func setData(_ data: Data?, forKey key: String) throws(StateStoreError) {
        guard StateStoreKey.isValid(key) else { throw FileStateStore.invalidKey(key) }
        if let data, data.count > maximumValueBytes { throw FileStateStore.tooLarge(key, data.count, maximumValueBytes) }
        writers.lock()
        defer { writers.unlock() }
        let failure = state.withLock { state -> String? in
            if let failure = state.failure { return failure }
            state.records[key] = data.map { StateRecord.encode($0, key: key) }
            return nil
        }
        if let failure { throw StateStoreError(kind: .unavailable, key: key, message: failure) }
    }

    /// Runs `body` with the store's write lock held (recursive): no other thread writes
    /// meanwhile.
    /// - Parameter body: the read-modify-write.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public func exclusively<T>(_ body: () throws(StateStoreError) -> T) throws(StateStoreError) -> T {
        writers.lock()
        defer { writers.unlock() }
        return try body()
    }

    /// Every key holding a value, sorted.
    /// - Throws: ``StateStoreError`` `unavailable` while ``failAll(_:)`` is set.
    public func keys() throws(StateStoreError) -> [String] {
        let (keys, failure) = state.withLock { ($0.records.keys.sorted(), $0.failure) }
        if let failure { throw StateStoreError(kind: .unavailable, key: "", message: failure) }
        return keys
    }

    /// The stored record of `key` as it would be on disk (framed), for tests.
    /// - Parameter key: the key.
    package func record(forKey key: String) -> Data? {
        state.withLock { $0.records[key] }
    }

    /// Replaces the stored record of `key` with `record` as it is (a test's damaged, truncated
    /// or foreign file); `nil` deletes it.
    /// - Parameters:
    ///   - record: the bytes, framed or not.
    ///   - key: the key.
    package func setRecord(_ record: Data?, forKey key: String) {
        state.withLock { $0.records[key] = record }
    }

    /// Makes every later read and write throw `unavailable` with `message` (`nil` heals it).
    /// - Parameter message: why the store fails, or `nil`.
    package func failAll(_ message: String?) {
        state.withLock { $0.failure = message }
    }
}

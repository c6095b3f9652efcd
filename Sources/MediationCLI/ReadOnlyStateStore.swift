import Foundation
import Mediation

/// A state store read through and written to memory only: `mediate networks` launches the
/// engine on it, so that what a launch writes or removes (the install id, the applied-version
/// floor, a cached configuration that does not verify with the keys given) changes nothing in
/// `--state-dir`. Reads see this process's own writes first, then the directory's values.
final class ReadOnlyStateStore: StateStore {
    private let base: any StateStore
    /// This process's writes: a value, or `nil` for a deletion.
    private let written = Locked<[String: Data?]>([:])
    /// Held (recursively) by the thread inside ``exclusively(_:)``.
    private let lock = NSRecursiveLock()

    /// Reads `base`, writes nothing to it.
    init(over base: any StateStore) {
        self.base = base
    }

    /// This process's value of `key` if it wrote one, else `base`'s.
    /// - Throws: what `base` throws.
    func data(forKey key: String) throws(StateStoreError) -> Data? {
        if let own = written.withLock({ $0[key] }) { return own }
        return try base.data(forKey: key)
    }

    /// Keeps `data` (or a deletion) for `key` in memory.
    func setData(_ data: Data?, forKey key: String) throws(StateStoreError) {
        written.withLock { $0[key] = .some(data) }
    }

    /// `base`'s keys with this process's writes and deletions, sorted.
    /// - Throws: what `base` throws.
    func keys() throws(StateStoreError) -> [String] {
        var keys = Set(try base.keys())
        for (key, value) in written.withLock({ $0 }) {
            if value == nil { keys.remove(key) } else { keys.insert(key) }
        }
        return keys.sorted()
    }

    /// Runs `body` under this store's own (in-process) lock: `base` is only read, so no lock
    /// file in its directory is opened or created.
    /// - Throws: what `body` throws.
    func exclusively<T>(_ body: () throws(StateStoreError) -> T) throws(StateStoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

import Mediation

/// A ``NitxStorage`` in memory: for tests, and for hosts that give no storage directory.
package final class NitxInMemoryStorage: NitxStorage {
    private let values: Locked<[NitxStorageKey: String]>

    /// Creates a storage holding `values`.
    public init(_ values: [NitxStorageKey: String] = [:]) {
        self.values = Locked(values)
    }

    /// The value under `key`.
    public func value(forKey key: NitxStorageKey) -> String? {
        values.withLock { $0[key] }
    }

    /// Stores or removes the value under `key`.
    public func setValue(_ value: String?, forKey key: NitxStorageKey) {
        values.withLock { $0[key] = value }
    }

    /// Everything stored, by key.
    package var snapshot: [NitxStorageKey: String] {
        values.withLock { $0 }
    }
}

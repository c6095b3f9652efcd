import Foundation

/// Why a ``StateStore`` could not read or write a value.
package struct StateStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad cause.
    package enum Kind: String, Sendable, Hashable {
        /// The stored value failed its checks (truncated, tampered with, written by another
        /// program or by a newer version of the engine, too large): it was removed and is not
        /// returned (engine rule R21). The caller goes on as if nothing was stored, and says so.
        case discarded
        /// The value is larger than the store accepts; nothing was written.
        case tooLarge
        /// The key is empty or longer than 200 bytes of UTF-8.
        case invalidKey
        /// The store's directory or file could not be read or written (the message says why).
        case unavailable
    }

    /// The broad cause.
    package var kind: Kind
    /// The key involved.
    public var key: String
    /// What happened, for a person (never the stored value).
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - kind: the broad cause.
    ///   - key: the key involved.
    ///   - message: what happened.
    package init(kind: Kind, key: String, message: String) {
        self.kind = kind
        self.key = key
        self.message = message
    }

    /// `kind key: message`, e.g. `discarded config.cache: the file is truncated`.
    public var description: String { "\(kind.rawValue) \(DisplayText.escaped(key)): \(message)" }
}

/// The rules every ``StateStore`` shares for its keys.
package enum StateStoreKey {
    /// The longest key, in UTF-8 bytes: 200.
    package static let maximumLength = 200

    /// Whether `key` is usable: not empty and at most ``maximumLength`` bytes of UTF-8. Any
    /// characters are allowed (a network id may be part of a key); stores encode them.
    /// - Parameter key: the key.
    package static func isValid(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= maximumLength
    }
}

/// What the engine keeps across launches: small values by key (the last verified remote
/// configuration, the install id; network health, caps and experiments next), in a place the
/// host chooses, injected like the clock (``MediationEnvironment/stateStore``).
///
/// The project ships two: ``FileStateStore`` (one file per key in a directory the host gives,
/// e.g. the app-support folder on iOS, written atomically) and ``MemoryStateStore`` (for the
/// process only; the default, and what tests use).
///
/// Contract:
/// - Values are read back as untrusted input (engine rule R21): each is stored with its key, its
///   length and a SHA-256 checksum, and a value that fails those checks (truncated, tampered
///   with, another program's file, written by a newer version, larger than the store's limit)
///   is removed and reported as ``StateStoreError/Kind/discarded``, never returned. A caller
///   still validates what a value means (a stored config is verified again, a stored count is
///   bounded).
/// - ``setData(_:forKey:)`` replaces a value atomically: a reader sees the old value or the new
///   one, also after a crash; `nil` deletes it.
/// - ``exclusively(_:)`` runs a read-modify-write with every other writer of the same state
///   shut out (other threads, and for ``FileStateStore`` other processes): what must only grow
///   (the highest configuration version applied) is read, compared and raised under it.
/// - Keys are short names chosen by the engine (`config.cache`, `install.id`,
///   `health.<network id>`), at most 200 bytes of UTF-8.
/// - Nothing here is secret: ids, caches and digests, never a raw user identity.
package protocol StateStore: Sendable {
    /// The value stored under `key`, or `nil` when there is none.
    /// - Parameter key: the key.
    /// - Throws: ``StateStoreError``: `discarded` when a stored value failed its checks (it was
    ///   removed), `invalidKey`, or `unavailable` when the store cannot be read.
    func data(forKey key: String) throws(StateStoreError) -> Data?

    /// Stores `data` under `key`, replacing any value atomically; `nil` deletes the value.
    /// - Parameters:
    ///   - data: the value, or `nil` to delete.
    ///   - key: the key.
    /// - Throws: ``StateStoreError``: `tooLarge`, `invalidKey`, or `unavailable` when the store
    ///   cannot be written (the old value, if any, is kept).
    func setData(_ data: Data?, forKey key: String) throws(StateStoreError)

    /// Every key holding a value, sorted (e.g. to find the `health.` keys of networks no longer
    /// configured).
    /// - Throws: ``StateStoreError`` `unavailable` when the store cannot be listed.
    func keys() throws(StateStoreError) -> [String]

    /// Runs `body` with the store's write lock held: no other writer of this state (another
    /// thread, or another process on the same directory) writes until it returns. Reads and
    /// writes `body` makes through this store are allowed (the lock is recursive).
    /// - Parameter body: the read-modify-write; it must not wait for anything but the store.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or ``StateStoreError`` `unavailable` when the lock cannot
    ///   be taken.
    func exclusively<T>(_ body: () throws(StateStoreError) -> T) throws(StateStoreError) -> T
}

extension StateStore {
    /// Replaces the value of `key` by what `change` makes of it, with the write lock held
    /// across the read and the write (``exclusively(_:)``), so that no other writer's value is
    /// lost in between. A value that fails its checks reaches `change` as `nil` (it was
    /// removed). Nothing is written when `change` returns the value it was given.
    /// - Parameters:
    ///   - key: the key.
    ///   - change: the new value (`nil` deletes) from the current one.
    /// - Returns: the value stored when done.
    /// - Throws: ``StateStoreError`` from the write, or `unavailable` from a read or the lock.
    @discardableResult
    package func update(_ key: String, _ change: (Data?) -> Data?) throws(StateStoreError) -> Data? {
        try exclusively { () throws(StateStoreError) -> Data? in
            var current: Data?
            do throws(StateStoreError) {
                current = try data(forKey: key)
            } catch {
                guard error.kind == .discarded else { throw error }
            }
            let new = change(current)
            if new != current { try setData(new, forKey: key) }
            return new
        }
    }

    /// The value stored under `key` decoded from JSON as `T`, or `nil` when there is none. A
    /// value that is not strict JSON (a key repeated in an object, text after the value, a
    /// syntax error) or does not decode is removed like a damaged file (engine rule R21).
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - key: the key.
    /// - Throws: ``StateStoreError``: `discarded` (also when the JSON is not strict or does not
    ///   decode as `T`; the message names the JSON path), `invalidKey` or `unavailable`.
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) throws(StateStoreError) -> T? {
        guard let data = try data(forKey: key) else { return nil }
        switch StoredJSON.decode(T.self, from: data) {
        case .success(let value):
            return value
        case .failure(let refusal):
            try? setData(nil, forKey: key)
            throw StateStoreError(kind: .discarded, key: key, message: "\(refusal.reason); removed")
        }
    }

    /// Stores `value` as JSON under `key` (atomically, like ``setData(_:forKey:)``).
    /// - Parameters:
    ///   - value: the value.
    ///   - key: the key.
    /// - Throws: ``StateStoreError``: `tooLarge`, `invalidKey`, `unavailable`, or `unavailable`
    ///   when the value cannot be encoded.
    public func setValue<T: Encodable>(_ value: T, forKey key: String) throws(StateStoreError) {
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            data = try encoder.encode(value)
        } catch {
            throw StateStoreError(kind: .unavailable, key: key, message: "the value cannot be encoded as JSON")
        }
        try setData(data, forKey: key)
    }
}

import Foundation

/// The engine's id of this app install: 128 random bits as 32 lowercase hex digits, made once
/// and kept in the host's state store under `install.id`. It is used on the device only (the
/// staged-rollout bucket of a configuration, ``MediationConfiguration/Rollout``, the jitter of the
/// configuration checks, and the experiments' assignment, ``ExperimentAssignment``): never sent
/// to any network, never put in an event or a log line (an experiment's events carry a one-way
/// hash of it per experiment, its `unit`). A host resets it with
/// ``MediationEngine/forgetUser()`` (a new id, new buckets, new experiment variants and units).
package enum InstallID {
    /// The store key.
    package static let key = "install.id"

    /// The id kept in `store`, made and kept when there is none or the stored one is not 32
    /// lowercase hex digits (R21), under the store's write lock (two first launches sharing a
    /// store agree on one id). When the store cannot be written the id lasts for the process.
    /// - Parameter store: the host's state store.
    /// - Returns: the id, and what went wrong with the store, if anything.
    package static func current(in store: any StateStore) -> (id: String, failure: StateStoreError?) {
        var failure: StateStoreError?
        do {
            if let data = try store.data(forKey: key) {
                let text = String(decoding: data, as: UTF8.self)
                if isValid(text) { return (text, nil) }
                failure = StateStoreError(kind: .discarded, key: key, message: "not 32 hex digits; replaced")
            }
        } catch {
            failure = error
        }
        let made = make()
        do {
            let kept = try store.update(key) { current in
                current.map { String(decoding: $0, as: UTF8.self) }.map(isValid) == true ? current : Data(made.utf8)
            }
            return (kept.map { String(decoding: $0, as: UTF8.self) } ?? made, failure)
        } catch {
            return (made, failure ?? error)
        }
    }

    /// Replaces the id in `store` by a new one.
    /// - Throws: the store's error.
    package static func reset(in store: any StateStore) throws(StateStoreError) -> String {
        let id = make()
        try store.setData(Data(id.utf8), forKey: key)
        return id
    }

    /// Whether `text` is 32 lowercase hex digits.
    static func isValid(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// A new id from the system's secure random source.
    static func make() -> String {
        var random = SystemRandomNumberGenerator()
        let high: UInt64 = random.next(), low: UInt64 = random.next()
        return SHA256Digest.hex(withUnsafeBytes(of: high.bigEndian, Array.init) + withUnsafeBytes(of: low.bigEndian, Array.init))
    }
}

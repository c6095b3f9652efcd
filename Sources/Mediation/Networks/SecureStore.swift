import Foundation

/// Why a ``SecureStore`` could not read or write.
public struct SecureStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed (never the stored value).
    public var message: String

    /// Creates an error.
    /// - Parameter message: what failed.
    public init(message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// The host's store for secrets: values encrypted at rest and kept on this device only (on
/// Apple platforms the Keychain with a `ThisDeviceOnly` item, never synchronised to iCloud
/// Keychain nor put in a device backup; `KeychainSecureStore` in the `Adapters` library is one).
///
/// Networks keep identity in it (the Elo user identifier and user data); with no secure store
/// in the ``MediationEnvironment`` they keep such state in memory for the life of the process
/// and never write it to a plain file.
///
/// Contract: ``setData(_:forKey:)`` replaces the value atomically (a reader sees the old value
/// or the new one); `nil` deletes it. Keys are short ASCII names chosen by the network, e.g.
/// `elo.identity.elo`. Implementations never log values.
public protocol SecureStore: Sendable {
    /// The value stored under `key`, or `nil` when there is none.
    /// - Parameter key: the key.
    /// - Throws: ``SecureStoreError`` when the store cannot be read.
    func data(forKey key: String) throws(SecureStoreError) -> Data?

    /// Stores `data` under `key`, replacing any value; `nil` deletes the value.
    /// - Parameters:
    ///   - data: the value, or `nil` to delete.
    ///   - key: the key.
    /// - Throws: ``SecureStoreError`` when the store cannot be written.
    func setData(_ data: Data?, forKey key: String) throws(SecureStoreError)
}

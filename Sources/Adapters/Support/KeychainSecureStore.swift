#if canImport(Security)
import Foundation
import Mediation
import Security

/// A ``SecureStore`` in the Keychain of Apple platforms: one generic-password item per key
/// (service = ``service``, account = the key), accessible after the first unlock on this
/// device only (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`) and never synchronised, so
/// it reaches neither iCloud Keychain nor a device backup. Pass it to the engine as
/// `MediationEnvironment(secureStore: KeychainSecureStore(service: "com.example.app.ads"))`.
public struct KeychainSecureStore: SecureStore {
    /// The Keychain service the items are filed under.
    public let service: String

    /// Creates a store.
    /// - Parameter service: the Keychain service, e.g. the app's bundle id plus `.ads`.
    public init(service: String) {
        self.service = service
    }

    /// Reads the item of `key`.
    /// - Parameter key: the key (the item's account).
    /// - Returns: its data, or `nil` when there is no item.
    /// - Throws: ``SecureStoreError`` with the Keychain status when it cannot be read.
    public func data(forKey key: String) throws(SecureStoreError) -> Data? {
        var query = baseQuery(key)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess: return result as? Data
        case errSecItemNotFound: return nil
        default: throw SecureStoreError(message: "Keychain read failed (status \(status))")
        }
    }

    /// Replaces (or, for `nil`, deletes) the item of `key`.
    /// - Parameters:
    ///   - data: the value, or `nil` to delete the item.
    ///   - key: the key (the item's account).
    /// - Throws: ``SecureStoreError`` with the Keychain status when it cannot be written.
    public func setData(_ data: Data?, forKey key: String) throws(SecureStoreError) {
        guard let data else {
            let status = SecItemDelete(baseQuery(key) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw SecureStoreError(message: "Keychain delete failed (status \(status))")
            }
            return
        }
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        var status = SecItemUpdate(baseQuery(key) as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            var item = baseQuery(key)
            item.merge(attributes) { _, new in new }
            status = SecItemAdd(item as CFDictionary, nil)
        }
        guard status == errSecSuccess else {
            throw SecureStoreError(message: "Keychain write failed (status \(status))")
        }
    }

    /// The query naming the item of `key`: a generic password, this service, never synchronised.
    private func baseQuery(_ key: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: key,
            kSecAttrSynchronizable as String: false,
        ]
    }
}
#endif

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
        var status = SecItemUpdate(baseQuery(key) as CFDictionary, Self.dictionary(KeychainItemAttributes.update(data: data)) as CFDictionary)
        if status == errSecItemNotFound {
            status = SecItemAdd(Self.dictionary(KeychainItemAttributes.newItem(service: service, key: key, data: data)) as CFDictionary, nil)
        }
        guard status == errSecSuccess else {
            throw SecureStoreError(message: "Keychain write failed (status \(status))")
        }
    }

    /// The query naming the item of `key`: a generic password, this service, never synchronised
    /// (``KeychainItemAttributes/query(service:key:)``).
    private func baseQuery(_ key: String) -> [String: Any] {
        Self.dictionary(KeychainItemAttributes.query(service: service, key: key))
    }

    /// The attributes as the Security framework takes them: its names and constants are the
    /// strings ``KeychainItemAttributes`` spells (`kSecAttrService` is `"svce"`…).
    private static func dictionary(_ attributes: [String: KeychainItemAttributes.Value]) -> [String: Any] {
        attributes.mapValues { value -> Any in
            switch value {
            case .string(let string): string
            case .bool(let bool): bool
            case .data(let data): data
            }
        }
    }
}
#endif

import Foundation

/// The attributes of the Keychain items ``KeychainSecureStore`` reads and writes, described with
/// the Security framework's own names and values ("svce", "pdmn", "cku"…) but without the
/// framework, so that tests on every platform check what the store asks the Keychain for (the
/// Keychain itself exists on Apple platforms only).
///
/// Every item is a generic password filed under the store's service, with the key as its
/// account; it is never synchronised (so it never reaches iCloud Keychain) and is accessible
/// after the first unlock on this device only (so it never leaves the device, not even in an
/// encrypted backup).
package enum KeychainItemAttributes {
    /// One attribute value.
    package enum Value: Hashable, Sendable {
        /// A string constant or name.
        case string(String)
        /// A boolean.
        case bool(Bool)
        /// The item's data.
        case data(Data)
    }

    /// `kSecClass`.
    package static let itemClass = "class"
    /// `kSecClassGenericPassword`.
    package static let genericPassword = "genp"
    /// `kSecAttrService`.
    package static let service = "svce"
    /// `kSecAttrAccount`.
    package static let account = "acct"
    /// `kSecAttrSynchronizable`.
    package static let synchronizable = "sync"
    /// `kSecAttrAccessible`.
    package static let accessible = "pdmn"
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`.
    package static let afterFirstUnlockThisDeviceOnly = "cku"
    /// `kSecValueData`.
    package static let valueData = "v_Data"

    /// The query naming the item of `key`: a generic password of `service`, never synchronised.
    /// - Parameters:
    ///   - service: the store's service.
    ///   - key: the key (the item's account).
    /// - Returns: the attributes by name.
    package static func query(service serviceName: String, key: String) -> [String: Value] {
        [
            itemClass: .string(genericPassword),
            service: .string(serviceName),
            account: .string(key),
            synchronizable: .bool(false),
        ]
    }

    /// What an update of the item sets: its data, accessible after the first unlock on this
    /// device only.
    /// - Parameter data: the item's new data.
    /// - Returns: the attributes by name.
    package static func update(data: Data) -> [String: Value] {
        [
            valueData: .data(data),
            accessible: .string(afterFirstUnlockThisDeviceOnly),
        ]
    }

    /// The whole item a first write adds: the query's attributes and the update's.
    /// - Parameters:
    ///   - service: the store's service.
    ///   - key: the key (the item's account).
    ///   - data: the item's data.
    /// - Returns: the attributes by name.
    package static func newItem(service serviceName: String, key: String, data: Data) -> [String: Value] {
        query(service: serviceName, key: key).merging(update(data: data)) { _, new in new }
    }
}

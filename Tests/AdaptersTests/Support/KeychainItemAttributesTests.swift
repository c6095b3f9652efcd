import Foundation
import Testing
@testable import Adapters
#if canImport(Security)
import Security
#endif

/// The Keychain items `KeychainSecureStore` builds (Elo document: "a ThisDeviceOnly item so it
/// never reaches iCloud Keychain or an encrypted device backup"): checked on the attribute
/// dictionaries themselves, which every platform builds, since the Keychain exists on Apple
/// platforms only.
@Suite("Keychain item attributes")
struct KeychainItemAttributesTests {
    typealias Attributes = KeychainItemAttributes

    @Test func everyItemIsThisDeviceOnlyAndNeverSynchronised() {
        let data = Data("record".utf8)
        let query = Attributes.query(service: "com.example.app.ads", key: "elo.identity.elo")
        let update = Attributes.update(data: data)
        let item = Attributes.newItem(service: "com.example.app.ads", key: "elo.identity.elo", data: data)
        // The query names one generic password of the service and excludes synchronised items.
        #expect(query == [
            "class": .string("genp"),
            "svce": .string("com.example.app.ads"),
            "acct": .string("elo.identity.elo"),
            "sync": .bool(false),
        ])
        // An update rewrites the data and the accessibility: after first unlock, this device only.
        #expect(update == ["v_Data": .data(data), "pdmn": .string("cku")])
        // A first write adds an item that is both: never synchronised, this device only.
        #expect(item["sync"] == .bool(false))
        #expect(item["pdmn"] == .string("cku"))
        #expect(item["class"] == .string("genp"))
        #expect(item["v_Data"] == .data(data))
        #expect(item.count == 6)
    }

    #if canImport(Security)
    @Test func theNamesAreTheSecurityFrameworksOwn() {
        #expect(kSecClass as String == Attributes.itemClass)
        #expect(kSecClassGenericPassword as String == Attributes.genericPassword)
        #expect(kSecAttrService as String == Attributes.service)
        #expect(kSecAttrAccount as String == Attributes.account)
        #expect(kSecAttrSynchronizable as String == Attributes.synchronizable)
        #expect(kSecAttrAccessible as String == Attributes.accessible)
        #expect(kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String == Attributes.afterFirstUnlockThisDeviceOnly)
        #expect(kSecValueData as String == Attributes.valueData)
    }
    #endif
}

import Foundation
#if canImport(CryptoKit)
import CryptoKit
#elseif canImport(CCrypto)
import CCrypto
#endif

/// Ed25519 signatures (RFC 8032) from a well-kept library: CryptoKit's `Curve25519.Signing` on
/// Apple platforms, OpenSSL's libcrypto (`EVP_PKEY_ED25519`) on Linux. The engine only
/// verifies (signed remote configurations); `mediate config keygen` and `sign` use the rest.
///
/// Keys are raw: a public key is 32 bytes, a private key its 32-byte seed, a signature 64 bytes.
/// No function traps on any input: a key or signature of the wrong length verifies as false.
package enum Ed25519 {
    /// The length of a public key and of a private key's seed, in bytes.
    package static let keyLength = 32
    /// The length of a signature, in bytes.
    package static let signatureLength = 64

    /// Whether `signature` is a valid Ed25519 signature of `message` by `publicKey`.
    /// - Parameters:
    ///   - signature: 64 bytes.
    ///   - message: the signed bytes.
    ///   - publicKey: the 32-byte public key.
    package static func isValidSignature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == signatureLength, publicKey.count == keyLength else { return false }
        #if canImport(CryptoKit)
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
        #elseif canImport(CCrypto)
        guard let key = publicKey.withUnsafeBufferPointer({ EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, keyLength) }) else { return false }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
        let input = message.isEmpty ? [0] : message // a valid pointer for the empty message
        let count = message.count
        let verified = signature.withUnsafeBufferPointer { signatureBytes in
            input.withUnsafeBufferPointer { messageBytes in
                EVP_DigestVerify(context, signatureBytes.baseAddress, signatureLength, messageBytes.baseAddress, count)
            }
        }
        return verified == 1
        #else
        #error("Ed25519 needs CryptoKit or OpenSSL libcrypto (CCrypto)")
        #endif
    }

    /// A new private key's 32-byte seed from the system's secure random source, or `nil` when
    /// the library cannot make one.
    package static func generatePrivateKey() -> [UInt8]? {
        #if canImport(CryptoKit)
        return Array(Curve25519.Signing.PrivateKey().rawRepresentation)
        #elseif canImport(CCrypto)
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { return nil }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen(context, &key) == 1, let key else { return nil }
        defer { EVP_PKEY_free(key) }
        var seed = [UInt8](repeating: 0, count: keyLength)
        var length = keyLength
        guard EVP_PKEY_get_raw_private_key(key, &seed, &length) == 1, length == keyLength else { return nil }
        return seed
        #endif
    }

    /// The public key of the private key `seed`, or `nil` when `seed` is not 32 bytes.
    /// - Parameter seed: the private key's 32-byte seed.
    package static func publicKey(ofPrivateKey seed: [UInt8]) -> [UInt8]? {
        guard seed.count == keyLength else { return nil }
        #if canImport(CryptoKit)
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else { return nil }
        return Array(key.publicKey.rawRepresentation)
        #elseif canImport(CCrypto)
        guard let key = privateKey(seed) else { return nil }
        defer { EVP_PKEY_free(key) }
        var publicKey = [UInt8](repeating: 0, count: keyLength)
        var length = keyLength
        guard EVP_PKEY_get_raw_public_key(key, &publicKey, &length) == 1, length == keyLength else { return nil }
        return publicKey
        #endif
    }

    /// The Ed25519 signature of `message` by the private key `seed` (64 bytes), or `nil` when
    /// `seed` is not 32 bytes or the library fails.
    /// - Parameters:
    ///   - message: the bytes to sign.
    ///   - seed: the private key's 32-byte seed.
    package static func signature(of message: [UInt8], privateKey seed: [UInt8]) -> [UInt8]? {
        guard seed.count == keyLength else { return nil }
        #if canImport(CryptoKit)
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed),
              let signature = try? key.signature(for: message)
        else { return nil }
        return Array(signature)
        #elseif canImport(CCrypto)
        guard let key = privateKey(seed) else { return nil }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1 else { return nil }
        var signature = [UInt8](repeating: 0, count: signatureLength)
        var length = signatureLength
        let input = message.isEmpty ? [0] : message
        let count = message.count
        let signed = input.withUnsafeBufferPointer { messageBytes in
            EVP_DigestSign(context, &signature, &length, messageBytes.baseAddress, count)
        }
        guard signed == 1, length == signatureLength else { return nil }
        return signature
        #endif
    }

    #if !canImport(CryptoKit) && canImport(CCrypto)
    /// libcrypto's key object for the private key `seed` (the caller frees it).
    private static func privateKey(_ seed: [UInt8]) -> OpaquePointer? {
        seed.withUnsafeBufferPointer { EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, keyLength) }
    }
    #endif
}

import Foundation
#if canImport(CryptoKit)
import CryptoKit
#elseif canImport(CCrypto)
import CCrypto
#endif

/// SHA-256 from a well-kept library: CryptoKit on Apple platforms, OpenSSL's libcrypto
/// (through the `CCrypto` system-library target) on Linux. Used for the integrity check of the
/// state store's files, the key ids of configuration keys and the staged-rollout bucket.
package enum SHA256Digest {
    /// The SHA-256 digest of `bytes`: 32 bytes.
    /// - Parameter bytes: the message.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        #if canImport(CryptoKit)
        return Array(SHA256.hash(data: bytes))
        #elseif canImport(CCrypto)
        var output = [UInt8](repeating: 0, count: 32)
        let input = bytes.isEmpty ? [0] : bytes // a valid pointer for the zero-length message
        let count = bytes.count
        input.withUnsafeBufferPointer { message in
            output.withUnsafeMutableBufferPointer { digest in
                _ = SHA256(message.baseAddress, count, digest.baseAddress)
            }
        }
        return output
        #else
        #error("SHA256Digest needs CryptoKit or OpenSSL libcrypto (CCrypto)")
        #endif
    }

    /// The SHA-256 digest of `data`: 32 bytes.
    /// - Parameter data: the message.
    package static func hash(_ data: Data) -> [UInt8] {
        hash([UInt8](data))
    }

    /// `bytes` as lowercase hexadecimal digits, two per byte.
    /// - Parameter bytes: any bytes.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

import Foundation
#if canImport(CryptoKit)
import CryptoKit
#elseif canImport(CCrypto)
import CCrypto
#endif

/// SHA-256 from a well-kept library: CryptoKit on Apple platforms, OpenSSL's libcrypto
/// (through the `CCrypto` system-library target) on Linux (Nitx seed: "SHA-256 via CryptoKit").
package enum NitxSHA256 {
    /// The SHA-256 digest of `data`: 32 bytes.
    package static func digest(_ data: Data) -> [UInt8] {
        #if canImport(CryptoKit)
        return Array(SHA256.hash(data: data))
        #elseif canImport(CCrypto)
        var output = [UInt8](repeating: 0, count: 32)
        var input = [UInt8](data)
        let count = input.count
        if input.isEmpty { input = [0] }  // a valid pointer for the zero-length message
        input.withUnsafeBufferPointer { bytes in
            output.withUnsafeMutableBufferPointer { out in
                _ = SHA256(bytes.baseAddress, count, out.baseAddress)
            }
        }
        return output
        #else
        #error("NitxSHA256 needs CryptoKit or OpenSSL libcrypto (CCrypto)")
        #endif
    }

    /// The SHA-256 digest of `text`'s UTF-8 bytes as 64 lowercase hex digits.
    package static func hexDigest(of text: String) -> String {
        hex(digest(Data(text.utf8)))
    }

    /// The SHA-256 digest of `data` as 64 lowercase hex digits.
    package static func hexDigest(of data: Data) -> String {
        hex(digest(data))
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return text
    }
}

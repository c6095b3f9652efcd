import Foundation
import Mediation

/// SHA-256 for Nitx's hashed profile fields (Nitx seed: "SHA-256 via CryptoKit"): the engine's
/// one SHA-256, CryptoKit on Apple platforms and OpenSSL's libcrypto on Linux.
package enum NitxSHA256 {
    /// The SHA-256 digest of `data`: 32 bytes.
    package static func digest(_ data: Data) -> [UInt8] {
        SHA256Digest.hash(data)
    }

    /// The SHA-256 digest of `text`'s UTF-8 bytes as 64 lowercase hex digits.
    package static func hexDigest(of text: String) -> String {
        SHA256Digest.hex(SHA256Digest.hash(Data(text.utf8)))
    }

    /// The SHA-256 digest of `data` as 64 lowercase hex digits.
    package static func hexDigest(of data: Data) -> String {
        SHA256Digest.hex(SHA256Digest.hash(data))
    }
}

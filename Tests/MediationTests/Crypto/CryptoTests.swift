import Foundation
@testable import Mediation
import Testing

/// SHA-256 and Ed25519 come from the system's library (libcrypto here, CryptoKit on Apple
/// platforms): the published test vectors hold, and nothing traps on bad input.
@Suite("Crypto: SHA-256 and Ed25519")
struct CryptoTests {
    private static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    @Test("SHA-256: the FIPS 180-2 vectors (\"abc\", 448 bits, a million a's) and the empty message; 32 bytes")
    func sha256Vectors() {
        #expect(SHA256Digest.hex(SHA256Digest.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Digest.hex(SHA256Digest.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Digest.hex(SHA256Digest.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256Digest.hex(SHA256Digest.hash(Data(repeating: UInt8(ascii: "a"), count: 1_000_000))) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(SHA256Digest.hash(Data("abc".utf8)).count == 32)
    }

    @Test("RFC 8032 test 1: the public key of the seed, and its signature of the empty message verifies")
    func rfc8032Vector() throws {
        let seed = Self.bytes("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
        let publicKey = Self.bytes("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let signature = Self.bytes("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
        #expect(Ed25519.publicKey(ofPrivateKey: seed) == publicKey)
        #expect(Ed25519.isValidSignature(signature, of: [], publicKey: publicKey))
        #if !canImport(CryptoKit)
        #expect(Ed25519.signature(of: [], privateKey: seed) == signature) // libcrypto signs deterministically
        #endif
        var flipped = signature
        flipped[10] ^= 0x01
        #expect(!Ed25519.isValidSignature(flipped, of: [], publicKey: publicKey))
        #expect(!Ed25519.isValidSignature(signature, of: [0], publicKey: publicKey))
    }

    @Test("a generated key signs and verifies; wrong lengths verify as false without trapping")
    func roundTripAndBadLengths() throws {
        let seed = try #require(Ed25519.generatePrivateKey())
        let publicKey = try #require(Ed25519.publicKey(ofPrivateKey: seed))
        let message = Array("the configuration's bytes".utf8)
        let signature = try #require(Ed25519.signature(of: message, privateKey: seed))
        #expect(Ed25519.isValidSignature(signature, of: message, publicKey: publicKey))
        #expect(!Ed25519.isValidSignature(Array(signature.prefix(63)), of: message, publicKey: publicKey))
        #expect(!Ed25519.isValidSignature(signature, of: message, publicKey: Array(publicKey.prefix(31))))
        #expect(Ed25519.publicKey(ofPrivateKey: [1, 2, 3]) == nil)
        #expect(Ed25519.signature(of: message, privateKey: []) == nil)
        #expect(try #require(Ed25519.generatePrivateKey()) != seed)
    }
}

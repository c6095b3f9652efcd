import Foundation
import Testing
@testable import Adapters

@Suite("Nitx SHA-256")
struct NitxSHA256Tests {
    /// FIPS 180-2 appendix B vectors (and the empty message).
    @Test(arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func standardVectors(message: String, digest: String) {
        #expect(NitxSHA256.hexDigest(of: message) == digest)
    }

    @Test func millionAs() {
        let data = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(NitxSHA256.hexDigest(of: data) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func digestIs32Bytes() {
        #expect(NitxSHA256.digest(Data("abc".utf8)).count == 32)
    }
}

import Foundation
import Mediation
import Testing

/// The bounds the adapters use on text, URLs, lists and prices (engine rule R16).
@Suite("NetworkValueBounds: text, URLs, lists and prices", .serialized)
struct NetworkValueBoundsTextTests {
    @Test func textIsCutToItsLimitInCharacters() {
        #expect(NetworkValueBounds.text(String(repeating: "a", count: 256)) == String(repeating: "a", count: 256))
        #expect(NetworkValueBounds.text(String(repeating: "a", count: 257)) == String(repeating: "a", count: 255) + "…")
        // Characters, not bytes: 256 emoji (1024 UTF-8 bytes) fit; 257 do not.
        #expect(NetworkValueBounds.text(String(repeating: "🇬🇪", count: 256)) == String(repeating: "🇬🇪", count: 256))
        #expect(NetworkValueBounds.text(String(repeating: "🇬🇪", count: 257)) == String(repeating: "🇬🇪", count: 255) + "…")
        #expect(NetworkValueBounds.identifier(String(repeating: "é", count: 5000)).count == NetworkValueBounds.maximumIdentifierLength)
        #expect(NetworkValueBounds.text("", limit: 0) == "")
    }

    @Test func aLongTextIsCutLookingAtItsStartOnly() {
        // Cutting looks at the first `limit` characters only, however long the text (a network
        // may send megabytes; the hostile-network suite sends 5 MB over HTTP).
        let huge = String(repeating: "x", count: 1 << 18)
        #expect(NetworkValueBounds.text(huge).count == NetworkValueBounds.maximumTextLength)
        #expect(!NetworkValueBounds.fits(huge, limit: NetworkValueBounds.maximumURLLength))
        #expect(NetworkValueBounds.fits(String(repeating: "x", count: 2048), limit: 2048))
        #expect(NetworkValueBounds.fits(String(repeating: "ü", count: 2048), limit: 2048))
    }

    @Test func webURLsAreHTTPWithAHostAndNoUserInfo() {
        #expect(NetworkValueBounds.webURL("https://t.example/imp?x=1")?.host == "t.example")
        #expect(NetworkValueBounds.webURL("http://127.0.0.1:8080/imp") != nil)
        for refused in ["javascript:alert(1)", "file:///etc/passwd", "ftp://t.example/x", "https://user:pw@t.example/", "https:///nohost", "not a url",
                        "https://t.example/" + String(repeating: "p", count: 2048)] {
            #expect(NetworkValueBounds.webURL(refused) == nil, "\(refused.prefix(40))")
        }
    }

    @Test func listsKeepTheirFirstSixtyFour() {
        #expect(NetworkValueBounds.prefix(Array(0..<5000)) == Array(0..<64))
        #expect(NetworkValueBounds.prefix([1, 2, 3]) == [1, 2, 3])
    }

    @Test func pricesAreFiniteFromZeroToAMillion() {
        for valid in [0, 0.01, 2.35, 1_000_000] {
            #expect(NetworkValueBounds.isValidPrice(valid), "\(valid)")
        }
        for invalid in [-0.01, 1_000_000.01, 1e300, .nan, .infinity, -.infinity] {
            #expect(!NetworkValueBounds.isValidPrice(invalid), "\(invalid)")
        }
    }
}

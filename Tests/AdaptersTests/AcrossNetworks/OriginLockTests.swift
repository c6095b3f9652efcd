import Foundation
import Mediation
import Testing
@testable import Adapters

/// Engine rule R17: a network's transport is locked to its configured origin; URLs from its
/// answers reach other origins only where its document says so, never a sandbox host.
@Suite("Origin lock (R17)", .serialized)
struct OriginLockTests {
    /// Answers 200 to whatever reaches it, and remembers the URLs.
    final class RecordingTransport: HTTP.Transport {
        let urls = Locked<[URL]>([])

        func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
            urls.withLock { $0.append(request.url) }
            return HTTP.Response(statusCode: 200)
        }
    }

    static func url(_ text: String) throws -> URL {
        try #require(URL(string: text))
    }

    @Test func originsCompareSchemeHostAndPort() throws {
        let origin = try #require(HTTP.OriginLockedTransport.Origin(try Self.url("HTTPS://Ads.Example.com./v1/bid?x=1")))
        #expect(origin.description == "https://ads.example.com:443")
        #expect(origin == HTTP.OriginLockedTransport.Origin(try Self.url("https://ads.example.com:443/other")))
        #expect(origin.contains(try Self.url("https://user:pw@ads.example.com/path")))
        #expect(!origin.contains(try Self.url("http://ads.example.com/v1/bid")))
        #expect(!origin.contains(try Self.url("https://ads.example.com:8443/v1/bid")))
        #expect(!origin.contains(try Self.url("https://evil.example.com/v1/bid")))
        #expect(HTTP.OriginLockedTransport.Origin(try Self.url("http://127.0.0.1/x"))?.port == 80)
        #expect(HTTP.OriginLockedTransport.Origin(try Self.url("ftp://ads.example.com/x")) == nil)
        #expect(HTTP.OriginLockedTransport.Origin(try Self.url("file:///etc/passwd")) == nil)
        // A port no request can reach is no origin (URL parses it; every request would fail
        // with an opaque "bad URL" error instead of the URL being refused where it is given).
        #expect(HTTP.OriginLockedTransport.Origin(try Self.url("http://127.0.0.1:99999/x")) == nil)
        #expect(HTTP.OriginLockedTransport.Origin(try Self.url("http://127.0.0.1:0/x")) == nil)
        #expect(HTTP.OriginLockedTransport.Origin(try Self.url("http://127.0.0.1:65535/x"))?.port == 65535)
    }

    @Test func aLockedTransportSendsOnlyToItsOrigin() async throws {
        let base = RecordingTransport()
        let lock = HTTP.OriginLockedTransport(base, endpoint: try Self.url("http://127.0.0.1:8080/elo"))
        _ = try await lock.send(HTTP.Request(url: try Self.url("http://127.0.0.1:8080/elo/v1/bid")))
        for refused in ["http://127.0.0.1:8081/v1/bid", "https://127.0.0.1:8080/v1/bid", "http://localhost:8080/v1/bid", "file:///tmp/x"] {
            let error = await #expect(throws: HTTP.TransportError.self) {
                _ = try await lock.send(HTTP.Request(url: try Self.url(refused + "?secret=1")))
            }
            #expect(error?.kind == .invalidRequest, "\(refused)")
            #expect(error?.message.contains("secret") == false)
            #expect(error?.message.contains("not the network's origin http://127.0.0.1:8080") == true)
        }
        #expect(base.urls.withLock { $0 }.map(\.absoluteString) == ["http://127.0.0.1:8080/elo/v1/bid"])
    }

    @Test func answerURLsReachOtherOriginsButNeverASandbox() throws {
        let lock = HTTP.OriginLockedTransport(RecordingTransport(), endpoint: try Self.url("https://sandbox.elo.test"), reach: SandboxHosts.answerURLs)
        #expect(lock.permits(try Self.url("https://sandbox.elo.test/t/render?ad=1")), "its own origin, a sandbox")
        #expect(lock.permits(try Self.url("https://t.elo.test/imp")))
        #expect(lock.permits(try Self.url("http://127.0.0.1:9000/imp")))
        #expect(!lock.permits(try Self.url("https://nitx.sandbox/api/sdk/events")), "another network's sandbox")
        #expect(!lock.permits(try Self.url("https://SANDBOX.QARTVELO.TEST/v1/events/impression")))
        #expect(!lock.permits(try Self.url("https://user:pw@t.elo.test/imp")), "user info")
        #expect(!lock.permits(try Self.url("javascript:alert(1)")))
        #expect(!lock.permits(try Self.url("file:///etc/passwd")))

        let live = HTTP.OriginLockedTransport(RecordingTransport(), endpoint: try Self.url("https://ads.elo.example"), reach: SandboxHosts.answerURLs)
        #expect(!live.permits(try Self.url("https://sandbox.elo.test/t/render")), "a live network's answer cannot reach a sandbox")
        #expect(SandboxHosts.all == ["sandbox.elo.test", "nitx.sandbox", "sandbox.qartvelo.test"])
    }

    @Test func anEndpointThatIsNotHTTPPermitsNothing() throws {
        let lock = HTTP.OriginLockedTransport(RecordingTransport(), endpoint: URL(fileURLWithPath: "/"))
        #expect(lock.origin == nil)
        #expect(!lock.permits(try Self.url("http://127.0.0.1/x")))
    }
}

import Foundation
import Mediation
import Testing
@testable import Adapters

@Suite("Loopback server")
struct LoopbackServerTests {
    @Test func servesScriptedRoutesAndRecordsRequests() async throws {
        let server = try await LoopbackServer(single: ["POST /bid": .json(#"{"ok":true}"#)])
        defer { server.stop() }
        let transport = HTTP.SystemTransport()
        let request = HTTP.Request(method: "POST", url: server.baseURL.appendingPathComponent("bid"), headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
        let response = try await transport.send(request)
        #expect(response.statusCode == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"ok":true}"#)
        let received = try await server.receivedRequests()
        #expect(received.map(\.path) == ["/bid"])
        #expect(received.first?.body == "{}")
    }

    @Test func connectionRefusedIsATransportError() async throws {
        let port = try await LoopbackServer.closedPort()
        let transport = HTTP.SystemTransport()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/bid"))
        await #expect(throws: HTTP.TransportError.self) {
            _ = try await transport.send(HTTP.Request(url: url))
        }
    }
}

@Suite("System transport limits")
struct SystemTransportLimitTests {
    @Test func aBodyOverTheLimitIsRefused() async throws {
        let server = try await LoopbackServer(single: ["GET /big": .json(String(repeating: "x", count: 5000))])
        defer { server.stop() }
        let transport = HTTP.SystemTransport(maximumResponseBytes: 1000)
        let error = await #expect(throws: HTTP.TransportError.self) {
            _ = try await transport.send(HTTP.Request(url: server.baseURL.appendingPathComponent("big")))
        }
        #expect(error?.kind == .responseTooLarge)
        #expect(error?.message == "response body of 5000 bytes exceeds the 1000-byte limit")
    }

    @Test func aBodyOverTheLimitWithoutContentLengthIsRefusedAsItArrives() async throws {
        // No Content-Length, the body trickled in chunks: the limit applies to the bytes received.
        let server = try await LoopbackServer(single: [
            "GET /drip": .init(bodyParts: [.init(text: "z", count: 3000)], drip: .init(bytes: 500, intervalMilliseconds: 1), noLength: true),
        ])
        defer { server.stop() }
        let transport = HTTP.SystemTransport(maximumResponseBytes: 1000)
        let error = await #expect(throws: HTTP.TransportError.self) {
            _ = try await transport.send(HTTP.Request(url: server.baseURL.appendingPathComponent("drip")))
        }
        #expect(error?.kind == .responseTooLarge)
        #expect(error?.message == "response body exceeds the 1000-byte limit")
    }

    /// A compressed bomb whose compressed size outgrows every socket buffer: the transport stops
    /// reading (and decompressing) at the limit, so the server cannot write the rest of it. No
    /// `Content-Length` (the body ends when the server closes), so only the count of decoded
    /// bytes can stop it, as for a bomb whose compressed size is under the limit.
    @Test func aCompressedBodyIsNotReadPastTheLimit() async throws {
        let whole = 64 << 20
        let server = try await LoopbackServer(single: ["GET /bomb": .init(noLength: true, gzipRandom: whole)])
        defer { server.stop() }
        let transport = HTTP.SystemTransport(maximumResponseBytes: 1 << 20)
        let error = await #expect(throws: HTTP.TransportError.self) {
            _ = try await transport.send(HTTP.Request(url: server.baseURL.appendingPathComponent("bomb")))
        }
        #expect(error?.kind == .responseTooLarge)
        let sent = try #require(try await server.receivedRequests(settled: true).first { $0.path == "/bomb" }).sent
        // What the socket buffers hold (a few MiB on loopback) goes out; the rest must not.
        #expect(sent < whole / 4, "the server wrote \(sent) of \(whole) compressed bytes: the transport read on past its limit")
    }

    @Test func aBodyAtTheLimitIsKept() async throws {
        let server = try await LoopbackServer(single: ["GET /fits": .json(String(repeating: "y", count: 1000))])
        defer { server.stop() }
        let transport = HTTP.SystemTransport(maximumResponseBytes: 1000)
        let response = try await transport.send(HTTP.Request(url: server.baseURL.appendingPathComponent("fits")))
        #expect(response.body.count == 1000)
        #expect(response.statusCode == 200)
    }
}

/// Engine rule R17: a redirect is followed only on the origin of the request's URL, at most
/// three times; anything else fails with the redirect's status and the target's origin only.
@Suite("System transport redirects (R17)", .serialized)
struct SystemTransportRedirectTests {
    /// One transport for the suite.
    static let transport = HTTP.SystemTransport()

    /// Two servers for the suite's cross-origin cases (process launches are not free): `other`
    /// serves an ad at `/ad<status>`, `server` redirects `/go<status>` to it.
    static let servers = Task<(server: LoopbackServer, other: LoopbackServer), any Error> {
        let statuses = [301, 302, 303, 307, 308]
        let other = try await LoopbackServer(single: Dictionary(uniqueKeysWithValues: statuses.map { ("GET /ad\($0)", LoopbackServer.Response.json(#"{"ad":"from elsewhere"}"#)) }))
        let server = try await LoopbackServer(single: Dictionary(uniqueKeysWithValues: statuses.map {
            ("GET /go\($0)", LoopbackServer.Response.redirect($0, to: "\(other.baseURL.absoluteString)/ad\($0)?user=secret"))
        }))
        return (server, other)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func aRedirectToAnotherPortIsRefusedWithItsStatus(status: Int) async throws {
        let (server, other) = try await Self.servers.value
        let error = await #expect(throws: HTTP.TransportError.self) {
            _ = try await Self.transport.send(HTTP.Request(url: server.baseURL.appendingPathComponent("go\(status)")))
        }
        #expect(error?.kind == .redirectRefused)
        #expect(error?.status == status)
        #expect(error?.message == "HTTP \(status) redirect to http://127.0.0.1:\(other.port) refused: it leaves http://127.0.0.1:\(server.port)")
        #expect(error?.message.contains("secret") == false, "the target's path and query never appear")
        #expect(try await other.receivedRequests().filter { $0.path == "/ad\(status)" }.isEmpty, "the other origin is never asked")
    }

    @Test func aRedirectToAnotherHostOrSchemeIsRefused() async throws {
        let server = try await LoopbackServer(single: [
            "GET /host": .redirect(302, to: "http://localhost:1/x"),
            "GET /scheme": .redirect(302, to: "ftp://127.0.0.1/x"),
        ])
        defer { server.stop() }
        let host = await #expect(throws: HTTP.TransportError.self) {
            _ = try await Self.transport.send(HTTP.Request(url: server.baseURL.appendingPathComponent("host")))
        }
        #expect(host?.kind == .redirectRefused)
        #expect(host?.message == "HTTP 302 redirect to http://localhost:1 refused: it leaves http://127.0.0.1:\(server.port)")
        let scheme = await #expect(throws: HTTP.TransportError.self) {
            _ = try await Self.transport.send(HTTP.Request(url: server.baseURL.appendingPathComponent("scheme")))
        }
        #expect(scheme?.kind == .redirectRefused)
        #expect(scheme?.status == 302)
    }

    @Test func threeSameOriginRedirectsAreFollowed() async throws {
        let server = try await LoopbackServer(single: [
            "GET /a": .redirect(302, to: "/b"),
            "POST /b": .redirect(307, to: "/c"),
            "GET /b": .redirect(307, to: "/c"),
            "GET /c": .redirect(301, to: "/d"),
            "GET /d": .json(#"{"ok":true}"#),
        ])
        defer { server.stop() }
        let response = try await Self.transport.send(HTTP.Request(url: server.baseURL.appendingPathComponent("a")))
        #expect(response.statusCode == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"ok":true}"#)
        #expect(try await server.receivedRequests().map(\.path) == ["/a", "/b", "/c", "/d"])
    }

    @Test func aFourthRedirectAndALoopAreRefused() async throws {
        let server = try await LoopbackServer(single: [
            "GET /a": .redirect(302, to: "/b"),
            "GET /b": .redirect(302, to: "/c"),
            "GET /c": .redirect(302, to: "/d"),
            "GET /d": .redirect(307, to: "/e"),
            "GET /e": .json(#"{"ok":true}"#),
            "GET /loop": .redirect(302, to: "/loop"),
        ])
        defer { server.stop() }
        let fourth = await #expect(throws: HTTP.TransportError.self) {
            _ = try await Self.transport.send(HTTP.Request(url: server.baseURL.appendingPathComponent("a")))
        }
        #expect(fourth?.kind == .redirectRefused)
        #expect(fourth?.status == 307)
        #expect(fourth?.message == "HTTP 307 redirect refused: more than 3 redirects")
        let loop = await #expect(throws: HTTP.TransportError.self) {
            _ = try await Self.transport.send(HTTP.Request(url: server.baseURL.appendingPathComponent("loop")))
        }
        #expect(loop?.kind == .redirectRefused)
        #expect(loop?.status == 302)
        #expect(try await server.receivedRequests().map(\.path) == ["/a", "/b", "/c", "/d", "/loop", "/loop", "/loop", "/loop"])
    }

    @Test("a URL whose scheme is written in capitals (HTTP://, as `--config-url` accepts it) is sent, not refused as unsupported")
    func aSchemeInCapitalsIsSent() async throws {
        let server = try await LoopbackServer(single: ["GET /config.json": .json(#"{"ok":true}"#)])
        defer { server.stop() }
        let text = server.baseURL.appendingPathComponent("config.json").absoluteString
        let url = try #require(URL(string: "HTTP" + text.dropFirst("http".count)))
        let response = try await Self.transport.send(HTTP.Request(url: url))
        #expect(response.statusCode == 200)
        #expect(try await server.receivedRequests().map(\.path) == ["/config.json"])
    }

    @Test func aURLThatIsNotHTTPIsNotSent() async throws {
        let url = try #require(URL(string: "file:///etc/passwd"))
        let error = await #expect(throws: HTTP.TransportError.self) {
            _ = try await Self.transport.send(HTTP.Request(url: url))
        }
        #expect(error?.kind == .invalidRequest)
    }
}

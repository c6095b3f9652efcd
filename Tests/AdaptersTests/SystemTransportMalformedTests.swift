import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// No byte sequence from a server may stop the process: every malformed or cut-off response is
/// a transport error (a `Content-Length` shorter than the body is the announced bytes), by GET
/// and by POST. FoundationNetworking's URLSession stopped the process on a status line alone.
@Suite("System transport: malformed responses")
struct SystemTransportMalformedTests {
    /// One server answering every shape at `GET|POST /<name>`, started once for the suite.
    static let server = Task<LoopbackServer, any Error> {
        var routes: [String: LoopbackServer.Response] = [:]
        for shape in MalformedHTTPResponse.all {
            for method in ["GET", "POST"] {
                routes["\(method) /\(shape.name)"] = .raw(shape.bytes, holdMilliseconds: shape.holdMilliseconds)
            }
        }
        routes["GET /latin1-header"] = .raw("HTTP/1.1 200 OK\r\nX-Note: caf\u{E9}\r\nX-Bin\u{E9}: ignored\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
        routes["GET /hold"] = LoopbackServer.Response(never: true, holdMilliseconds: 240_000)
        return try await LoopbackServer(single: routes)
    }

    static let transport = HTTP.SystemTransport(backstopTimeout: 10)

    @Test(arguments: MalformedHTTPResponse.all, ["GET", "POST"])
    func aMalformedResponseIsATransportError(shape: MalformedHTTPResponse, method: String) async throws {
        let server = try await Self.server.value
        let request = HTTP.Request(method: method, url: server.baseURL.appendingPathComponent(shape.name), headers: ["Content-Type": "application/json"], body: method == "POST" ? Data(#"{"id":"x"}"#.utf8) : nil)
        do {
            let response = try await Self.transport.send(request)
            // Only a body longer than its Content-Length is a response: the announced bytes.
            #expect(shape.name == "lengthShorterThanBody", "\(shape.name) answered \(response.statusCode)")
            #expect(response.statusCode == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"id""#)
        } catch {
            #expect(shape.name != "lengthShorterThanBody", "\(error)")
            #expect(error.kind == .connection, "\(shape.name): \(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test("a response header value that is not UTF-8 (caf\\xE9) is read as Latin-1, and a field name that is not a token is ignored: the response is kept")
    func aLatin1HeaderValueIsKept() async throws {
        let server = try await Self.server.value
        let response = try await Self.transport.send(HTTP.Request(url: server.baseURL.appendingPathComponent("latin1-header")))
        #expect(response.statusCode == 200)
        #expect(response.headers["X-Note"] == "café")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(!response.headers.keys.contains { $0.hasPrefix("X-Bin") })
        #expect(response.body == Data("{}".utf8))
    }

    @Test("cancelling the calling task answers cancelled while the server still holds the connection")
    func cancellationAnswersAtOnce() async throws {
        let server = try await Self.server.value
        let url = server.baseURL.appendingPathComponent("hold")
        // A backstop far beyond the wait below, so that only a cancellation that does not work
        // can end the request (a loaded machine, the thread sanitizer's run, may take seconds to
        // see the request arrive).
        let transport = HTTP.SystemTransport(backstopTimeout: 300)
        let task = Task { () -> HTTP.TransportError? in
            do throws(HTTP.TransportError) {
                _ = try await transport.send(HTTP.Request(url: url))
                return nil
            } catch {
                return error
            }
        }
        // Cancelled once the server has the request (the server holds it for 240 s).
        while try await !server.receivedRequests().contains(where: { $0.path == "/hold" }) {
            await Task.yield()
        }
        task.cancel()
        let error = await task.value
        #expect(error?.kind == .cancelled)
    }

    @Test("a method or header field that cannot be sent is an invalid request, never sent")
    func unsendableRequestsAreInvalid() async throws {
        let server = try await Self.server.value
        let url = server.baseURL.appendingPathComponent("statusLineOnly")
        for request in [
            HTTP.Request(method: "GE T", url: url),
            HTTP.Request(url: url, headers: ["X-Injected": "a\r\nHost: evil"]),
            HTTP.Request(url: url, headers: ["Bad Name": "x"]),
        ] {
            let error = await #expect(throws: HTTP.TransportError.self) {
                _ = try await Self.transport.send(request)
            }
            #expect(error?.kind == .invalidRequest)
        }
    }

    @Test("the request's method, headers and body reach the server; the transport's User-Agent goes where the request sets none")
    func requestReachesTheServer() async throws {
        let server = try await LoopbackServer(single: ["PUT /echo": .json("{}"), "GET /agent": .json("{}")])
        defer { server.stop() }
        let transport = HTTP.SystemTransport(userAgent: "tester/1.2.3")
        let put = try await transport.send(HTTP.Request(method: "PUT", url: server.baseURL.appendingPathComponent("echo"), headers: ["X-One": "1", "Content-Type": "text/plain", "User-Agent": "own/9"], body: Data("hello".utf8)))
        #expect(put.statusCode == 200)
        _ = try await transport.send(HTTP.Request(url: server.baseURL.appendingPathComponent("agent")))
        let received = try await server.receivedRequests()
        #expect(received.map(\.method) == ["PUT", "GET"])
        #expect(received.first?.body == "hello")
        #expect(received.first?.headers["x-one"] == "1")
        #expect(received.first?.headers["user-agent"] == "own/9")
        #expect(received.last?.headers["user-agent"] == "tester/1.2.3")
    }
}

import Foundation
import Mediation
import Testing
@testable import Adapters

@Suite("Loopback server")
struct LoopbackServerTests {
    @Test func servesScriptedRoutesAndRecordsRequests() async throws {
        let server = try await LoopbackServer(single: ["POST /bid": .json(#"{"ok":true}"#)])
        defer { server.stop() }
        let transport = URLSessionTransport()
        let request = HTTPRequest(method: "POST", url: server.baseURL.appendingPathComponent("bid"), headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
        let response = try await transport.send(request)
        #expect(response.statusCode == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"ok":true}"#)
        let received = try await server.receivedRequests()
        #expect(received.map(\.path) == ["/bid"])
        #expect(received.first?.body == "{}")
    }

    @Test func connectionRefusedIsATransportError() async throws {
        let port = try await LoopbackServer.closedPort()
        let transport = URLSessionTransport()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/bid"))
        await #expect(throws: TransportError.self) {
            _ = try await transport.send(HTTPRequest(url: url))
        }
    }
}

@Suite("URLSession transport limits")
struct URLSessionTransportLimitTests {
    @Test func aBodyOverTheLimitIsRefused() async throws {
        let server = try await LoopbackServer(single: ["GET /big": .json(String(repeating: "x", count: 5000))])
        defer { server.stop() }
        let transport = URLSessionTransport(maximumResponseBytes: 1000)
        await #expect(throws: TransportError.self) {
            _ = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("big")))
        }
    }

    @Test func aBodyAtTheLimitIsKept() async throws {
        let server = try await LoopbackServer(single: ["GET /fits": .json(String(repeating: "y", count: 1000))])
        defer { server.stop() }
        let transport = URLSessionTransport(maximumResponseBytes: 1000)
        let response = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("fits")))
        #expect(response.body.count == 1000)
        #expect(response.statusCode == 200)
    }
}

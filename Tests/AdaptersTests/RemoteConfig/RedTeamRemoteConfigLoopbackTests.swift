import Adapters
import Foundation
@testable import Mediation
import MediationTestKit
import Testing

/// Red-team configuration servers against a real socket (engine rule R22): a gzip bomb, a body
/// over the limit with no length, a redirect to another port of the same host, a 304 with
/// nothing held, a gzip-compressed good envelope. The app keeps serving ads from the best valid
/// configuration, says why, and never takes more than the loader's limit into memory.
@Suite("Red team: hostile configuration servers over loopback", .serialized)
struct RedTeamRemoteConfigLoopbackTests {
    private typealias Base = RemoteConfigLoopbackTests

    @Test("a gzip bomb (a few KB on the wire inflating to 20 MB) is cut at the limit: too_large, the bundled configuration serves")
    func gzipBomb() async throws {
        let server = try await LoopbackServer(single: ["GET /config.json": .init(status: 200, bodyParts: [.init(text: "{", count: 20_000_000)], gzip: true)])
        defer { server.stop() }
        let harness = try Base.Harness(url: server.baseURL.appendingPathComponent("config.json"))
        let update = try await harness.firstCheck()
        #expect(update.code == .tooLarge && update.isWarning, "\(update)")
        #expect(harness.engine.configurationVersion == 0)
        #expect(try await harness.auctionVersion() == 0)
        await harness.shutdown()
    }

    @Test("a good envelope sent gzip-compressed is taken like any other")
    func gzipGoodEnvelope() async throws {
        let server = try await LoopbackServer(single: ["GET /config.json": .init(status: 200, body: try Base.signed(2), gzip: true)])
        defer { server.stop() }
        let harness = try Base.Harness(url: server.baseURL.appendingPathComponent("config.json"))
        let update = try await harness.firstCheck()
        #expect(update.outcome == .applied && update.runningVersion == 2, "\(update)")
        #expect(try await harness.auctionVersion() == 2)
        await harness.shutdown()
    }

    @Test("a 5 MB body with no Content-Length, trickled, is cut at the limit")
    func unannouncedHugeBody() async throws {
        let server = try await LoopbackServer(single: ["GET /config.json": .init(status: 200, bodyParts: [.init(text: " ", count: 5_000_000)], noLength: true)])
        defer { server.stop() }
        let harness = try Base.Harness(url: server.baseURL.appendingPathComponent("config.json"))
        let update = try await harness.firstCheck()
        #expect(update.code == .tooLarge && update.isWarning, "\(update)")
        #expect(try await harness.auctionVersion() == 0)
        await harness.shutdown()
    }

    @Test("a redirect to another port of the same host is off the origin: refused, never followed")
    func redirectToAnotherPort() async throws {
        let elsewhere = try await LoopbackServer(single: ["GET /config.json": .init(status: 200, body: try Base.signed(5))])
        defer { elsewhere.stop() }
        let target = try #require(URL(string: "http://localhost:\(elsewhere.baseURL.port ?? 0)/config.json"))
        for location in [elsewhere.baseURL.appendingPathComponent("config.json").absoluteString, target.absoluteString] {
            let server = try await LoopbackServer(single: ["GET /config.json": .redirect(307, to: location)])
            let harness = try Base.Harness(url: server.baseURL.appendingPathComponent("config.json"))
            let update = try await harness.firstCheck()
            #expect(update.code == .redirectRefused && update.isWarning, "\(location): \(update)")
            #expect(try await harness.auctionVersion() == 0)
            await harness.shutdown()
            server.stop()
        }
        #expect(try await elsewhere.receivedRequests().isEmpty, "the redirect was followed")
    }

    @Test("a 304 with nothing held keeps the bundled configuration and sends no made-up tag back")
    func notModifiedWithNothingHeld() async throws {
        let server = try await LoopbackServer(routes: ["GET /config.json": [
            .init(status: 304, headers: ["ETag": "\"v7\""]),
            .init(status: 200, body: try Base.signed(7), headers: ["ETag": "\"v7\""]),
        ]])
        defer { server.stop() }
        let harness = try Base.Harness(url: server.baseURL.appendingPathComponent("config.json"))
        #expect(try await harness.firstCheck().code == .notModified)
        #expect(harness.engine.configurationVersion == 0)
        let second = try #require(await harness.engine.checkConfiguration())
        #expect(second.outcome == .applied && second.runningVersion == 7)
        let requests = try await server.receivedRequests()
        #expect(requests.count == 2 && requests[1].headers["if-none-match"] == nil)
        await harness.shutdown()
    }
}

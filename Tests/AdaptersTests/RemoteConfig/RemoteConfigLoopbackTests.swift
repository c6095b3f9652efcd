import Adapters
import Foundation
@testable import Mediation
import MediationTestKit
import Testing

/// The remote configuration's fault matrix against a real socket: `HTTP.SystemTransport` to the
/// loopback server, on the manual clock (the fetch timeout fires at its virtual instant). In
/// every case the engine keeps serving ads from the best valid configuration, an event says why
/// (a warning for every refusal and failure), and every ad is released once.
@Suite("Remote configuration over loopback HTTP", .serialized)
struct RemoteConfigLoopbackTests {
    /// A fixed signing key (the RFC 8032 test 1 seed).
    static let key: ConfigurationSigningKey? = try? ConfigurationSigningKey(seed: [
        0x9d, 0x61, 0xb1, 0x9d, 0xef, 0xfd, 0x5a, 0x60, 0xba, 0x84, 0x4a, 0xf4, 0x92, 0xec, 0x2c, 0xc4,
        0x44, 0x49, 0xc5, 0x69, 0x7b, 0x32, 0x69, 0x19, 0x70, 0x3b, 0xac, 0x03, 0x1c, 0xae, 0x7f, 0x60,
    ])

    /// A configuration of one fallback network that always fills at once, at `eCPM`, with the
    /// interstitial `level_end`; `extra` adds sources to it.
    static func config(eCPM: String, extra: String = "") -> String {
        """
        { "networks": {
            "house": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1, "latency_ms": 0 } },
            "qartvelo": { "adapter": "qartvelo", "endpoint": "sandbox", "credentials": { "app_id": "QV-APP-1" } } },
          "placements": { "level_end": { "format": "interstitial",
            "sources": [ \(extra){ "id": "house_le", "network": "house", "ad_unit_id": "u1", "ecpm": \(eCPM) } ] } } }
        """
    }

    static func signed(_ version: Int, eCPM: String = "1.2", config: String? = nil) throws -> String {
        let key = try #require(key)
        let data = try ConfigurationSigner.sign(Data((config ?? Self.config(eCPM: eCPM)).utf8), key: key, version: version, issuedAt: WallClockTime(millisecondsSince1970: 1_796_220_000_000), rollout: nil, registry: .standard)
        return String(decoding: data, as: UTF8.self)
    }

    /// An engine on the bundled version 0 (eCPM 0.5) whose remote configuration is `url`.
    final class Harness: Sendable {
        let clock = ManualClock()
        let recorder = EventRecorder()
        let engine: MediationEngine

        init(url: URL, store: any StateStore = MemoryStateStore()) throws {
            let key = try #require(RemoteConfigLoopbackTests.key)
            try store.setData(Data("00112233445566778899aabbccddeeff".utf8), forKey: "install.id")
            engine = try MediationEngine(
                bundledConfiguration: MediationConfiguration(json: RemoteConfigLoopbackTests.config(eCPM: "0.5"), registry: .standard),
                remote: MediationEngine.RemoteConfiguration(url: url, trustedKeys: [key.publicKey], transport: HTTP.SystemTransport(maximumResponseBytes: MediationEngine.RemoteConfiguration.maximumBodyBytes), timeout: .seconds(10)),
                registry: .standard,
                environment: MediationEnvironment(clock: clock, stateStore: store),
                onEvent: recorder.handler
            )
        }

        /// The check at launch (running at once on the clock), awaited over real HTTP: the
        /// launch check itself, whether it ended before this call or not.
        func firstCheck() async throws -> MediationEngine.RemoteConfiguration.Update {
            try #require(await engine.firstConfigurationCheck())
        }

        /// One auction now: the engine still serves ads, under which version.
        func auctionVersion() async throws -> Int {
            let outcome = try await engine.runAuction(placementID: "level_end", on: clock)
            outcome.winner?.ad.releaseResources()
            #expect(outcome.isFilled)
            return outcome.trace.configVersion
        }

        func shutdown() async {
            let engine = engine
            let task = clock.startTask { await engine.shutdown() }
            await clock.runUntilIdle()
            await task.value
        }
    }

    @Test("200 with a newer version applies it; then 304 (If-None-Match sent) keeps it; then 500 fails with a back-off and keeps it")
    func newerThenNotModifiedThenError() async throws {
        let server = try await LoopbackServer(routes: ["GET /config.json": [
            .init(status: 200, body: try Self.signed(2), headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60", "Content-Type": "application/json"]),
            .init(status: 304, headers: ["Cache-Control": "max-age=60"]),
            .init(status: 500, body: "oops"),
        ]])
        defer { server.stop() }
        let harness = try Harness(url: server.baseURL.appendingPathComponent("config.json"))
        let applied = try await harness.firstCheck()
        #expect(applied.outcome == .applied && applied.runningVersion == 2)
        #expect(try await harness.auctionVersion() == 2)
        let unchanged = try #require(await harness.engine.checkConfiguration())
        #expect(unchanged.outcome == .unchanged && unchanged.code == .notModified)
        let failed = try #require(await harness.engine.checkConfiguration())
        #expect(failed.outcome == .failed && failed.code == .httpStatus && failed.isWarning)
        #expect(failed.message.contains("500"))
        #expect(try await harness.auctionVersion() == 2)
        let requests = try await server.receivedRequests()
        #expect(requests.count == 3)
        #expect(requests[0].headers["if-none-match"] == nil && requests[1].headers["if-none-match"] == "\"v2\"")
        // The install id stays on the device: no request carries it, in any form.
        for request in requests {
            let wire = request.path + request.query + request.body + request.headers.map { $0.key + $0.value }.joined()
            #expect(!wire.contains("00112233445566778899aabbccddeeff"))
        }
        await harness.shutdown()
    }

    /// The transport-level faults: the case, the route's response (nil: nothing listens), the code.
    static let transportFaults: [(name: String, code: MediationEngine.RemoteConfiguration.Update.Code)] = [
        ("connection refused", .transport),
        ("redirect off the origin", .redirectRefused),
        ("truncated body", .transport),
        ("5 MB body", .tooLarge),
        ("429 with Retry-After", .serverBusy),
        ("503 with Retry-After", .serverBusy),
        ("invalid config inside a valid signature (R19)", .invalidConfig),
    ]

    @Test("a fault on the wire: the bundled configuration keeps serving, a warning says why", arguments: 0..<7)
    func transportFault(index: Int) async throws {
        let (name, code) = Self.transportFaults[index]
        let good = try Self.signed(2)
        var routes: [String: [LoopbackServer.Response]] = [:]
        var url: URL
        switch name {
        case "connection refused":
            url = URL(string: "http://127.0.0.1:\(try await LoopbackServer.closedPort())/config.json")!
        default:
            let elsewhere = try await LoopbackServer(single: ["GET /config.json": .init(status: 200, body: good)])
            defer { elsewhere.stop() }
            let response: LoopbackServer.Response
            switch name {
            case "redirect off the origin": response = .redirect(302, to: elsewhere.baseURL.appendingPathComponent("config.json").absoluteString)
            case "truncated body": response = LoopbackServer.Response(status: 200, body: good, resetAfter: good.utf8.count / 2)
            case "5 MB body": response = LoopbackServer.Response(status: 200, bodyParts: [.init(text: "x", count: 5_000_000)])
            case "429 with Retry-After": response = LoopbackServer.Response(status: 429, headers: ["Retry-After": "120"])
            // (The HTTP-date form of Retry-After is tested on the manual clock: this server
            // stamps every response with its own Date.)
            case "503 with Retry-After": response = LoopbackServer.Response(status: 503, headers: ["Retry-After": "300"])
            default:
                // Qartvelo serves banners only: a signed interstitial line item of it fails R19.
                let invalid = Self.config(eCPM: "1.2", extra: #"{ "id": "qv_le", "network": "qartvelo", "ad_unit_id": "qv-1", "ecpm": 2.0 }, "#)
                let payload = Array(invalid.replacingOccurrences(of: #"{ "networks""#, with: #"{ "config_version": 2, "issued_at": "2026-12-01T14:00:00Z", "networks""#).utf8)
                let key = try #require(Self.key)
                let envelope = SignedConfiguration(keyID: key.publicKey.id, signature: try key.sign(payload), payload: payload).rendered()
                response = LoopbackServer.Response(status: 200, body: String(decoding: envelope, as: UTF8.self))
            }
            routes["GET /config.json"] = [response]
            let server = try await LoopbackServer(routes: routes)
            url = server.baseURL.appendingPathComponent("config.json")
            let harness = try Harness(url: url)
            let update = try await harness.firstCheck()
            try await expectFault(update, name: name, code: code, harness: harness)
            if name == "redirect off the origin" {
                #expect(try await elsewhere.receivedRequests().isEmpty, "the redirect was followed")
            }
            server.stop()
            return
        }
        let harness = try Harness(url: url)
        let update = try await harness.firstCheck()
        try await expectFault(update, name: name, code: code, harness: harness)
    }

    private func expectFault(_ update: MediationEngine.RemoteConfiguration.Update, name: String, code: MediationEngine.RemoteConfiguration.Update.Code, harness: Harness) async throws {
        #expect(update.code == code, "\(name): \(update)")
        #expect(update.isWarning && update.runningVersion == 0, "\(name)")
        #expect(harness.engine.configurationVersion == 0)
        switch name {
        case "429 with Retry-After": #expect(update.nextCheckAt == update.at + .seconds(120))
        case "503 with Retry-After": #expect(update.nextCheckAt == update.at + .seconds(300))
        case "invalid config inside a valid signature (R19)": #expect(update.path == "placements.level_end.sources[0]", "\(name): \(String(describing: update.path))")
        default: #expect(update.nextCheckAt.map { $0 >= update.at + .seconds(60) } == true)
        }
        #expect(try await harness.auctionVersion() == 0, "\(name): the bundled configuration keeps serving")
        await harness.shutdown()
    }

    @Test("a server slower than the timeout, silent or trickling its body: the check fails at the timeout's instant on the clock saying no complete response came, and the request is abandoned",
          arguments: ["silent", "trickling"])
    func slowServer(kind: String) async throws {
        let body = try Self.signed(2)
        let response: LoopbackServer.Response = kind == "silent"
            ? .init(status: 200, body: body, delayMilliseconds: 20_000)
            : .init(status: 200, body: body, drip: .init(bytes: 1, intervalMilliseconds: 50)) // headers at once, the body over a minute
        let server = try await LoopbackServer(single: ["GET /config.json": response])
        defer { server.stop() }
        let harness = try Harness(url: server.baseURL.appendingPathComponent("config.json"))
        let engine = harness.engine
        // On the clock's executor, so the advance waits until the check is in flight and its
        // timeout is set (a plain task could start after the advance under load: no timeout).
        let check = harness.clock.startTask { await engine.checkConfiguration() }
        await harness.clock.advance(by: .seconds(10))
        let update = try #require(await check.value)
        #expect(update.code == .timeout && update.outcome == .failed && update.at == .origin + .seconds(10))
        #expect(update.message == "no complete response within the fetch timeout", "\(kind): \(update.message)")
        #expect(try await harness.auctionVersion() == 0)
        await harness.shutdown()
    }

    @Test("an old version served again after a newer one is refused, across a relaunch from the cache on disk")
    func oldVersionAcrossARelaunch() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("remote-config-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await LoopbackServer(routes: ["GET /config.json": [
            .init(status: 200, body: try Self.signed(3), headers: ["ETag": "\"v3\""]),
            .init(status: 200, body: try Self.signed(2), headers: ["ETag": "\"v2\""]),
        ]])
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("config.json")
        let first = try Harness(url: url, store: try FileStateStore(directory: directory))
        #expect(try await first.firstCheck().runningVersion == 3)
        await first.shutdown()
        let second = try Harness(url: url, store: try FileStateStore(directory: directory))
        #expect(second.engine.configurationVersion == 3 && second.engine.configurationSource == .cache)
        let refused = try #require(await second.engine.checkConfiguration())
        #expect(refused.outcome == .refused && refused.code == .notNewer && refused.runningVersion == 3)
        #expect(try await second.auctionVersion() == 3)
        await second.shutdown()
    }
}

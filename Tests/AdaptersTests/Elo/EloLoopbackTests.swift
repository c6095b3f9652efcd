import Foundation
import MediationTestKit
import Mediation
import Testing
@testable import Adapters

/// Elo over real HTTP: the URLSession transport against the loopback server.
@Suite("Elo over loopback HTTP", .serialized, .enabled(if: !ThreadSanitizer.isOn, "wall-clock deadlines: the plain pass runs these (see ThreadSanitizer)"))
struct EloLoopbackTests {
    /// A client on the system clock whose base URL is `baseURL`; its first request id is `id-3`.
    func client(baseURL: URL, clock: SystemClock) -> EloClient {
        EloFixtures.client(
            transport: HTTP.SystemTransport(),
            clock: clock,
            configuration: EloConfiguration(publisherID: "pub-1", adUnitID: "unit-1", baseURL: baseURL)
        )
    }

    func request(_ clock: SystemClock, budget: Duration = .seconds(3)) -> AdRequest {
        EloFixtures.request(deadline: clock.now + budget)
    }

    @Test func fillOverHTTPWithTrackingPings() async throws {
        // Tracking goes to a second server, whose port is known before the bid body is built.
        let server = try await LoopbackServer(routes: ["GET /imp": [.init(status: 204)]])
        defer { server.stop() }
        let body = EloFixtures.bidJSON(requestID: "id-3", price: 1.75, adID: "opp-9")
            .replacingOccurrences(of: "https://t.elo.test", with: server.baseURL.absoluteString)
        let bidServer = try await LoopbackServer(single: ["POST /v1/bid": .json(body)])
        defer { bidServer.stop() }

        let clock = SystemClock()
        let client = client(baseURL: bidServer.baseURL, clock: clock)
        let result = await client.loadAd(for: request(clock))
        guard case .loaded(let ad, let eCPM) = result else { Issue.record("expected a fill, got \(result)"); return }
        #expect(eCPM == 1.75)
        #expect(ad.id == "opp-9")
        #expect(ad.eloFormat == .strip)

        let received = try await bidServer.receivedRequests()
        #expect(received.map(\.path) == ["/v1/bid"])
        #expect(received.first?.method == "POST")
        #expect(received.first?.headers["content-type"] == "application/json")
        #expect(received.first?.headers["x-openrtb-version"] == "2.6")
        let sent = try JSONDecoder().decode(EloWireBidRequest.self, from: Data((received.first?.body ?? "").utf8))
        #expect(sent.id == "id-3")
        #expect(sent.imp.first?.tagid == "unit-chat")
        #expect(sent.ext.elo.messages.count == 2)

        ad.recordImpression()
        await ad.tracker?.drain()
        let pings = try await server.receivedRequests()
        #expect(pings.map(\.path) == ["/imp"])
        #expect(pings.first?.query == "ad=opp-9&visitor_id=id-1")
    }

    @Test func noBidsOn204() async throws {
        let server = try await LoopbackServer(single: ["POST /v1/bid": .init(status: 204)])
        defer { server.stop() }
        let clock = SystemClock()
        let result = await client(baseURL: server.baseURL, clock: clock).loadAd(for: request(clock))
        guard case .noFill(.noBids) = result else { Issue.record("expected noBids, got \(result)"); return }
    }

    @Test func serverErrorIsNetworkError() async throws {
        let server = try await LoopbackServer(single: ["POST /v1/bid": .json(#"{"error":"boom"}"#, status: 500)])
        defer { server.stop() }
        let clock = SystemClock()
        let result = await client(baseURL: server.baseURL, clock: clock).loadAd(for: request(clock))
        guard case .networkError(let detail, _) = result else { Issue.record("expected networkError, got \(result)"); return }
        #expect(detail == "HTTP 500")
    }

    /// Engine rule R17: a redirect off the configured origin is not followed (before, a 307 got
    /// the other server's bid, which then won); the no fill names the status.
    @Test(arguments: [302, 307])
    func aRedirectToAnotherOriginIsRefused(status: Int) async throws {
        let bid = EloFixtures.bidJSON(requestID: "id-3", price: 9)
        let other = try await LoopbackServer(single: ["POST /v1/bid": .json(bid), "GET /v1/bid": .json(bid)])
        defer { other.stop() }
        let server = try await LoopbackServer(single: ["POST /v1/bid": .redirect(status, to: "\(other.baseURL.absoluteString)/v1/bid")])
        defer { server.stop() }
        let clock = SystemClock()
        let result = await client(baseURL: server.baseURL, clock: clock).loadAd(for: request(clock))
        guard case .networkError(let detail, _) = result else { Issue.record("expected networkError, got \(result)"); return }
        #expect(detail == "redirectRefused: HTTP \(status) redirect to http://127.0.0.1:\(other.port) refused: it leaves http://127.0.0.1:\(server.port)")
        #expect(try await other.receivedRequests().isEmpty)
    }

    @Test func aRedirectLoopIsRefusedAfterThree() async throws {
        let server = try await LoopbackServer(single: ["POST /v1/bid": .redirect(307, to: "/v1/bid")])
        defer { server.stop() }
        let clock = SystemClock()
        let result = await client(baseURL: server.baseURL, clock: clock).loadAd(for: request(clock))
        guard case .networkError(let detail, _) = result else { Issue.record("expected networkError, got \(result)"); return }
        #expect(detail == "redirectRefused: HTTP 307 redirect refused: more than 3 redirects")
        #expect(try await server.receivedRequests().count == 4)
    }

    @Test func anOversizedBodyABadGzipAndAResetAreNetworkErrorsWithTheirKind() async throws {
        let server = try await LoopbackServer(single: [
            "POST /big/v1/bid": .init(bodyParts: [.init(text: "x", count: 9_000_000)]),
            "POST /gzip/v1/bid": .init(status: 200, body: "this is not gzip", headers: ["Content-Encoding": "gzip", "Content-Type": "application/json"]),
            "POST /reset/v1/bid": .init(body: EloFixtures.bidJSON(requestID: "id-3", price: 9), resetAfter: 20),
        ])
        defer { server.stop() }
        let clock = SystemClock()
        let big = await client(baseURL: server.baseURL.appendingPathComponent("big"), clock: clock).loadAd(for: request(clock))
        guard case .networkError(let bigDetail, _) = big else { Issue.record("expected networkError, got \(big)"); return }
        #expect(bigDetail == "responseTooLarge: response body of 9000000 bytes exceeds the 8388608-byte limit")
        let gzip = await client(baseURL: server.baseURL.appendingPathComponent("gzip"), clock: clock).loadAd(for: request(clock))
        guard case .networkError(let gzipDetail, _) = gzip else { Issue.record("expected networkError, got \(gzip)"); return }
        #expect(gzipDetail.hasPrefix("connection: "))
        let reset = await client(baseURL: server.baseURL.appendingPathComponent("reset"), clock: clock).loadAd(for: request(clock))
        guard case .networkError(let resetDetail, _) = reset else { Issue.record("expected networkError, got \(reset)"); return }
        #expect(resetDetail.hasPrefix("connection: "))
    }

    @Test func malformedJSONIsADecodingError() async throws {
        let server = try await LoopbackServer(single: ["POST /v1/bid": .json(#"{"id":"id-3","seatbid":[{"bid":[{"price":"#)])
        defer { server.stop() }
        let clock = SystemClock()
        let result = await client(baseURL: server.baseURL, clock: clock).loadAd(for: request(clock))
        guard case .error(let error) = result else { Issue.record("expected an error, got \(result)"); return }
        #expect(error == EloError(.decoding, "malformed bid response JSON"))
    }

    @Test func connectionRefusedIsNetworkError() async throws {
        let port = try await LoopbackServer.closedPort()
        let base = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let clock = SystemClock()
        let result = await client(baseURL: base, clock: clock).loadAd(for: request(clock))
        guard case .networkError(let detail, _) = result else { Issue.record("expected networkError, got \(result)"); return }
        #expect(detail.hasPrefix("connection: "))
    }
}

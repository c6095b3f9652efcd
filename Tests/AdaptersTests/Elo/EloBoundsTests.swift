import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Engine rules R16 and R17 for Elo: every value of an answer is bounded with
/// `NetworkValueBounds`, failures keep their detail, and nothing leaves the configured origin.
@Suite("Elo: bounded answers and detailed failures", .serialized)
struct EloBoundsTests {
    /// A one-bid answer for request `id-3` with `patch` applied to the bid's JSON object.
    static func answer(_ patch: (inout [String: Any]) -> Void, top: (inout [String: Any]) -> Void = { _ in }) throws -> String {
        let base = EloFixtures.bidJSON(requestID: "id-3", price: 2.35)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(base.utf8)) as? [String: Any])
        var seatbid = try #require(object["seatbid"] as? [[String: Any]])
        var bids = try #require(seatbid[0]["bid"] as? [[String: Any]])
        patch(&bids[0])
        seatbid[0]["bid"] = bids
        object["seatbid"] = seatbid
        top(&object)
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    static func load(_ body: String, request: AdRequest = EloFixtures.request(), transport: EloFakeTransport? = nil) async -> (EloAdResult, EloFakeTransport) {
        let transport = transport ?? EloFakeTransport { request in
            request.url.path.hasSuffix("/v1/bid") ? .success(EloFixtures.json(200, body)) : .success(HTTP.Response(statusCode: 204))
        }
        let client = EloFixtures.client(transport: transport)
        return (await client.loadAd(for: request), transport)
    }

    static func creative(_ patch: @escaping (inout [String: Any]) -> Void) -> (inout [String: Any]) -> Void {
        { bid in
            var ext = bid["ext"] as? [String: Any] ?? [:]
            var elo = ext["elo"] as? [String: Any] ?? [:]
            patch(&elo)
            ext["elo"] = elo
            bid["ext"] = ext
        }
    }

    @Test(arguments: [
        ("1e300", "price must be a finite number from 0 to 1000000"),
        ("1000000.01", "price must be a finite number from 0 to 1000000"),
        ("-1", "price must be a finite number from 0 to 1000000"),
    ])
    func absurdPricesAreInvalid(price: String, message: String) async throws {
        let body = EloFixtures.bidJSON(requestID: "id-3", price: 1).replacingOccurrences(of: #""price":1.0"#, with: #""price":\#(price)"#)
        #expect(body.contains(#""price":\#(price)"#))
        let (result, _) = await Self.load(body)
        guard case .error(let error) = result else { Issue.record("expected an error, got \(result)"); return }
        #expect(error == EloError(.decoding, message))
    }

    @Test func aMillionIsStillAPrice() async throws {
        let (result, _) = await Self.load(EloFixtures.bidJSON(requestID: "id-3", price: 1_000_000))
        guard case .loaded(_, let eCPM) = result else { Issue.record("expected a bid, got \(result)"); return }
        #expect(eCPM == 1_000_000)
    }

    @Test(arguments: [
        (1e308, 72.0, "ad size must be positive and at most 10000 pt"),
        (390.0, 1e308, "ad size must be positive and at most 10000 pt"),
        (10_000.5, 72.0, "ad size must be positive and at most 10000 pt"),
        (390.0, 121.0, "ad height 121.0 pt is taller than the slot's 120 pt"),
    ])
    func absurdSizesAreInvalid(width: Double, height: Double, message: String) async throws {
        let body = try Self.answer { $0["w"] = width; $0["h"] = height }
        let (result, _) = await Self.load(body)
        guard case .error(let error) = result else { Issue.record("expected an error, got \(result)"); return }
        #expect(error == EloError(.decoding, message))
    }

    @Test func aWidthBeyondTheSlotIsCutToIt() async throws {
        let body = try Self.answer { $0["w"] = 2000; $0["h"] = 72 }
        let (result, _) = await Self.load(body)
        guard case .loaded(let ad, _) = result else { Issue.record("expected a bid, got \(result)"); return }
        #expect(ad.size == AdSize(width: 390, height: 72))
        let (unbounded, _) = await Self.load(body, request: EloFixtures.request(maxWidth: nil))
        #expect(unbounded.loadedAd?.size == AdSize(width: 390, height: 72), "the screen's width bounds an unbounded slot")
    }

    @Test(arguments: [(Int.max, 86_400), (86_401, 86_400), (1800, 1800)])
    func theTTLIsCutToADay(exp: Int, seconds: Int) async throws {
        let (result, _) = await Self.load(try Self.answer { $0["exp"] = exp })
        #expect(result.loadedAd?.timeToLive == .seconds(seconds))
    }

    @Test func aTTLTooLargeForAnIntegerIsInvalid() async throws {
        let body = EloFixtures.bidJSON(requestID: "id-3", price: 1).replacingOccurrences(of: #""exp":1800"#, with: #""exp":1e30"#)
        let (result, _) = await Self.load(body)
        guard case .error(let error) = result else { Issue.record("expected an error, got \(result)"); return }
        #expect(error.category == .decoding)
    }

    @Test func idsAndTextAreCut() async throws {
        let long = String(repeating: "x", count: 5000)
        let body = try Self.answer({ bid in
            bid["crid"] = long
            Self.creative { elo in
                elo["title"] = long
                elo["description"] = long
                elo["cta_text"] = long
                elo["image_url"] = "https://img.elo.test/" + long
                elo["click_url"] = "javascript:alert(1)"
            }(&bid)
        }, top: { $0["bidid"] = long })
        let (result, _) = await Self.load(body)
        let ad = try #require(result.loadedAd)
        #expect(ad.id.count == NetworkValueBounds.maximumIdentifierLength)
        #expect(ad.id.hasSuffix("…"))
        #expect(ad.creativeID.count == NetworkValueBounds.maximumIdentifierLength)
        #expect(ad.title.count == NetworkValueBounds.maximumTextLength)
        #expect(ad.description?.count == NetworkValueBounds.maximumTextLength)
        #expect(ad.ctaText?.count == NetworkValueBounds.maximumTextLength)
        #expect(ad.imageURL == nil, "a URL over 2048 characters is dropped, never cut")
        #expect(ad.clickURL == nil, "only http(s) URLs")
    }

    @Test func thousandsOfBidsAndTrackersAreBounded() async throws {
        let trackers = (0..<5000).map { "https://t.elo.test/imp?n=\($0)" }
        var body = try Self.answer(Self.creative { elo in
            elo["tracking"] = ["render": trackers, "impression": trackers, "click": trackers]
        })
        // 3000 more bids after the first: only the first counts.
        let extra = Array(repeating: #"{"id":"b","impid":"1","price":9,"crid":"c","ext":{"elo":{"format":"strip","title":"t"}}}"#, count: 3000).joined(separator: ",")
        body = body.replacingOccurrences(of: "}]}]", with: "}," + extra + "]}]")
        let (result, transport) = await Self.load(body)
        guard case .loaded(let ad, let eCPM) = result else { Issue.record("expected a bid, got \(result)"); return }
        #expect(eCPM == 2.35)
        ad.recordImpression()
        await ad.tracker?.drain()
        #expect(transport.pings.count == NetworkValueBounds.maximumCount)
    }

    @Test func trackingNeverReachesASandboxOrANonWebURL() async throws {
        let body = try Self.answer(Self.creative { elo in
            elo["tracking"] = ["impression": ["https://nitx.sandbox/api/sdk/events", "https://t.elo.test/imp"],
                               "click": ["ftp://t.elo.test/click"],
                               "render": ["https://t.elo.test/" + String(repeating: "r", count: 3000)]]
        })
        let (result, transport) = await Self.load(body)
        let ad = try #require(result.loadedAd)
        ad.recordRender()
        ad.recordImpression()
        ad.recordClick()
        await ad.tracker?.drain()
        #expect(transport.pings.isEmpty, "each list stops at its first refused URL")
    }

    @Test func aRefusedRedirectIsANetworkErrorNamingItsStatus() async throws {
        let transport = EloFakeTransport { _ in
            .failure(HTTP.TransportError(kind: .redirectRefused, message: "HTTP 307 redirect to http://127.0.0.1:9 refused: it leaves https://sandbox.elo.test:443", status: 307))
        }
        let (result, _) = await Self.load("", transport: transport)
        guard case .networkError(let detail, let failure) = result else { Issue.record("expected networkError, got \(result)"); return }
        #expect(detail == "redirectRefused: HTTP 307 redirect to http://127.0.0.1:9 refused: it leaves https://sandbox.elo.test:443")
        #expect(failure.kind == .server && failure.code == EloErrorCode.redirectRefused.rawValue && failure.httpStatus == 307)
    }

    @Test func aHugeTransportMessageIsCut() async throws {
        // Long enough to show the cut; the hostile-network suite sends megabytes over HTTP.
        let message = String(repeating: "m", count: 300_000)
        let transport = EloFakeTransport { _ in .failure(HTTP.TransportError(kind: .connection, message: message)) }
        let (result, _) = await Self.load("", transport: transport)
        guard case .networkError(let detail, _) = result else { Issue.record("expected networkError, got \(result)"); return }
        #expect(detail.count == NetworkValueBounds.maximumTextLength)
        #expect(detail.hasPrefix("connection: mmm"))
    }

    @Test func theBidRequestNeverLeavesTheConfiguredOrigin() async throws {
        // A configuration whose base URL is not http(s): nothing is sent at all.
        let transport = EloFakeTransport(price: 2)
        let client = EloFixtures.client(transport: transport, configuration: EloConfiguration(publisherID: "p", adUnitID: "u", baseURL: URL(fileURLWithPath: "/tmp")))
        let result = await client.loadAd(for: EloFixtures.request())
        guard case .networkError(let detail, _) = result else { Issue.record("expected networkError, got \(result)"); return }
        #expect(detail.hasPrefix("invalidRequest: request to a URL that is not http(s) refused"))
        #expect(transport.requests.isEmpty)
    }
}

extension EloAdResult {
    /// The ad of a fill.
    var loadedAd: EloAd? {
        if case .loaded(let ad, _) = self { return ad }
        return nil
    }
}

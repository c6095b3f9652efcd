import Foundation
import Mediation
import Testing
@testable import Adapters

@Suite("Nitx slot answers")
struct NitxResponseParserTests {
    static let base = URL(string: "https://api.nitx.app") ?? URL(fileURLWithPath: "/")

    static func parse(_ body: String, status: Int = 200, format: NitxFormat = .banner320x50) -> NitxParsedAnswer {
        NitxResponseParser.parse(.json(Data(body.utf8), statusCode: status), requested: format, baseURL: base)
    }

    @Test func imageAd() {
        let answer = Self.parse(#"{"slot":{"code":"SLOT-A","format":"banner_320x50"},"ad":{"id":42,"name":"Summer sale","type":"image","path":"/creatives/42.png","click_url":"/api/clicks/42"}}"#)
        guard case .ad(let id, let format, let creative, let impression) = answer else {
            Issue.record("expected an ad, got \(answer)")
            return
        }
        #expect(id == "42")
        #expect(format == .banner320x50)
        #expect(creative.kind == .image)
        #expect(creative.url?.absoluteString == "https://api.nitx.app/creatives/42.png")
        #expect(creative.clickURL?.absoluteString == "https://api.nitx.app/api/clicks/42")
        #expect(impression == nil)
    }

    @Test func pathOnlyNativeAd() {
        let answer = Self.parse(#"{"ad":{"id":"n7","name":"Dates from Qassim","type":"image","path":"/creatives/n7.jpg"}}"#, format: .native)
        guard case .ad(_, _, let creative, _) = answer else {
            Issue.record("expected an ad, got \(answer)")
            return
        }
        #expect(creative.assets == NitxNativeAssets(headline: "Dates from Qassim", image: "/creatives/n7.jpg"))
    }

    @Test func structuredNativeAssets() {
        let answer = Self.parse(#"{"ad":{"id":1,"name":"N","type":"image","path":"/c/1.png","assets":{"headline":"H","body":"B","cta":"Buy","advertiser":"A","icon":"/i.png","image":"/m.png","video":"/v.mp4","rating":4.5,"price":"Free"}}}"#, format: .native)
        guard case .ad(_, _, let creative, _) = answer else {
            Issue.record("expected an ad, got \(answer)")
            return
        }
        #expect(creative.assets == NitxNativeAssets(headline: "H", body: "B", cta: "Buy", advertiser: "A", icon: "/i.png", image: "/m.png", video: "/v.mp4", rating: 4.5, price: "Free"))
    }

    @Test(arguments: [
        #"{"ad":{"id":1,"name":"x","type":"html","path":"/c/1.html"}}"#,
        #"{"ad":{"id":1,"name":"x","path":"/c/1.html"}}"#,
    ])
    func htmlIsACreativeFailure(body: String) {
        guard case .failure(let error) = Self.parse(body) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .creative)
        #expect(error.code == NitxErrorCode.htmlCreative.rawValue)
    }

    @Test(arguments: [(204, ""), (200, #"{"ad":null}"#), (200, ""), (200, "{}")])
    func noFill(status: Int, body: String) {
        #expect(Self.parse(body, status: status) == .noFill(NitxResponseParser.noAd))
    }

    @Test(arguments: ["not json", #"{"ad":{"id":true}}"#, #"{"ad":{"path":7}}"#, "[1,2]", #"{"ad":{"id":1}}"#])
    func malformedIsInvalidResponse(body: String) {
        guard case .failure(let error) = Self.parse(body) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .invalidResponse)
    }

    @Test func formatOfAnotherFamilyIsRejected() {
        guard case .failure(let error) = Self.parse(#"{"slot":{"format":"interstitial"},"ad":{"id":1,"path":"/c.png"}}"#) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == NitxErrorCode.formatMismatch.rawValue)
    }

    @Test(arguments: [(404, AdLoadResult.Error.Kind.configuration), (500, .server), (403, .server)])
    func errorStatuses(status: Int, kind: AdLoadResult.Error.Kind) {
        guard case .failure(let error) = Self.parse("{}", status: status) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == kind)
    }
}

/// Engine rule R16 for Nitx: every value of a slot answer is bounded with `NetworkValueBounds`;
/// error statuses keep their HTTP status.
@Suite("Nitx: bounded slot answers", .serialized)
struct NitxBoundsTests {
    static func parse(_ body: String, status: Int = 200, format: NitxFormat = .banner320x50) -> NitxParsedAnswer {
        NitxResponseParserTests.parse(body, status: status, format: format)
    }

    @Test(arguments: [500, 503, 418])
    func anErrorStatusCarriesIt(status: Int) {
        guard case .failure(let error) = Self.parse(#"{"error":"boom"}"#, status: status) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error == AdLoadResult.Error(kind: .server, code: NitxErrorCode.server.rawValue, message: "HTTP \(status)", httpStatus: status))
    }

    @Test func anUnknownSlotCarriesItsStatus() {
        guard case .failure(let error) = Self.parse("", status: 404) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.httpStatus == 404)
        #expect(error.code == NitxErrorCode.unknownSlot.rawValue)
    }

    @Test func idsTextAndAssetsAreCut() {
        let long = String(repeating: "q", count: 5000)
        let longPath = "/c/" + String(repeating: "p", count: 3000)
        let body = #"{"impression_id":"\#(long)","ad":{"id":"\#(long)","name":"\#(long)","type":"image","path":"/c/1.png","click_url":"\#(longPath)","assets":{"headline":"\#(long)","body":"\#(long)","cta":"\#(long)","advertiser":"\#(long)","icon":"\#(longPath)","image":"/m.png","video":"\#(longPath)","rating":1e308,"price":"\#(long)"}}}"#
        guard case .ad(let id, _, let creative, let impression) = Self.parse(body, format: .native) else {
            Issue.record("expected an ad")
            return
        }
        #expect(id.count == NetworkValueBounds.maximumIdentifierLength)
        #expect(impression?.count == NetworkValueBounds.maximumIdentifierLength)
        #expect(creative.name?.count == NetworkValueBounds.maximumTextLength)
        #expect(creative.clickURL == nil, "a path over 2048 characters is dropped")
        let assets = creative.assets
        for text in [assets.headline, assets.body, assets.cta, assets.advertiser, assets.price] {
            #expect(text?.count == NetworkValueBounds.maximumTextLength)
        }
        #expect(assets.icon == nil)
        #expect(assets.video == nil)
        #expect(assets.image == "/m.png")
        #expect(assets.rating == 5)
    }

    @Test(arguments: [
        #"{"ad":{"id":1,"type":"image","path":"/c/1.png","width":1e308,"height":50}}"#,
        #"{"ad":{"id":1,"type":"image","path":"/c/1.png","width":320,"height":-50}}"#,
        #"{"ad":{"id":1,"type":"image","path":"/c/1.png","width":0,"height":50}}"#,
        #"{"ad":{"id":1,"type":"image","path":"/c/1.png","width":10001,"height":50}}"#,
        #"{"ad":{"id":1,"type":"image","path":"/c/PATH"}}"#,
        #"{"ad":{"id":1e300,"type":"image","path":"/c/1.png"}}"#,
        #"{"ad":{"id":1,"type":"image","path":"/c/1.png","width":"wide"}}"#,
        "<html><body>Bad gateway</body></html>",
    ])
    func absurdValuesAreInvalid(body: String) {
        let body = body.replacingOccurrences(of: "PATH", with: String(repeating: "p", count: 3000))
        guard case .failure(let error) = Self.parse(body) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .invalidResponse)
        #expect(error.code == NitxErrorCode.invalidResponse.rawValue)
    }

    @Test func aHugeFormatNameIsCutInTheMessage() {
        let long = String(repeating: "f", count: 20_000)
        guard case .failure(let error) = Self.parse(#"{"slot":{"format":"\#(long)"},"ad":{"id":1,"type":"image","path":"/c/1.png"}}"#) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == NitxErrorCode.formatMismatch.rawValue)
        #expect(error.message.count <= NetworkValueBounds.maximumTextLength)
    }
}

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

    @Test(arguments: [(404, AdapterError.Kind.configuration), (500, .server), (403, .server)])
    func errorStatuses(status: Int, kind: AdapterError.Kind) {
        guard case .failure(let error) = Self.parse("{}", status: status) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == kind)
    }
}

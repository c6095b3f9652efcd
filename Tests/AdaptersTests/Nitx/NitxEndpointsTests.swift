import Foundation
import Testing
@testable import Adapters

@Suite("Nitx endpoints and request mode")
struct NitxEndpointsTests {
    static let base = URL(string: "https://api.nitx.app") ?? URL(fileURLWithPath: "/")

    @Test(arguments: [
        ("/api/sdk/ads", "https://api.nitx.app/api/sdk/ads" as String?),
        ("https://api.nitx.app/api/sdk/ads", "https://api.nitx.app/api/sdk/ads"),
        ("https://API.nitx.app:443/x", "https://API.nitx.app:443/x"),
        ("https://evil.example/api/sdk/ads", nil),
        ("//evil.example/api/sdk/ads", nil),
        ("http://api.nitx.app/api/sdk/ads", nil),      // another scheme
        ("https://api.nitx.app:8443/api", nil),        // another port
        ("api/sdk/ads", nil),                          // not a path from the root
        ("", nil),
        ("javascript:alert(1)", nil),
    ])
    func sameOrigin(path: String, expected: String?) {
        #expect(NitxEndpoints.sameOriginURL(path, base: Self.base)?.absoluteString == expected)
    }

    @Test func offOriginAdsEndpointIsIgnoredOthersKept() {
        let block = NitxWireSDKBlock(adsEndpoint: "https://evil.example/ads", eventsEndpoint: "/api/sdk/events", forgetEndpoint: "/api/sdk/forget")
        let (endpoints, ignored) = NitxEndpoints.resolve(block, base: Self.base)
        #expect(endpoints.ads == nil)
        #expect(endpoints.events?.absoluteString == "https://api.nitx.app/api/sdk/events")
        #expect(endpoints.forget?.absoluteString == "https://api.nitx.app/api/sdk/forget")
        #expect(ignored == ["ads_endpoint"])
    }

    @Test(arguments: [
        (NitxRequestModeOverride.auto, true, false, NitxRequestMode.post),
        (.auto, false, false, .get),
        (.auto, true, true, .get),
        (.get, true, false, .get),
        (.post, true, false, .post),
        (.post, true, true, .post),
        (.post, false, false, .get),
    ])
    func modeSelection(override: NitxRequestModeOverride, advertised: Bool, fellBack: Bool, expected: NitxRequestMode) {
        #expect(NitxRequestMode.select(override: override, adsEndpointAdvertised: advertised, fellBack: fellBack) == expected)
    }

    @Test(arguments: [(404, true), (405, true), (501, true), (400, false), (500, false), (503, false), (200, false)])
    func fallbackStatuses(status: Int, fallsBack: Bool) {
        #expect(NitxRequestMode.fallsBack(status: status, override: .auto) == fallsBack)
        #expect(NitxRequestMode.fallsBack(status: status, override: .post) == false)
    }
}

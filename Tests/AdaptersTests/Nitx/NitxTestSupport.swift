import Foundation
import Mediation
import MediationTestKit
@testable import Adapters

/// A scripted in-memory transport: "METHOD /path" to responses served in turn (the last
/// repeats); records every request. Unknown routes answer 404.
final class NitxScriptedTransport: HTTP.Transport {
    private let state: Locked<(routes: [String: [HTTP.Response]], served: [String: Int], requests: [HTTP.Request])>

    init(_ routes: [String: [HTTP.Response]]) {
        state = Locked((routes: routes, served: [:], requests: []))
    }

    func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
        let key = "\(request.method) \(request.url.path)"
        return state.withLock { state in
            state.requests.append(request)
            guard let responses = state.routes[key], !responses.isEmpty else { return HTTP.Response(statusCode: 404) }
            let index = state.served[key, default: 0]
            state.served[key] = index + 1
            return responses[min(index, responses.count - 1)]
        }
    }

    var requests: [HTTP.Request] { state.withLock { $0.requests } }

    func requests(_ method: String, _ path: String) -> [HTTP.Request] {
        requests.filter { $0.method == method && $0.url.path == path }
    }

    /// The JSON bodies of the requests to `path`, decoded as objects.
    func jsonBodies(_ method: String, _ path: String) -> [[String: Any]] {
        requests(method, path).compactMap { request in
            request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        }
    }
}

enum NitxFixtures {
    static let code = "SDK-AM-DEMOI"
    static let base = URL(string: "https://api.nitx.test") ?? URL(fileURLWithPath: "/")
    static let showPath = "/api/ad-mobiles/show/SDK-AM-DEMOI"
    static let initPath = "/api/ad-mobiles/init/SDK-AM-DEMOI"
    /// 2026-06-01T00:00:00Z.
    static let wallAnchor = Date(timeIntervalSince1970: 1_780_272_000)

    static func json(_ text: String, status: Int = 200) -> HTTP.Response {
        .json(Data(text.utf8), statusCode: status)
    }

    static func config(status: String = "active", bundleID: String = "com.example.app", sdk: Bool = true, ads: String = "/api/sdk/ads") -> HTTP.Response {
        let block = sdk ? #","sdk":{"ads_endpoint":"\#(ads)","events_endpoint":"/api/sdk/events","forget_endpoint":"/api/sdk/forget"}"# : ""
        return json(#"{"code":"SDK-AM-DEMOI","bundle_id":"\#(bundleID)","status":"\#(status)"\#(block)}"#)
    }

    static func slotAnswer(format: String? = nil, type: String = "image", impressionID: String? = nil, id: Int = 42) -> HTTP.Response {
        let slot = format.map { #""slot":{"code":"SLOT-A","format":"\#($0)"},"# } ?? ""
        let impression = impressionID.map { #","impression_id":"\#($0)""# } ?? ""
        return json(#"{\#(slot)"ad":{"id":\#(id),"name":"Summer sale","type":"\#(type)","path":"/creatives/\#(id).png","click_url":"/api/clicks/\#(id)"}\#(impression)}"#)
    }

    static func client(
        transport: NitxScriptedTransport,
        options: NitxOptions = NitxOptions(apiBaseURL: NitxFixtures.base),
        clock: ManualClock = ManualClock(),
        logger: any MediationLogger = SilentLogger(),
        storage: NitxRecords = NitxRecords()
    ) -> NitxClient {
        let counter = Locked(0)
        return NitxClient(
            sourceCode: code,
            options: options,
            transport: transport,
            clock: clock,
            logger: logger,
            storage: storage,
            wallClockAnchor: wallAnchor,
            makeVisitorID: {
                let n = counter.withLock { value -> Int in
                    value += 1
                    return value
                }
                return "visitor-\(n)"
            }
        )
    }

    static func request(_ format: AdFormat, slot: SlotSize = SlotSize(), sizing: MediationConfiguration.Placement.BannerSizing? = nil, adUnit: String = "SLOT-A", device: AdRequest.Device = AdRequest.Device(), context: AdRequest.Context = AdRequest.Context()) -> AdRequest {
        AdRequest(placementID: "p", adUnitID: adUnit, format: format, bannerSizing: sizing, slot: slot, context: context, device: device)
    }

    static func choice(_ request: AdRequest) -> NitxFormatChoice {
        (try? NitxFormatChoice.resolve(for: request).get()) ?? NitxFormatChoice(format: .banner320x50, size: AdSize(width: 320, height: 50))
    }
}

extension NitxRecords {
    /// Records in a new memory store holding `values`.
    init(_ values: [NitxStorageKey: String]) {
        self.init()
        for (key, value) in values { setValue(value, forKey: key) }
    }
}

import Foundation
import Mediation
import MediationTestKit
@testable import Adapters

/// Records every event a Qartvelo ad tracks.
final class QartveloRecordingTracker: QartveloEventTracking {
    private let events = Locked<[QartveloTrackedEvent]>([])

    func track(_ event: QartveloTrackedEvent) {
        events.withLock { $0.append(event) }
    }

    var recorded: [QartveloTrackedEvent] { events.withLock { $0 } }

    func count(_ kind: QartveloTrackedEvent.Kind) -> Int {
        recorded.filter { $0.kind == kind }.count
    }
}

/// A transport answering from a closure, recording every request.
final class QartveloScriptedTransport: HTTP.Transport {
    private let requests = Locked<[HTTP.Request]>([])
    private let answer: @Sendable (HTTP.Request) -> Result<HTTP.Response, HTTP.TransportError>

    init(_ answer: @escaping @Sendable (HTTP.Request) -> Result<HTTP.Response, HTTP.TransportError>) {
        self.answer = answer
    }

    /// Answers `POST /v1/banner` with `banner` and `GET` of anything else with `other`.
    convenience init(banner: HTTP.Response, other: HTTP.Response = HTTP.Response(statusCode: 404)) {
        self.init { request in
            .success(request.method == "POST" ? banner : other)
        }
    }

    func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
        requests.withLock { $0.append(request) }
        switch answer(request) {
        case .success(let response): return response
        case .failure(let error): throw error
        }
    }

    var sent: [HTTP.Request] { requests.withLock { $0 } }
}

enum QartveloFixtures {
    static let baseURL = URL(string: "https://api.qartvelo.test") ?? URL(fileURLWithPath: "/")

    static func request(
        format: AdFormat = .banner,
        sizing: MediationConfiguration.Placement.BannerSizing? = .anchored,
        width: Double? = nil,
        maxHeight: Double? = nil,
        screen: AdRequest.Device.Screen = .phone
    ) -> AdRequest {
        AdRequest(
            placementID: sizing == .inline ? "feed_inline" : "home_banner",
            adUnitID: "qv-unit-1",
            format: format,
            bannerSizing: sizing,
            slot: SlotSize(maxWidth: width, maxHeight: maxHeight),
            screen: screen
        )
    }

    static func adapter(
        transport: any HTTP.Transport,
        clock: any MediationClock = ManualClock(),
        adaptive: Bool = true,
        tracker: (any QartveloEventTracking)? = nil,
        logger: any MediationLogger = SilentLogger()
    ) -> QartveloAdapter {
        QartveloAdapter(appID: "app-123", baseURL: baseURL, adaptive: adaptive, transport: transport, clock: clock, logger: logger, tracker: tracker)
    }

    /// A sandbox adapter (the sandbox server in-process) with `options`.
    static func sandboxAdapter(
        options: QartveloOptions = QartveloOptions(),
        clock: any MediationClock = ManualClock(),
        tracker: (any QartveloEventTracking)? = nil
    ) -> QartveloAdapter {
        let transport = SandboxTransport(servers: [QartveloSandboxServer.host: QartveloSandboxServer(options: options)], clock: clock)
        return QartveloAdapter(
            appID: "app-123",
            baseURL: QartveloSandboxServer.baseURL,
            adaptive: options.adaptive,
            transport: transport,
            clock: clock,
            tracker: tracker
        )
    }

    /// A JSON banner answer with one ad.
    static func answer(
        type: String = "image",
        w: Int = 960,
        h: Int = 150,
        density: Double? = 3,
        bundleSize: Int? = nil,
        refresh: Int? = 60,
        extra: String = ""
    ) -> HTTP.Response {
        let media = type == "html5"
            ? #""bundle_url":"https://cdn.qartvelo.test/b/1""# + (bundleSize.map { #","bundle_size":\#($0)"# } ?? "")
            : #""image_url":"https://cdn.qartvelo.test/i/1.png""#
        let densityField = density.map { #","density":\#($0)"# } ?? ""
        let refreshField = refresh.map { #","banner_refresh_seconds":\#($0)"# } ?? ""
        let body = #"{"id":"qv-1","ad":{"creative_id":"cr-1","type":"\#(type)","w":\#(w),"h":\#(h)\#(densityField),\#(media),"click_url":"https://advertiser.example/","impression_url":"https://t.qartvelo.test/imp","click_tracking_url":"https://t.qartvelo.test/click"\#(extra)}\#(refreshField)}"#
        return .json(Data(body.utf8))
    }

    /// The JSON object of a request body.
    static func json(_ request: HTTP.Request?) -> [String: Any] {
        guard let body = request?.body,
              let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        else { return [:] }
        return object
    }
}

extension AdLoadResult {
    /// The Qartvelo ad of a fill.
    var qartveloAd: QartveloBannerAd? {
        if case .fill(let ad) = self { return ad as? QartveloBannerAd }
        return nil
    }

    /// The error of a failure.
    var qartveloError: AdLoadResult.Error? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

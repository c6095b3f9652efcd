import Foundation
import Mediation

/// The Qartvelo Ads adapter: banners only, priced by the line item (`fixed_price`; Qartvelo's
/// answers carry no price), so a loaded ad is a ``AdLoadResult/fill(_:)``.
///
/// One `loadAd(for:)`: plan the request (sizes in pixels), `POST /v1/banner`,
/// decode and validate the answer, download an HTML5 bundle ahead (at most 2 MB), lay the
/// creative out (``QartveloBannerLayout``) and hand back a ``QartveloBannerAd``.
///
/// Answers: 200 with an ad is a fill; 204, or 200 without an ad, is a no fill (the answer's
/// `nofill_reason`, else `noInventory`); 401/403 a `configuration` failure (code 20); other
/// statuses a `server` failure (code 21); a malformed answer an `invalidResponse` failure
/// (codes 30, 31); an HTML5 bundle over 2 MB a `creative` failure (code 40), so the next
/// source fills; a refused redirect a `server` failure (code 14) with its HTTP status. Other
/// formats: `unsupported` failure (code 1). After ``shutdown()``: a `cancelled` failure
/// (code 11) without a request, and no ad handed out earlier tracks anything (engine rule R18).
/// See `docs/networks/qartvelo.md`.
///
/// Network values are untrusted (engine rules R16, R17): the banner request goes only to the
/// endpoint's origin; the bundle and tracking URLs of an answer only to http(s) URLs off the
/// in-process sandboxes; every size, density, duration, URL and id of an answer is bounded with
/// `NetworkValueBounds` (``QartveloValidatedCreative``).
package struct QartveloAdapter: AdNetworkAdapter {
    /// The network id as the configuration names it.
    package let network: String
    let builder: QartveloRequestBuilder
    private let transport: HTTP.OriginLockedTransport
    private let answerTransport: HTTP.OriginLockedTransport
    private let clock: any MediationClock
    private let logger: any MediationLogger
    private let tracker: any QartveloEventTracking
    private let counter = Locked<UInt64>(0)
    private let idPrefix: String
    /// Open until ``shutdown()``: every ad's tracking goes through it.
    private let gate = TrackingGate()

    /// Creates an adapter that fires the network's tracking URLs through `transport`, with ad
    /// ids `qv-1`, `qv-2` … (counting per adapter).
    /// - Parameters:
    ///   - network: the network id, e.g. `"qartvelo"`.
    ///   - appID: the app's Qartvelo registration id.
    ///   - baseURL: the API's base URL (``QartveloSandboxServer/baseURL`` for the sandbox).
    ///   - adaptive: anchored adaptive sizing (the `adaptive` option, default `true`).
    ///   - transport: the HTTP transport.
    ///   - clock: the engine's clock (`tmax`, the HTML5 ready timer).
    ///   - logger: where warnings go.
    package init(
        network: String = "qartvelo",
        appID: String,
        baseURL: URL,
        adaptive: Bool = true,
        transport: any HTTP.Transport,
        clock: any MediationClock,
        logger: any MediationLogger = SilentLogger()
    ) {
        self.init(network: network, appID: appID, baseURL: baseURL, adaptive: adaptive, transport: transport, clock: clock, logger: logger, tracker: nil)
    }

    /// Creates an adapter with its own tracking seam and id prefix (the factory's and the
    /// tests' form).
    /// - Parameters:
    ///   - tracker: where impressions and clicks go; `nil` fires the tracking URLs through
    ///     `transport`.
    ///   - idPrefix: the start of request and ad ids (ids are `prefix-n`, counting per adapter).
    ///   - others: as in ``init(network:appID:baseURL:adaptive:transport:clock:logger:)``.
    package init(
        network: String = "qartvelo",
        appID: String,
        baseURL: URL,
        adaptive: Bool = true,
        transport: any HTTP.Transport,
        clock: any MediationClock,
        logger: any MediationLogger = SilentLogger(),
        tracker: (any QartveloEventTracking)?,
        idPrefix: String = "qv"
    ) {
        self.network = network
        builder = QartveloRequestBuilder(appID: appID, baseURL: baseURL, adaptive: adaptive)
        self.transport = HTTP.OriginLockedTransport(transport, endpoint: baseURL)
        answerTransport = HTTP.OriginLockedTransport(transport, endpoint: baseURL, reach: SandboxHosts.answerURLs)
        self.clock = clock
        self.logger = logger
        let gate = gate
        self.tracker = QartveloGatedTracker(
            inner: tracker ?? QartveloTransportTracker(transport: answerTransport, logger: logger, network: network, clock: clock, gate: gate),
            gate: gate
        )
        self.idPrefix = idPrefix
    }

    /// The engine is shutting down (R18): tracking of every ad handed out earlier stops (pings
    /// under way are cancelled) and later loads fail without a request.
    package func shutdown() async {
        gate.close()
    }


    /// `false`: Qartvelo's document has no win or loss notice, so auctions build none for it.
    package var receivesAuctionNotices: Bool { false }

    /// Loads one banner. Never throws; see the type's documentation for each answer.
    package func loadAd(for request: AdRequest) async -> AdLoadResult {
        let sequence = counter.withLock { value -> UInt64 in
            value += 1
            return value
        }
        let requestID = "\(idPrefix)-\(sequence)"
        guard gate.isOpen else {
            return .failure(AdLoadResult.Error(kind: .cancelled, code: QartveloErrorCode.cancelled.rawValue, message: "the adapter was shut down"))
        }
        let plan: QartveloRequestPlan
        switch builder.plan(for: request, requestID: requestID, now: clock.now) {
        case .success(let value): plan = value
        case .failure(let error): return .failure(error)
        }

        let response: HTTP.Response
        do {
            response = try await transport.send(plan.http)
        } catch {
            return .failure(QartveloTransportErrors.adapterError(for: error))
        }
        switch response.statusCode {
        case 200: break
        case 204: return .noFill(.noInventory)
        case 401, 403:
            return .failure(AdLoadResult.Error(kind: .configuration, code: QartveloErrorCode.unauthorized.rawValue, message: "Qartvelo refused the app id (\(response.statusCode))", httpStatus: response.statusCode))
        default:
            return .failure(AdLoadResult.Error(kind: .server, code: QartveloErrorCode.serverStatus.rawValue, message: "Qartvelo answered \(response.statusCode)", httpStatus: response.statusCode))
        }

        let answer: QartveloWireBannerResponse
        do {
            answer = try JSONDecoder().decode(QartveloWireBannerResponse.self, from: response.body)
        } catch {
            return .failure(AdLoadResult.Error(kind: .invalidResponse, code: QartveloErrorCode.malformedResponse.rawValue, message: "the answer is not a Qartvelo banner response"))
        }
        guard let wireAd = answer.ad else {
            return .noFill(answer.nofillReason.map { AdLoadResult.NoFillReason(code: NetworkValueBounds.identifier($0)) } ?? .noInventory)
        }
        let creative: QartveloValidatedCreative
        switch QartveloValidatedCreative.validate(wireAd) {
        case .success(let value): creative = value
        case .failure(let error): return .failure(error)
        }

        var bundle: QartveloHTML5Bundle?
        if case .html5(let url) = creative.creative {
            switch await QartveloHTML5BundleLoader(transport: answerTransport).load(from: url, declaredSize: wireAd.bundleSize) {
            case .success(let value): bundle = value
            case .failure(let error): return .failure(error)
            }
        }
        if Task.isCancelled {
            return .failure(AdLoadResult.Error(kind: .cancelled, code: QartveloErrorCode.cancelled.rawValue, message: "request cancelled"))
        }
        guard let frame = plan.layout.frame(creativePoints: creative.points, width: plan.width, screen: request.screen) else {
            return .failure(AdLoadResult.Error(kind: .invalidResponse, code: QartveloErrorCode.invalidAd.rawValue, message: "the creative cannot be laid out"))
        }

        var refresh = answer.bannerRefreshSeconds
        if let value = refresh, value <= 0 {
            logger.warning("ignored banner_refresh_seconds \(value) (not positive)", source: network)
            refresh = nil
        } else if let value = refresh, value > NetworkValueBounds.refreshSeconds.upperBound {
            // Values under 30 reach the placement as sent: it raises them to 30 (R13).
            logger.warning("banner_refresh_seconds \(value) cut to \(NetworkValueBounds.refreshSeconds.upperBound)", source: network)
            refresh = NetworkValueBounds.refreshSeconds.upperBound
        }
        let ad = QartveloBannerAd(
            id: NetworkValueBounds.identifier("\(requestID)-\(creative.creativeID)"),
            creativeID: creative.creativeID,
            network: network,
            creative: creative.creative,
            bundle: bundle,
            layout: plan.layout,
            creativePoints: creative.points,
            frame: frame,
            screen: request.screen,
            timeToLive: creative.timeToLive,
            serverRefreshSeconds: refresh,
            clickURL: creative.clickURL,
            impressionURL: creative.impressionURL,
            clickTrackingURL: creative.clickTrackingURL,
            clock: clock,
            tracker: tracker,
            requestID: requestID
        )
        return .fill(ad)
    }
}

/// A response ad that passed the rules (engine rule R16, bounds from `NetworkValueBounds`): a
/// known type with its URL; artwork pixels and a density in 0.5...8 whose size in points is a
/// valid ad size (at most 10,000 pt a side); every URL http(s), without user info and at most
/// 2048 characters; the creative id cut to 128 characters; the TTL cut to one day.
struct QartveloValidatedCreative: Sendable {
    /// Qartvelo's creative id, cut to `NetworkValueBounds.maximumIdentifierLength`.
    var creativeID: String
    /// Image or HTML5.
    var creative: QartveloBannerAd.Creative
    /// The natural size in points (pixels / density).
    var points: AdSize
    /// The TTL, when the answer gave a positive one (at most one day).
    var timeToLive: Duration?
    /// The advertiser's page.
    var clickURL: URL?
    /// The impression tracking URL.
    var impressionURL: URL?
    /// The click tracking URL.
    var clickTrackingURL: URL?

    /// Validates one response ad.
    /// - Returns: the creative, or `invalidResponse` code 31 naming the broken rule.
    static func validate(_ ad: QartveloWireBannerResponse.Ad) -> Result<QartveloValidatedCreative, AdLoadResult.Error> {
        func invalid(_ message: String) -> Result<QartveloValidatedCreative, AdLoadResult.Error> {
            .failure(AdLoadResult.Error(kind: .invalidResponse, code: QartveloErrorCode.invalidAd.rawValue, message: message))
        }
        guard ad.w > 0, ad.h > 0 else { return invalid("ad size must be positive") }
        let density = ad.density ?? 1
        guard NetworkValueBounds.isValidPixelDensity(density) else {
            return invalid("density must be from \(NetworkValueBounds.pixelDensity.lowerBound) to \(NetworkValueBounds.pixelDensity.upperBound)")
        }
        let points = AdSize(width: Double(ad.w) / density, height: Double(ad.h) / density)
        guard NetworkValueBounds.isValidAdSize(points) else {
            return invalid("ad size must be at most \(Int(NetworkValueBounds.maximumAdDimension)) pt a side")
        }
        for (name, url) in [("image_url", ad.imageURL), ("bundle_url", ad.bundleURL), ("click_url", ad.clickURL),
                            ("impression_url", ad.impressionURL), ("click_tracking_url", ad.clickTrackingURL)] {
            if let url, !NetworkValueBounds.isWebURL(url) {
                return invalid("\(name) must be an http(s) URL of at most \(NetworkValueBounds.maximumURLLength) characters")
            }
        }
        let creative: QartveloBannerAd.Creative
        switch ad.type {
        case "image":
            guard let url = ad.imageURL else { return invalid("image ad without image_url") }
            creative = .image(url)
        case "html5":
            guard let url = ad.bundleURL else { return invalid("html5 ad without bundle_url") }
            creative = .html5(url)
        default:
            return invalid("unknown ad type")
        }
        let ttl = ad.ttlSeconds.flatMap { $0 > 0 ? NetworkValueBounds.duration(wholeSeconds: $0) : nil }
        return .success(QartveloValidatedCreative(
            creativeID: NetworkValueBounds.identifier(ad.creativeID),
            creative: creative,
            points: points,
            timeToLive: ttl,
            clickURL: ad.clickURL,
            impressionURL: ad.impressionURL,
            clickTrackingURL: ad.clickTrackingURL
        ))
    }
}

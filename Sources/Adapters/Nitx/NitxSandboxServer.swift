import Foundation
import Mediation

/// The in-process Nitx API (both request modes, every format), answering with the real wire
/// models of `NitxWireModels.swift`, deterministic for a seed.
///
/// Routes: `GET /api/ad-mobiles/show/{code}` (the config, with the `sdk` block pointing at
/// `/api/sdk/ads`, `/api/sdk/events`, `/api/sdk/forget` when ``Configuration/sdkBlock`` is on),
/// `GET /api/ad-mobiles/init/{code}`, `GET /api/ad-slots/show/{slot}`, and the three POST
/// endpoints. Slot codes steer the answer: one containing `NOFILL` gets no ad (204), `HTML` an
/// HTML creative, `VIDEO` a video, `PATHONLY` a path-only ad with no structured assets.
package struct NitxSandboxServer: NetworkConnection.SandboxServer {
    /// What the sandbox simulates.
    package struct Configuration: Sendable, Hashable {
        /// The one source code it knows.
        package var sourceCode: String
        /// The source's registered bundle id.
        package var bundleID: String
        /// The source's status, e.g. `active` or `pending_verification`.
        package var status: String
        /// Whether the config advertises the POST endpoints.
        package var sdkBlock: Bool
        /// When set, the POST ads endpoint answers this status (e.g. 404, 405, 501).
        package var postAdsStatus: Int?
        /// The formats of GET slots, by slot code (GET requests carry no format).
        package var slotFormats: [String: NitxFormat]
        /// The seed the creative ids derive from.
        package var seed: UInt64

        /// Creates a configuration.
        package init(sourceCode: String = "SDK-AM-DEMOI", bundleID: String = "com.example.app", status: String = "active", sdkBlock: Bool = true, postAdsStatus: Int? = nil, slotFormats: [String: NitxFormat] = [:], seed: UInt64 = 1) {
            self.sourceCode = sourceCode
            self.bundleID = bundleID
            self.status = status
            self.sdkBlock = sdkBlock
            self.postAdsStatus = postAdsStatus
            self.slotFormats = slotFormats
            self.seed = seed
        }
    }

    /// What the sandbox has received.
    package struct Counts: Sendable, Hashable {
        /// Config loads.
        package var configLoads = 0
        /// Init calls.
        package var initCalls = 0
        /// GET slot requests.
        package var getRequests = 0
        /// POST ads requests.
        package var postRequests = 0
        /// Events received.
        package var events = 0
        /// Forget requests.
        package var forgets = 0
    }

    /// The paths the `sdk` block advertises.
    package static let adsPath = "/api/sdk/ads"
    /// The events path.
    package static let eventsPath = "/api/sdk/events"
    /// The forget path.
    package static let forgetPath = "/api/sdk/forget"

    /// The configuration.
    package let configuration: Configuration
    private let state = Locked((counts: Counts(), served: UInt64(0)))

    /// Creates a sandbox.
    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// What it has received so far.
    package var counts: Counts { state.withLock { $0.counts } }

    /// Answers one request.
    package func respond(to request: HTTP.Request) async -> HTTP.Response {
        let path = request.url.path
        let parts = path.split(separator: "/").map(String.init)
        switch (request.method, parts.count) {
        case ("GET", 4) where path.hasPrefix("/api/ad-mobiles/show/"):
            state.withLock { $0.counts.configLoads += 1 }
            guard parts[3] == configuration.sourceCode else { return Self.json(#"{"error":"unknown source"}"#, status: 404) }
            let sdk = configuration.sdkBlock ? NitxWireSDKBlock(adsEndpoint: Self.adsPath, eventsEndpoint: Self.eventsPath, forgetEndpoint: Self.forgetPath) : nil
            return Self.encode(NitxWireSourceConfig(code: configuration.sourceCode, bundleID: configuration.bundleID, status: configuration.status, sdk: sdk))
        case ("GET", 4) where path.hasPrefix("/api/ad-mobiles/init/"):
            state.withLock { $0.counts.initCalls += 1 }
            return Self.json(#"{"status":"pending_verification"}"#)
        case ("GET", 4) where path.hasPrefix("/api/ad-slots/show/"):
            state.withLock { $0.counts.getRequests += 1 }
            return answer(slot: parts[3], format: configuration.slotFormats[parts[3]], impression: false)
        case ("POST", _) where path == Self.adsPath && configuration.sdkBlock:
            state.withLock { $0.counts.postRequests += 1 }
            if let status = configuration.postAdsStatus { return Self.json(#"{"error":"simulated"}"#, status: status) }
            guard let body = request.body, let wire = try? JSONDecoder().decode(NitxWireAdsRequest.self, from: body),
                  let format = NitxFormat(rawValue: wire.format) else {
                return Self.json(#"{"error":"bad request"}"#, status: 400)
            }
            return answer(slot: wire.slot, format: format, impression: true)
        case ("POST", _) where path == Self.eventsPath && configuration.sdkBlock:
            let count = request.body.flatMap { try? JSONDecoder().decode(NitxWireEventBatch.self, from: $0) }?.events.count
            guard let count else { return Self.json(#"{"error":"bad request"}"#, status: 400) }
            state.withLock { $0.counts.events += count }
            return HTTP.Response(statusCode: 204)
        case ("POST", _) where path == Self.forgetPath && configuration.sdkBlock:
            state.withLock { $0.counts.forgets += 1 }
            return HTTP.Response(statusCode: 204)
        default:
            return Self.json(#"{"error":"not found"}"#, status: 404)
        }
    }

    private func answer(slot: String, format: NitxFormat?, impression: Bool) -> HTTP.Response {
        let upper = slot.uppercased()
        if upper.contains("NOFILL") { return HTTP.Response(statusCode: 204) }
        let served = state.withLock { state -> UInt64 in
            state.served += 1
            return state.served
        }
        let id = Int((configuration.seed &* 7919 &+ served) % 100_000)
        let type = upper.contains("HTML") ? "html" : upper.contains("VIDEO") ? "video" : "image"
        let ext = type == "html" ? "html" : type == "video" ? "mp4" : "png"
        let path = "/creatives/\(id).\(ext)"
        var assets: NitxNativeAssets?
        if format == .native, !upper.contains("PATHONLY") {
            assets = NitxNativeAssets(headline: "Sandbox ad \(id)", body: "A Nitx sandbox native ad.", cta: "Learn more", advertiser: "Nitx Sandbox", icon: "/creatives/\(id)-icon.png", image: path, rating: 4.5, price: "Free")
        }
        let size: (Double, Double)? = switch format {
        case .banner320x50: (320, 50)
        case .banner300x250: (300, 250)
        default: nil
        }
        let ad = NitxWireAd(id: NitxWireID(String(id)), name: "Sandbox ad \(id)", type: type, path: path, clickURL: "/api/clicks/\(id)", width: size?.0, height: size?.1, assets: assets)
        let response = NitxWireSlotResponse(
            slot: NitxWireSlot(code: slot, format: format?.rawValue),
            ad: ad,
            impressionID: impression ? "imp-\(configuration.seed)-\(served)" : nil
        )
        return Self.encode(response)
    }

    private static func encode(_ value: some Encodable) -> HTTP.Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value) else { return json(#"{"error":"encoding"}"#, status: 500) }
        return .json(data)
    }

    private static func json(_ text: String, status: Int = 200) -> HTTP.Response {
        .json(Data(text.utf8), statusCode: status)
    }
}

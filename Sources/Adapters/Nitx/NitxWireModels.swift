import Foundation

// The JSON of both Nitx request modes, in one place (documented in docs/networks/nitx.md).
// Decoding is lenient about unknown keys and strict about types: a field of the wrong type
// fails the decode, which the client turns into an `invalidResponse` failure.

/// `GET /api/ad-mobiles/show/{code}`: the mobile source's configuration.
package struct NitxWireSourceConfig: Codable, Sendable, Hashable {
    /// The source code, e.g. `SDK-AM-DEMOI`.
    package var code: String?
    /// The bundle id the source was registered for.
    package var bundleID: String?
    /// `active`, `pending_verification`, `paused` …
    package var status: String?
    /// The POST-mode endpoints, when the backend advertises them.
    package var sdk: NitxWireSDKBlock?

    enum CodingKeys: String, CodingKey {
        case code, status, sdk
        case bundleID = "bundle_id"
    }

    /// Creates a source configuration.
    package init(code: String? = nil, bundleID: String? = nil, status: String? = nil, sdk: NitxWireSDKBlock? = nil) {
        self.code = code
        self.bundleID = bundleID
        self.status = status
        self.sdk = sdk
    }
}

/// The config response's `sdk` block: relative paths of the POST-mode endpoints.
package struct NitxWireSDKBlock: Codable, Sendable, Hashable {
    /// Where ads are POSTed, e.g. `/api/sdk/ads`.
    package var adsEndpoint: String?
    /// Where event batches are POSTed, e.g. `/api/sdk/events`.
    package var eventsEndpoint: String?
    /// Where the forget request is POSTed, e.g. `/api/sdk/forget`.
    package var forgetEndpoint: String?

    enum CodingKeys: String, CodingKey {
        case adsEndpoint = "ads_endpoint"
        case eventsEndpoint = "events_endpoint"
        case forgetEndpoint = "forget_endpoint"
    }

    /// Creates an sdk block.
    package init(adsEndpoint: String? = nil, eventsEndpoint: String? = nil, forgetEndpoint: String? = nil) {
        self.adsEndpoint = adsEndpoint
        self.eventsEndpoint = eventsEndpoint
        self.forgetEndpoint = forgetEndpoint
    }
}

/// The answer of both `GET /api/ad-slots/show/{code}` and the POST ads endpoint. A `204` or
/// `"ad": null` is a no-fill.
package struct NitxWireSlotResponse: Codable, Sendable, Hashable {
    /// The slot, if the server echoes it.
    package var slot: NitxWireSlot?
    /// The ad, or `nil` for no fill.
    package var ad: NitxWireAd?
    /// POST mode only: the id impression and viewable events refer to.
    package var impressionID: String?

    enum CodingKeys: String, CodingKey {
        case slot, ad
        case impressionID = "impression_id"
    }

    /// Creates a slot response.
    package init(slot: NitxWireSlot? = nil, ad: NitxWireAd? = nil, impressionID: String? = nil) {
        self.slot = slot
        self.ad = ad
        self.impressionID = impressionID
    }
}

/// A slot as the server describes it.
package struct NitxWireSlot: Codable, Sendable, Hashable {
    /// The slot code, e.g. `SLOT-AB12CD`.
    package var code: String?
    /// The slot's format, e.g. `banner_320x50` (see ``NitxFormat``).
    package var format: String?

    /// Creates a slot.
    package init(code: String? = nil, format: String? = nil) {
        self.code = code
        self.format = format
    }
}

/// One ad. Until the backend ships structured assets an ad is "path-only": a name and a
/// creative path.
package struct NitxWireAd: Codable, Sendable, Hashable {
    /// The ad's id (the creative id); a number or a string on the wire.
    package var id: NitxWireID?
    /// The ad's name (a native ad's headline when there are no assets).
    package var name: String?
    /// `image`, `video` or `html`.
    package var type: String?
    /// The creative's path or URL, e.g. `/creatives/42.png`.
    package var path: String?
    /// The backend click URL.
    package var clickURL: String?
    /// The creative's width in points, if known.
    package var width: Double?
    /// The creative's height in points, if known.
    package var height: Double?
    /// Structured native assets, when the backend sends them.
    package var assets: NitxNativeAssets?

    enum CodingKeys: String, CodingKey {
        case id, name, type, path, width, height, assets
        case clickURL = "click_url"
    }

    /// Creates an ad.
    package init(id: NitxWireID? = nil, name: String? = nil, type: String? = nil, path: String? = nil, clickURL: String? = nil, width: Double? = nil, height: Double? = nil, assets: NitxNativeAssets? = nil) {
        self.id = id
        self.name = name
        self.type = type
        self.path = path
        self.clickURL = clickURL
        self.width = width
        self.height = height
        self.assets = assets
    }
}

/// An id written as a JSON number or string.
package struct NitxWireID: Codable, Sendable, Hashable {
    /// The id as text.
    package var value: String

    /// Creates an id.
    package init(_ value: String) { self.value = value }

    /// Decodes a string or an integer.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            value = text
        } else {
            value = String(try container.decode(Int.self))
        }
    }

    /// Encodes the text.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// The POST ads request body.
package struct NitxWireAdsRequest: Codable, Sendable, Hashable {
    /// The slot code.
    package var slot: String
    /// The requested format, e.g. `banner_adaptive`.
    package var format: String
    /// For adaptive banners, the requested size in points.
    package var size: NitxWireSize?
    /// The visitor block; `nil` (JSON `null`) when personalization is off.
    package var visitor: NitxWireVisitor?
    /// The app context block.
    package var context: NitxWireContext

    /// Creates a request body.
    package init(slot: String, format: String, size: NitxWireSize? = nil, visitor: NitxWireVisitor?, context: NitxWireContext) {
        self.slot = slot
        self.format = format
        self.size = size
        self.visitor = visitor
        self.context = context
    }

    enum CodingKeys: String, CodingKey { case slot, format, size, visitor, context }

    /// Encodes every key, writing `null` for a missing visitor or size.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(slot, forKey: .slot)
        try container.encode(format, forKey: .format)
        try container.encode(size, forKey: .size)
        try container.encode(visitor, forKey: .visitor)
        try container.encode(context, forKey: .context)
    }
}

/// A size in points.
package struct NitxWireSize: Codable, Sendable, Hashable {
    /// Width in points.
    package var width: Double
    /// Height in points.
    package var height: Double

    /// Creates a size.
    package init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// The visitor block: the visitor id, the consent state, and the hashed profile only when
/// consent was given.
package struct NitxWireVisitor: Codable, Sendable, Hashable {
    /// The visitor id (a random UUID, lowercased).
    package var id: String
    /// `true` with a stored consent record, `false` after a withdrawal, `null` when neither.
    package var consent: Bool?
    /// SHA-256 hex digests by field (`email`, `phone`, `gender`, `birth_year`, `city`,
    /// `country`, `trait.<key>`); `null` without consent.
    package var profile: [String: String]?

    /// Creates a visitor block.
    package init(id: String, consent: Bool?, profile: [String: String]?) {
        self.id = id
        self.consent = consent
        self.profile = profile
    }

    enum CodingKeys: String, CodingKey { case id, consent, profile }

    /// Encodes every key, writing `null` for missing values.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(consent, forKey: .consent)
        try container.encode(profile, forKey: .profile)
    }
}

/// The app context block (Nitx seed, "Request mode"). It never holds the IP address, the user
/// agent or a location.
package struct NitxWireContext: Codable, Sendable, Hashable {
    /// The app.
    package var app: NitxWireAppContext
    /// The OS.
    package var os: NitxWireOSContext
    /// The device.
    package var device: NitxWireDeviceContext
    /// Language, e.g. `en`.
    package var language: String
    /// Time zone identifier, e.g. `Asia/Riyadh`.
    package var timeZone: String
    /// `ios-1.0.0`, or `rn-1.0.0/ios-1.0.0` behind a bridge.
    package var sdk: String
    /// The advertising id, only when tracking is authorized; `null` otherwise.
    package var adID: String?

    enum CodingKeys: String, CodingKey {
        case app, os, device, language, sdk
        case timeZone = "time_zone"
        case adID = "ad_id"
    }

    /// Creates a context block.
    package init(app: NitxWireAppContext, os: NitxWireOSContext, device: NitxWireDeviceContext, language: String, timeZone: String, sdk: String, adID: String?) {
        self.app = app
        self.os = os
        self.device = device
        self.language = language
        self.timeZone = timeZone
        self.sdk = sdk
        self.adID = adID
    }

    /// Encodes every key, writing `null` for a missing advertising id.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(app, forKey: .app)
        try container.encode(os, forKey: .os)
        try container.encode(device, forKey: .device)
        try container.encode(language, forKey: .language)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(sdk, forKey: .sdk)
        try container.encode(adID, forKey: .adID)
    }
}

/// `context.app`.
package struct NitxWireAppContext: Codable, Sendable, Hashable {
    /// Bundle id.
    package var bundleID: String
    /// Marketing version.
    package var version: String
    /// Build number.
    package var build: String
    /// The request context's screen name, or `null`.
    package var screen: String?

    enum CodingKeys: String, CodingKey {
        case version, build, screen
        case bundleID = "bundle_id"
    }

    /// Creates an app block.
    package init(bundleID: String, version: String, build: String, screen: String?) {
        self.bundleID = bundleID
        self.version = version
        self.build = build
        self.screen = screen
    }
}

/// `context.os`.
package struct NitxWireOSContext: Codable, Sendable, Hashable {
    /// OS name, e.g. `iOS`.
    package var name: String
    /// OS version, e.g. `17.4`.
    package var version: String

    /// Creates an OS block.
    package init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}

/// `context.device`.
package struct NitxWireDeviceContext: Codable, Sendable, Hashable {
    /// `phone` or `tablet`.
    package var type: String
    /// Screen width in points.
    package var screenWidth: Double
    /// Screen height in points.
    package var screenHeight: Double
    /// Pixels per point.
    package var screenScale: Double

    enum CodingKeys: String, CodingKey {
        case type
        case screenWidth = "screen_width"
        case screenHeight = "screen_height"
        case screenScale = "screen_scale"
    }

    /// Creates a device block.
    package init(type: String, screenWidth: Double, screenHeight: Double, screenScale: Double) {
        self.type = type
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.screenScale = screenScale
    }
}

/// The events endpoint's request body: one batch.
package struct NitxWireEventBatch: Codable, Sendable, Hashable {
    /// The visitor id, or `null` when personalization is off.
    package var visitorID: String?
    /// The events, oldest first.
    package var events: [NitxWireEvent]

    enum CodingKeys: String, CodingKey {
        case events
        case visitorID = "visitor_id"
    }

    /// Creates a batch.
    package init(visitorID: String?, events: [NitxWireEvent]) {
        self.visitorID = visitorID
        self.events = events
    }
}

/// One event.
package struct NitxWireEvent: Codable, Sendable, Hashable {
    /// `impression` or `viewable`.
    package var type: String
    /// The impression id from the POST ads answer.
    package var impressionID: String
    /// The slot code.
    package var slot: String
    /// When it happened, milliseconds since 1970 (UTC).
    package var timestamp: Int64

    enum CodingKeys: String, CodingKey {
        case type, slot
        case impressionID = "impression_id"
        case timestamp = "ts"
    }

    /// Creates an event.
    package init(type: String, impressionID: String, slot: String, timestamp: Int64) {
        self.type = type
        self.impressionID = impressionID
        self.slot = slot
        self.timestamp = timestamp
    }
}

/// The forget endpoint's request body.
package struct NitxWireForgetRequest: Codable, Sendable, Hashable {
    /// The visitor id being forgotten.
    package var visitorID: String

    enum CodingKeys: String, CodingKey { case visitorID = "visitor_id" }

    /// Creates a forget request.
    package init(visitorID: String) { self.visitorID = visitorID }
}

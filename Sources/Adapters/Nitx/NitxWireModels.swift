import Foundation

// The JSON of both Nitx request modes, in one place (documented in docs/networks/nitx.md).
// Decoding is lenient about unknown keys and strict about types: a field of the wrong type
// fails the decode, which the client turns into an `invalidResponse` failure.

/// `GET /api/ad-mobiles/show/{code}`: the mobile source's configuration.
public struct NitxSourceConfigWire: Codable, Sendable, Hashable {
    /// The source code, e.g. `SDK-AM-DEMOI`.
    public var code: String?
    /// The bundle id the source was registered for.
    public var bundleID: String?
    /// `active`, `pending_verification`, `paused` …
    public var status: String?
    /// The POST-mode endpoints, when the backend advertises them.
    public var sdk: NitxSDKBlockWire?

    enum CodingKeys: String, CodingKey {
        case code, status, sdk
        case bundleID = "bundle_id"
    }

    /// Creates a source configuration.
    public init(code: String? = nil, bundleID: String? = nil, status: String? = nil, sdk: NitxSDKBlockWire? = nil) {
        self.code = code
        self.bundleID = bundleID
        self.status = status
        self.sdk = sdk
    }
}

/// The config response's `sdk` block: relative paths of the POST-mode endpoints.
public struct NitxSDKBlockWire: Codable, Sendable, Hashable {
    /// Where ads are POSTed, e.g. `/api/sdk/ads`.
    public var adsEndpoint: String?
    /// Where event batches are POSTed, e.g. `/api/sdk/events`.
    public var eventsEndpoint: String?
    /// Where the forget request is POSTed, e.g. `/api/sdk/forget`.
    public var forgetEndpoint: String?

    enum CodingKeys: String, CodingKey {
        case adsEndpoint = "ads_endpoint"
        case eventsEndpoint = "events_endpoint"
        case forgetEndpoint = "forget_endpoint"
    }

    /// Creates an sdk block.
    public init(adsEndpoint: String? = nil, eventsEndpoint: String? = nil, forgetEndpoint: String? = nil) {
        self.adsEndpoint = adsEndpoint
        self.eventsEndpoint = eventsEndpoint
        self.forgetEndpoint = forgetEndpoint
    }
}

/// The answer of both `GET /api/ad-slots/show/{code}` and the POST ads endpoint. A `204` or
/// `"ad": null` is a no-fill.
public struct NitxSlotResponseWire: Codable, Sendable, Hashable {
    /// The slot, if the server echoes it.
    public var slot: NitxSlotWire?
    /// The ad, or `nil` for no fill.
    public var ad: NitxAdWire?
    /// POST mode only: the id impression and viewable events refer to.
    public var impressionID: String?

    enum CodingKeys: String, CodingKey {
        case slot, ad
        case impressionID = "impression_id"
    }

    /// Creates a slot response.
    public init(slot: NitxSlotWire? = nil, ad: NitxAdWire? = nil, impressionID: String? = nil) {
        self.slot = slot
        self.ad = ad
        self.impressionID = impressionID
    }
}

/// A slot as the server describes it.
public struct NitxSlotWire: Codable, Sendable, Hashable {
    /// The slot code, e.g. `SLOT-AB12CD`.
    public var code: String?
    /// The slot's format, e.g. `banner_320x50` (see ``NitxFormat``).
    public var format: String?

    /// Creates a slot.
    public init(code: String? = nil, format: String? = nil) {
        self.code = code
        self.format = format
    }
}

/// One ad. Until the backend ships structured assets an ad is "path-only": a name and a
/// creative path.
public struct NitxAdWire: Codable, Sendable, Hashable {
    /// The ad's id (the creative id); a number or a string on the wire.
    public var id: NitxIDWire?
    /// The ad's name (a native ad's headline when there are no assets).
    public var name: String?
    /// `image`, `video` or `html`.
    public var type: String?
    /// The creative's path or URL, e.g. `/creatives/42.png`.
    public var path: String?
    /// The backend click URL.
    public var clickURL: String?
    /// The creative's width in points, if known.
    public var width: Double?
    /// The creative's height in points, if known.
    public var height: Double?
    /// Structured native assets, when the backend sends them.
    public var assets: NitxAssetsWire?

    enum CodingKeys: String, CodingKey {
        case id, name, type, path, width, height, assets
        case clickURL = "click_url"
    }

    /// Creates an ad.
    public init(id: NitxIDWire? = nil, name: String? = nil, type: String? = nil, path: String? = nil, clickURL: String? = nil, width: Double? = nil, height: Double? = nil, assets: NitxAssetsWire? = nil) {
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
public struct NitxIDWire: Codable, Sendable, Hashable {
    /// The id as text.
    public var value: String

    /// Creates an id.
    public init(_ value: String) { self.value = value }

    /// Decodes a string or an integer.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            value = text
        } else {
            value = String(try container.decode(Int.self))
        }
    }

    /// Encodes the text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// Structured native assets (all optional, Nitx seed "Native").
public struct NitxAssetsWire: Codable, Sendable, Hashable {
    /// Headline text.
    public var headline: String?
    /// Body text.
    public var body: String?
    /// Call-to-action text.
    public var cta: String?
    /// Advertiser name.
    public var advertiser: String?
    /// Icon URL or path.
    public var icon: String?
    /// Main image URL or path.
    public var image: String?
    /// Video URL or path.
    public var video: String?
    /// Star rating, 0 to 5.
    public var rating: Double?
    /// Price text, e.g. `"Free"`.
    public var price: String?

    /// Creates assets.
    public init(headline: String? = nil, body: String? = nil, cta: String? = nil, advertiser: String? = nil, icon: String? = nil, image: String? = nil, video: String? = nil, rating: Double? = nil, price: String? = nil) {
        self.headline = headline
        self.body = body
        self.cta = cta
        self.advertiser = advertiser
        self.icon = icon
        self.image = image
        self.video = video
        self.rating = rating
        self.price = price
    }
}

/// The POST ads request body.
public struct NitxAdsRequestWire: Codable, Sendable, Hashable {
    /// The slot code.
    public var slot: String
    /// The requested format, e.g. `banner_adaptive`.
    public var format: String
    /// For adaptive banners, the requested size in points.
    public var size: NitxSizeWire?
    /// The visitor block; `nil` (JSON `null`) when personalization is off.
    public var visitor: NitxVisitorWire?
    /// The app context block.
    public var context: NitxContextWire

    /// Creates a request body.
    public init(slot: String, format: String, size: NitxSizeWire? = nil, visitor: NitxVisitorWire?, context: NitxContextWire) {
        self.slot = slot
        self.format = format
        self.size = size
        self.visitor = visitor
        self.context = context
    }

    enum CodingKeys: String, CodingKey { case slot, format, size, visitor, context }

    /// Encodes every key, writing `null` for a missing visitor or size.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(slot, forKey: .slot)
        try container.encode(format, forKey: .format)
        try container.encode(size, forKey: .size)
        try container.encode(visitor, forKey: .visitor)
        try container.encode(context, forKey: .context)
    }
}

/// A size in points.
public struct NitxSizeWire: Codable, Sendable, Hashable {
    /// Width in points.
    public var width: Double
    /// Height in points.
    public var height: Double

    /// Creates a size.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// The visitor block: the visitor id, the consent state, and the hashed profile only when
/// consent was given.
public struct NitxVisitorWire: Codable, Sendable, Hashable {
    /// The visitor id (a random UUID, lowercased).
    public var id: String
    /// `true` after consent(true), `false` after consent(false), `null` when not asked.
    public var consent: Bool?
    /// SHA-256 hex digests by field (`email`, `phone`, `gender`, `birth_year`, `city`,
    /// `country`, `trait.<key>`); `null` without consent.
    public var profile: [String: String]?

    /// Creates a visitor block.
    public init(id: String, consent: Bool?, profile: [String: String]?) {
        self.id = id
        self.consent = consent
        self.profile = profile
    }

    enum CodingKeys: String, CodingKey { case id, consent, profile }

    /// Encodes every key, writing `null` for missing values.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(consent, forKey: .consent)
        try container.encode(profile, forKey: .profile)
    }
}

/// The app context block (Nitx seed, "Request mode"). It never holds the IP address, the user
/// agent or a location.
public struct NitxContextWire: Codable, Sendable, Hashable {
    /// The app.
    public var app: NitxAppContextWire
    /// The OS.
    public var os: NitxOSContextWire
    /// The device.
    public var device: NitxDeviceContextWire
    /// Language, e.g. `en`.
    public var language: String
    /// Time zone identifier, e.g. `Asia/Riyadh`.
    public var timeZone: String
    /// `ios-1.0.0`, or `rn-1.0.0/ios-1.0.0` behind a bridge.
    public var sdk: String
    /// The advertising id, only when tracking is authorized; `null` otherwise.
    public var adID: String?

    enum CodingKeys: String, CodingKey {
        case app, os, device, language, sdk
        case timeZone = "time_zone"
        case adID = "ad_id"
    }

    /// Creates a context block.
    public init(app: NitxAppContextWire, os: NitxOSContextWire, device: NitxDeviceContextWire, language: String, timeZone: String, sdk: String, adID: String?) {
        self.app = app
        self.os = os
        self.device = device
        self.language = language
        self.timeZone = timeZone
        self.sdk = sdk
        self.adID = adID
    }

    /// Encodes every key, writing `null` for a missing advertising id.
    public func encode(to encoder: any Encoder) throws {
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
public struct NitxAppContextWire: Codable, Sendable, Hashable {
    /// Bundle id.
    public var bundleID: String
    /// Marketing version.
    public var version: String
    /// Build number.
    public var build: String
    /// The screen name set by the host, or `null`.
    public var screen: String?

    enum CodingKeys: String, CodingKey {
        case version, build, screen
        case bundleID = "bundle_id"
    }

    /// Creates an app block.
    public init(bundleID: String, version: String, build: String, screen: String?) {
        self.bundleID = bundleID
        self.version = version
        self.build = build
        self.screen = screen
    }
}

/// `context.os`.
public struct NitxOSContextWire: Codable, Sendable, Hashable {
    /// OS name, e.g. `iOS`.
    public var name: String
    /// OS version, e.g. `17.4`.
    public var version: String

    /// Creates an OS block.
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}

/// `context.device`.
public struct NitxDeviceContextWire: Codable, Sendable, Hashable {
    /// `phone` or `tablet`.
    public var type: String
    /// Screen width in points.
    public var screenWidth: Double
    /// Screen height in points.
    public var screenHeight: Double
    /// Pixels per point.
    public var screenScale: Double

    enum CodingKeys: String, CodingKey {
        case type
        case screenWidth = "screen_width"
        case screenHeight = "screen_height"
        case screenScale = "screen_scale"
    }

    /// Creates a device block.
    public init(type: String, screenWidth: Double, screenHeight: Double, screenScale: Double) {
        self.type = type
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.screenScale = screenScale
    }
}

/// The events endpoint's request body: one batch.
public struct NitxEventBatchWire: Codable, Sendable, Hashable {
    /// The visitor id, or `null` when personalization is off.
    public var visitorID: String?
    /// The events, oldest first.
    public var events: [NitxEventWire]

    enum CodingKeys: String, CodingKey {
        case events
        case visitorID = "visitor_id"
    }

    /// Creates a batch.
    public init(visitorID: String?, events: [NitxEventWire]) {
        self.visitorID = visitorID
        self.events = events
    }
}

/// One event.
public struct NitxEventWire: Codable, Sendable, Hashable {
    /// `impression` or `viewable`.
    public var type: String
    /// The impression id from the POST ads answer.
    public var impressionID: String
    /// The slot code.
    public var slot: String
    /// When it happened, milliseconds since 1970 (UTC).
    public var timestamp: Int64

    enum CodingKeys: String, CodingKey {
        case type, slot
        case impressionID = "impression_id"
        case timestamp = "ts"
    }

    /// Creates an event.
    public init(type: String, impressionID: String, slot: String, timestamp: Int64) {
        self.type = type
        self.impressionID = impressionID
        self.slot = slot
        self.timestamp = timestamp
    }
}

/// The forget endpoint's request body.
public struct NitxForgetRequestWire: Codable, Sendable, Hashable {
    /// The visitor id being forgotten.
    public var visitorID: String

    enum CodingKeys: String, CodingKey { case visitorID = "visitor_id" }

    /// Creates a forget request.
    public init(visitorID: String) { self.visitorID = visitorID }
}

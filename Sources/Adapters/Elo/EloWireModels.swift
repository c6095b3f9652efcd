// The Elo wire protocol: an OpenRTB 2.6-flavoured JSON request and response (the Elo seed does
// not fix the JSON; documented in docs/networks/elo.md). Every JSON key Elo exchanges is in this
// file. Optional fields are omitted when `nil`.

/// `POST <base>/v1/bid` body: one bid request for one impression.
public struct EloBidRequest: Codable, Sendable, Hashable {
    /// The request id (a UUID), unique per request; the response echoes it.
    public var id: String
    /// The time allowed for the answer, network included, in milliseconds.
    public var tmax: Int
    /// Auction type: 1 = first price (Elo's price is its bid).
    public var at: Int
    /// Accepted currencies: `["USD"]`.
    public var cur: [String]
    /// Exactly one impression.
    public var imp: [EloWireImp]
    /// The host app and the publisher.
    public var app: EloWireApp
    /// Device signals.
    public var device: EloWireDevice
    /// The visitor and, when allowed, first-party user data.
    public var user: EloWireUser
    /// Regulations.
    public var regs: EloWireRegs
    /// Elo's chat context and session.
    public var ext: EloWireRequestExt
}

/// One impression opportunity.
public struct EloWireImp: Codable, Sendable, Hashable {
    /// Always `"1"`.
    public var id: String
    /// The ad unit id.
    public var tagid: String
    /// The lowest acceptable price, USD CPM (optional).
    public var bidfloor: Double?
    /// `"USD"` when ``bidfloor`` is set.
    public var bidfloorcur: String?
    /// The slot: max width and height in whole points (`nil` = unbounded).
    public var native: EloWireSlot
    /// `"elo-swift-mediation"`.
    public var displaymanager: String
    /// The client's version.
    public var displaymanagerver: String
    /// 1: HTTPS creatives only.
    public var secure: Int
}

/// The slot's bounds, in whole points (device-independent pixels).
public struct EloWireSlot: Codable, Sendable, Hashable {
    /// The widest ad, whole points; omitted when unbounded.
    public var w: Int?
    /// The tallest ad, whole points; omitted when unbounded (the card is served).
    public var h: Int?
}

/// The publisher.
public struct EloWirePublisher: Codable, Sendable, Hashable {
    /// The publisher id.
    public var id: String
}

/// The host app (OpenRTB `app`).
public struct EloWireApp: Codable, Sendable, Hashable {
    /// The bundle id.
    public var bundle: String
    /// The app version.
    public var ver: String
    /// The publisher.
    public var publisher: EloWirePublisher
}

/// Device signals (OpenRTB `device`).
public struct EloWireDevice: Codable, Sendable, Hashable {
    /// Manufacturer, e.g. `"Apple"`.
    public var make: String
    /// Model, e.g. `"iPhone15,2"`.
    public var model: String
    /// OS, e.g. `"iOS"`.
    public var os: String
    /// OS version.
    public var osv: String
    /// AdCOM device type: 4 phone, 5 tablet.
    public var devicetype: Int
    /// ISO 639-1 language.
    public var language: String
    /// AdCOM connection type (0 ... 7).
    public var connectiontype: Int
    /// Screen width in physical pixels.
    public var w: Int
    /// Screen height in physical pixels.
    public var h: Int
    /// Physical pixels per point.
    public var pxratio: Double
    /// Limit ad tracking: 1 when tracking is not authorized.
    public var lmt: Int
    /// The advertising id (IDFA), only when tracking is authorized.
    public var ifa: String?
    /// Location (rounded) and the settings-derived country and UTC offset.
    public var geo: EloWireGeo
    /// Vendor id.
    public var ext: EloWireDeviceExt?
}

/// OpenRTB `device.geo`.
public struct EloWireGeo: Codable, Sendable, Hashable {
    /// Latitude in degrees, rounded to the configured precision; only when sharing is on.
    public var lat: Double?
    /// Longitude in degrees, rounded likewise.
    public var lon: Double?
    /// Location source: 1 (location services) when ``lat``/``lon`` are sent.
    public var type: Int?
    /// ISO 3166-1 alpha-3 country from the device settings.
    public var country: String?
    /// Local time minus UTC, in minutes.
    public var utcoffset: Int
}

/// `device.ext`.
public struct EloWireDeviceExt: Codable, Sendable, Hashable {
    /// The vendor id (IDFV), sent when the advertising id is not.
    public var ifv: String?
}

/// OpenRTB `user`.
public struct EloWireUser: Codable, Sendable, Hashable {
    /// The visitor id: the publisher's user identifier when set, else the anonymous per-install id.
    public var id: String
    /// The TCF consent string, when the host has one.
    public var consent: String?
    /// First-party user data.
    public var ext: EloWireUserExt?
}

/// `user.ext`: first-party data, never sent under COPPA, TFUA or GDPR.
public struct EloWireUserExt: Codable, Sendable, Hashable {
    /// Age, gender, email and phone as the publisher set them.
    public var data: EloWireUserData?
}

/// `user.ext.data`.
public struct EloWireUserData: Codable, Sendable, Hashable {
    /// Age in years.
    public var age: Int?
    /// `male`, `female` or `other`.
    public var gender: String?
    /// Email as supplied (the server normalizes and hashes it).
    public var email: String?
    /// Phone in E.164 as supplied.
    public var phone: String?
}

/// OpenRTB `regs`.
public struct EloWireRegs: Codable, Sendable, Hashable {
    /// 1 when COPPA applies.
    public var coppa: Int
    /// 1 / 0 when GDPR applies / does not; omitted when unknown.
    public var gdpr: Int?
    /// The US Privacy string.
    public var us_privacy: String?
    /// The GPP string.
    public var gpp: String?
    /// The GPP section ids.
    public var gpp_sid: [Int]?
    /// TFUA.
    public var ext: EloWireRegsExt
}

/// `regs.ext`.
public struct EloWireRegsExt: Codable, Sendable, Hashable {
    /// 1 for under-age treatment.
    public var tfua: Int
}

/// `ext` of the request: Elo's own fields.
public struct EloWireRequestExt: Codable, Sendable, Hashable {
    /// The Elo payload.
    public var elo: EloWireChatContext
}

/// `ext.elo`: the session and the chat context.
public struct EloWireChatContext: Codable, Sendable, Hashable {
    /// The session id (new on every configure).
    public var session_id: String
    /// The client's version.
    public var sdk_version: String
    /// The latest 30 messages, oldest first.
    public var messages: [EloWireMessage]
    /// Screen or page metadata.
    public var context_objects: [EloWireContextObject]
}

/// One chat message.
public struct EloWireMessage: Codable, Sendable, Hashable {
    /// `user`, `assistant` or `summary`.
    public var role: String
    /// The text.
    public var content: String
    /// The host's message id (<= 256 code points, printable), when valid.
    public var id: String?
    /// ISO 8601 UTC time the turn happened, when valid (2020 or later, at most a day ahead).
    public var created_at: String?
}

/// One context object.
public struct EloWireContextObject: Codable, Sendable, Hashable {
    /// The kind, e.g. `product`.
    public var type: String
    /// Its description.
    public var description: String
}

/// The 200 response: OpenRTB `BidResponse` (a 204 with no body means no bids).
public struct EloBidResponse: Codable, Sendable, Hashable {
    /// Echo of the request id.
    public var id: String
    /// The ad opportunity id the server assigned (``EloAd/id``); required with a bid.
    public var bidid: String?
    /// Price currency; must be `USD` when present.
    public var cur: String?
    /// Seat bids; empty or absent means no bids.
    public var seatbid: [EloWireSeatBid]?
    /// No-bid reason code (OpenRTB), when the server chose not to bid.
    public var nbr: Int?
}

/// One seat's bids.
public struct EloWireSeatBid: Codable, Sendable, Hashable {
    /// The bids; Elo uses the first.
    public var bid: [EloWireBid]
    /// The seat, e.g. `elo`.
    public var seat: String?
}

/// One bid.
public struct EloWireBid: Codable, Sendable, Hashable {
    /// The bid id.
    public var id: String
    /// The impression it is for (`"1"`).
    public var impid: String
    /// The price, USD CPM; must be finite and >= 0.
    public var price: Double
    /// The creative id (stable across showings); required.
    public var crid: String
    /// The ad's width in points, when the server gives one.
    public var w: Double?
    /// The ad's height in points, when the server gives one.
    public var h: Double?
    /// Seconds the ad may wait before it is shown (TTL).
    public var exp: Int?
    /// The creative.
    public var ext: EloWireBidExt
}

/// `bid.ext`.
public struct EloWireBidExt: Codable, Sendable, Hashable {
    /// The creative's assets and tracking.
    public var elo: EloWireCreative
}

/// `bid.ext.elo`: the creative.
public struct EloWireCreative: Codable, Sendable, Hashable {
    /// `card` or `strip`.
    public var format: String
    /// The headline; required, not blank.
    public var title: String
    /// Body copy.
    public var description: String?
    /// The creative mark's URL.
    public var image_url: String?
    /// The call-to-action label.
    public var cta_text: String?
    /// The destination.
    public var click_url: String?
    /// The presentation's CTA flag.
    public var cta_enabled: Bool?
    /// Tracking URLs.
    public var tracking: EloWireTracking?
}

/// Tracking URLs, pinged with GET (the visitor id appended as `visitor_id`).
public struct EloWireTracking: Codable, Sendable, Hashable {
    /// Pinged when the ad is rendered.
    public var render: [String]?
    /// Pinged at the impression.
    public var impression: [String]?
    /// Pinged at the click.
    public var click: [String]?
}

/// `POST <base>/v1/events` body: analytics for the host's own in-app browser (never billed).
public struct EloWireAnalyticsEvent: Codable, Sendable, Hashable {
    /// `browser_open` or `browser_close`.
    public var event: String
    /// The ad opportunity id.
    public var ad_id: String
    /// The creative id.
    public var creative_id: String
    /// The visitor id.
    public var visitor_id: String
    /// For `browser_close`: milliseconds since the open, capped at 86,400,000 (24 h).
    public var dwell_ms: Int?
}

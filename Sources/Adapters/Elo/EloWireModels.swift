// The Elo wire protocol: an OpenRTB 2.6-flavoured JSON request and response (the Elo seed does
// not fix the JSON; documented in docs/networks/elo.md). Every JSON key Elo exchanges is in this
// file. Optional fields are omitted when `nil`.

/// `POST <base>/v1/bid` body: one bid request for one impression.
package struct EloWireBidRequest: Codable, Sendable, Hashable {
    /// The request id (a UUID), unique per request; the response echoes it.
    package var id: String
    /// The time allowed for the answer, network included, in milliseconds.
    package var tmax: Int
    /// Auction type: 1 = first price (Elo's price is its bid).
    package var at: Int
    /// Accepted currencies: `["USD"]`.
    package var cur: [String]
    /// Exactly one impression.
    package var imp: [EloWireImp]
    /// The host app and the publisher.
    package var app: EloWireApp
    /// Device signals.
    package var device: EloWireDevice
    /// The visitor and, when allowed, first-party user data.
    package var user: EloWireUser
    /// Regulations.
    package var regs: EloWireRegs
    /// Elo's chat context and session.
    package var ext: EloWireRequestExt
}

/// One impression opportunity.
package struct EloWireImp: Codable, Sendable, Hashable {
    /// Always `"1"`.
    package var id: String
    /// The ad unit id.
    package var tagid: String
    /// The lowest acceptable price, USD CPM (optional).
    package var bidfloor: Double?
    /// `"USD"` when ``bidfloor`` is set.
    package var bidfloorcur: String?
    /// The slot: max width and height in whole points (`nil` = unbounded).
    package var native: EloWireSlot
    /// `"elo-swift-mediation"`.
    package var displaymanager: String
    /// The client's version.
    package var displaymanagerver: String
    /// 1: HTTPS creatives only.
    package var secure: Int
}

/// The slot's bounds, in whole points (device-independent pixels).
package struct EloWireSlot: Codable, Sendable, Hashable {
    /// The widest ad, whole points; omitted when unbounded.
    package var w: Int?
    /// The tallest ad, whole points; omitted when unbounded (the card is served).
    package var h: Int?
}

/// The publisher.
package struct EloWirePublisher: Codable, Sendable, Hashable {
    /// The publisher id.
    package var id: String
}

/// The host app (OpenRTB `app`).
package struct EloWireApp: Codable, Sendable, Hashable {
    /// The bundle id.
    package var bundle: String
    /// The app version.
    package var ver: String
    /// The publisher.
    package var publisher: EloWirePublisher
}

/// Device signals (OpenRTB `device`).
package struct EloWireDevice: Codable, Sendable, Hashable {
    /// Manufacturer, e.g. `"Apple"`.
    package var make: String
    /// Model, e.g. `"iPhone15,2"`.
    package var model: String
    /// Hardware version, when the host gives one.
    package var hwv: String?
    /// OS, e.g. `"iOS"`.
    package var os: String
    /// OS version.
    package var osv: String
    /// AdCOM device type: 4 phone, 5 tablet.
    package var devicetype: Int
    /// ISO 639-1 language.
    package var language: String
    /// AdCOM connection type (0 ... 7).
    package var connectiontype: Int
    /// Screen width in physical pixels.
    package var w: Int
    /// Screen height in physical pixels.
    package var h: Int
    /// Physical pixels per point.
    package var pxratio: Double
    /// Limit ad tracking: 1 unless tracking is authorized, not limited by the OS, and allowed by
    /// the privacy signals (not COPPA, not TFUA, consent not withdrawn).
    package var lmt: Int
    /// The advertising id (IDFA), only when ``lmt`` is 0.
    package var ifa: String?
    /// Location (rounded) and the settings-derived country and UTC offset.
    package var geo: EloWireGeo
    /// Vendor id.
    package var ext: EloWireDeviceExt?
}

/// OpenRTB `device.geo`.
package struct EloWireGeo: Codable, Sendable, Hashable {
    /// Latitude in degrees, rounded to the configured precision; only when sharing is on.
    package var lat: Double?
    /// Longitude in degrees, rounded likewise.
    package var lon: Double?
    /// Location source: 1 (location services) when ``lat``/``lon`` are sent.
    package var type: Int?
    /// ISO 3166-1 alpha-3 country from the device settings.
    package var country: String?
    /// Local time minus UTC, in minutes.
    package var utcoffset: Int
}

/// `device.ext`.
package struct EloWireDeviceExt: Codable, Sendable, Hashable {
    /// The vendor id (IDFV), sent when the advertising id is not.
    package var ifv: String?
}

/// OpenRTB `user`.
package struct EloWireUser: Codable, Sendable, Hashable {
    /// The visitor id: the anonymous per-install id; omitted where it may not be sent (COPPA,
    /// TFUA, limit-ad-tracking, a withdrawal).
    package var id: String?
    /// The TCF consent string, when the host has one.
    package var consent: String?
}

/// OpenRTB `regs`.
package struct EloWireRegs: Codable, Sendable, Hashable {
    /// 1 when COPPA applies.
    package var coppa: Int
    /// 1 / 0 when GDPR applies / does not; omitted when unknown.
    package var gdpr: Int?
    /// The US Privacy string.
    package var us_privacy: String?
    /// The GPP string.
    package var gpp: String?
    /// The GPP section ids.
    package var gpp_sid: [Int]?
    /// TFUA.
    package var ext: EloWireRegsExt
}

/// `regs.ext`.
package struct EloWireRegsExt: Codable, Sendable, Hashable {
    /// 1 for under-age treatment.
    package var tfua: Int
}

/// `ext` of the request: Elo's own fields.
package struct EloWireRequestExt: Codable, Sendable, Hashable {
    /// The Elo payload.
    package var elo: EloWireChatContext
}

/// `ext.elo`: the session and the chat context.
package struct EloWireChatContext: Codable, Sendable, Hashable {
    /// The session id (new on every configure).
    package var session_id: String
    /// The client's version.
    package var sdk_version: String
    /// The latest 30 messages, oldest first.
    package var messages: [EloWireMessage]
    /// Screen or page metadata.
    package var context_objects: [EloWireContextObject]
}

/// One chat message.
package struct EloWireMessage: Codable, Sendable, Hashable {
    /// `user`, `assistant` or `summary`.
    package var role: String
    /// The text.
    package var content: String
    /// The host's message id (<= 256 code points, printable), when valid.
    package var id: String?
    /// ISO 8601 UTC time the turn happened, when valid (2020 or later, at most a day ahead).
    package var created_at: String?
}

/// One context object.
package struct EloWireContextObject: Codable, Sendable, Hashable {
    /// The kind, e.g. `product`.
    package var type: String
    /// Its description.
    package var description: String
}

/// The 200 response: OpenRTB `BidResponse` (a 204 with no body means no bids).
package struct EloWireBidResponse: Codable, Sendable, Hashable {
    /// Echo of the request id.
    package var id: String
    /// The ad opportunity id the server assigned (``EloAd/id``); required with a bid.
    package var bidid: String?
    /// Price currency; must be `USD` when present.
    package var cur: String?
    /// Seat bids; empty or absent means no bids.
    package var seatbid: [EloWireSeatBid]?
    /// No-bid reason code (OpenRTB), when the server chose not to bid.
    package var nbr: Int?
}

/// One seat's bids.
package struct EloWireSeatBid: Codable, Sendable, Hashable {
    /// The bids; Elo uses the first.
    package var bid: [EloWireBid]
    /// The seat, e.g. `elo`.
    package var seat: String?
}

/// One bid.
package struct EloWireBid: Codable, Sendable, Hashable {
    /// The bid id.
    package var id: String
    /// The impression it is for (`"1"`).
    package var impid: String
    /// The price, USD CPM; must be finite and >= 0.
    package var price: Double
    /// The creative id (stable across showings); required.
    package var crid: String
    /// The ad's width in points, when the server gives one.
    package var w: Double?
    /// The ad's height in points, when the server gives one.
    package var h: Double?
    /// Seconds the ad may wait before it is shown (TTL).
    package var exp: Int?
    /// The creative.
    package var ext: EloWireBidExt
}

/// `bid.ext`.
package struct EloWireBidExt: Codable, Sendable, Hashable {
    /// The creative's assets and tracking.
    package var elo: EloWireCreative
}

/// `bid.ext.elo`: the creative.
package struct EloWireCreative: Codable, Sendable, Hashable {
    /// `card` or `strip`.
    package var format: String
    /// The headline; required, not blank.
    package var title: String
    /// Body copy.
    package var description: String?
    /// The creative mark's URL.
    package var image_url: String?
    /// The call-to-action label.
    package var cta_text: String?
    /// The destination.
    package var click_url: String?
    /// The presentation's CTA flag.
    package var cta_enabled: Bool?
    /// Tracking URLs.
    package var tracking: EloWireTracking?
}

/// Tracking URLs, pinged with GET (the visitor id appended as `visitor_id`).
package struct EloWireTracking: Codable, Sendable, Hashable {
    /// Pinged when the ad is rendered.
    package var render: [String]?
    /// Pinged at the impression.
    package var impression: [String]?
    /// Pinged at the click.
    package var click: [String]?
}

/// `POST <base>/v1/events` body: analytics for the host's own in-app browser (never billed).
package struct EloWireAnalyticsEvent: Codable, Sendable, Hashable {
    /// `browser_open` or `browser_close`.
    package var event: String
    /// The ad opportunity id.
    package var ad_id: String
    /// The creative id.
    package var creative_id: String
    /// The visitor id, omitted when none may be sent.
    package var visitor_id: String?
    /// For `browser_close`: milliseconds since the open, capped at 86,400,000 (24 h).
    package var dwell_ms: Int?
}

import Foundation

// The Qartvelo banner API's JSON, isolated here (documented in docs/networks/qartvelo.md).
// Sizes on the wire are in pixels (points x screen scale), as the Qartvelo seed says
// ("The API receives screen_width and banner_height in pixels"). The rest of the request is
// OpenRTB-flavoured (`app`, `device`, `regs`, `user` keep OpenRTB 2.6 names and codes).

/// `POST /v1/banner`: one banner request.
struct QartveloWireBannerRequest: Codable, Hashable, Sendable {
    /// The request id, unique per request; echoed in the response.
    var id: String
    /// Qartvelo's placement id (the line item's ad unit id).
    var placementID: String
    /// `"inline"` for inline banners; absent for anchored ones (Qartvelo seed, "Inline banners").
    var bannerMode: String?
    /// The width the banner is laid out at, in pixels (the container's width; the screen's
    /// width for a full-width banner).
    var screenWidth: Int
    /// Anchored adaptive only: the slot height in pixels. Absent when adaptive sizing is off
    /// (the server's widest-fit rule) and for inline banners.
    var bannerHeight: Int?
    /// Inline only: the maximum height in pixels.
    var bannerMaxHeight: Int?
    /// The creative types the client can show: `["image", "html5"]`.
    var creativeTypes: [String]
    /// Milliseconds the client waits for the answer, latency included (OpenRTB `tmax`).
    var tmax: Int
    /// The app.
    var app: App
    /// The device.
    var device: Device
    /// Regulations (OpenRTB `regs`).
    var regs: Regs
    /// The user's consent string, when GDPR applies (OpenRTB `user`).
    var user: User?

    enum CodingKeys: String, CodingKey {
        case id
        case placementID = "placement_id"
        case bannerMode = "banner_mode"
        case screenWidth = "screen_width"
        case bannerHeight = "banner_height"
        case bannerMaxHeight = "banner_max_height"
        case creativeTypes = "creative_types"
        case tmax, app, device, regs, user
    }

    /// OpenRTB `app`, plus Qartvelo's app registration id.
    struct App: Codable, Hashable, Sendable {
        /// The app's Qartvelo registration id (the `app_id` credential).
        var id: String
        /// The bundle id.
        var bundle: String
        /// The app version.
        var ver: String
    }

    /// OpenRTB `device`.
    struct Device: Codable, Hashable, Sendable {
        var make: String
        var model: String
        var os: String
        var osv: String
        /// AdCOM device type: 4 phone, 5 tablet.
        var devicetype: Int
        /// Screen width in physical pixels.
        var w: Int
        /// Screen height in physical pixels.
        var h: Int
        /// Physical pixels per point.
        var pxratio: Double
        /// ISO 639-1 language.
        var language: String
        /// AdCOM connection type.
        var connectiontype: Int
        /// 1 when ad tracking is limited.
        var lmt: Int
        /// The advertising id, only when tracking is authorized, not limited and no regulation
        /// restricts user data.
        var ifa: String?
    }

    /// OpenRTB `regs`.
    struct Regs: Codable, Hashable, Sendable {
        /// 1 under COPPA, else 0.
        var coppa: Int
        /// 1 GDPR applies, 0 it does not, absent unknown.
        var gdpr: Int?
        /// The US Privacy string.
        var usPrivacy: String?
        /// The GPP string.
        var gpp: String?
        /// The GPP section ids.
        var gppSID: [Int]?
        /// 1 when the user is under the age of consent (tag for users under age).
        var tfua: Int?

        enum CodingKeys: String, CodingKey {
            case coppa, gdpr, gpp, tfua
            case usPrivacy = "us_privacy"
            case gppSID = "gpp_sid"
        }
    }

    /// OpenRTB `user`.
    struct User: Codable, Hashable, Sendable {
        /// The TCF consent string.
        var consent: String
    }
}

/// The answer to `POST /v1/banner` (status 200). Status 204 means no fill.
struct QartveloWireBannerResponse: Codable, Hashable, Sendable {
    /// The request's id, echoed.
    var id: String?
    /// The ad, or absent for no fill.
    var ad: Ad?
    /// The dashboard's refresh interval in whole seconds (Qartvelo seed: at least 30, default 60;
    /// the placement raises lower values to 30).
    var bannerRefreshSeconds: Int?
    /// Why there is no ad, when `ad` is absent, e.g. `"no_inventory"`.
    var nofillReason: String?

    enum CodingKeys: String, CodingKey {
        case id, ad
        case bannerRefreshSeconds = "banner_refresh_seconds"
        case nofillReason = "nofill_reason"
    }

    /// One creative.
    struct Ad: Codable, Hashable, Sendable {
        /// Qartvelo's creative id.
        var creativeID: String
        /// `"image"` or `"html5"`.
        var type: String
        /// The artwork's width in pixels.
        var w: Int
        /// The artwork's height in pixels.
        var h: Int
        /// Artwork pixels per point of its design size: 3 for Retina adaptive artwork
        /// (960x150 is a 320x50 pt design), 1 for standard sizes; absent means 1.
        var density: Double?
        /// The image, for `image` ads.
        var imageURL: URL?
        /// The HTML5 bundle (the ad's files), for `html5` ads.
        var bundleURL: URL?
        /// The bundle's size in bytes as the server knows it, for `html5` ads.
        var bundleSize: Int?
        /// The advertiser's page, opened on a click.
        var clickURL: URL?
        /// Fired once on the impression.
        var impressionURL: URL?
        /// Fired on each click after the impression.
        var clickTrackingURL: URL?
        /// How long the ad may be shown after loading, in seconds; absent uses the format's
        /// default (1 h).
        var ttlSeconds: Int?

        enum CodingKeys: String, CodingKey {
            case type, w, h, density
            case creativeID = "creative_id"
            case imageURL = "image_url"
            case bundleURL = "bundle_url"
            case bundleSize = "bundle_size"
            case clickURL = "click_url"
            case impressionURL = "impression_url"
            case clickTrackingURL = "click_tracking_url"
            case ttlSeconds = "ttl_seconds"
        }
    }
}

extension JSONEncoder {
    /// The encoder for Qartvelo's wire: sorted keys so bodies are stable byte for byte.
    static var qartvelo: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

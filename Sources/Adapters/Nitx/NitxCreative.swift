import Foundation

/// What a Nitx ad shows, decoded from the wire (Nitx seed, "Formats").
public struct NitxCreative: Sendable, Hashable {
    /// How the creative renders.
    public enum Kind: String, Sendable, Hashable {
        /// A still image.
        case image
        /// A video (downloaded before playback on the device).
        case video
    }

    /// Image or video (HTML never gets here: it fails as a creative failure).
    public var kind: Kind
    /// The ad's name.
    public var name: String?
    /// The creative's path as the server sent it, e.g. `/creatives/42.png`.
    public var path: String?
    /// The creative's URL: the path resolved against the API base URL.
    public var url: URL?
    /// The backend click URL the host opens on a click.
    public var clickURL: URL?
    /// Native assets (also filled for path-only ads: headline = name, image = path).
    public var assets: NitxNativeAssets

    /// Creates a creative.
    package init(kind: Kind, name: String?, path: String?, url: URL?, clickURL: URL?, assets: NitxNativeAssets) {
        self.kind = kind
        self.name = name
        self.path = path
        self.url = url
        self.clickURL = clickURL
        self.assets = assets
    }
}

/// A native ad's assets, all optional (Nitx seed, "Native"): headline, body, call to action,
/// advertiser, icon, image, video, rating (0 to 5) and price. The wire's `assets` block has the
/// same shape (the same keys), so this one type decodes it and is what the host lays out.
public struct NitxNativeAssets: Codable, Sendable, Hashable {
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
    package init(headline: String? = nil, body: String? = nil, cta: String? = nil, advertiser: String? = nil, icon: String? = nil, image: String? = nil, video: String? = nil, rating: Double? = nil, price: String? = nil) {
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

/// The kind of ad a placement shows. Raw values are the JSON configuration's spelling.
public enum AdFormat: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// A banner in a slot of the screen (anchored or inline, see
    /// ``MediationConfiguration/Placement/BannerSizing``); refreshes.
    case banner
    /// A full-screen ad shown at a natural pause (a level end, a screen change).
    case interstitial
    /// A full-screen ad shown when the app comes to the foreground.
    case appOpen = "app_open"
    /// An ad delivered as assets (headline, body, image, call to action) that the host renders,
    /// such as a chat app's strip or card.
    case native
    /// A full-screen ad that grants the user a reward when watched.
    case rewarded

    /// The default lifetime of an ad of this format when its network gives no TTL (engine rule
    /// R14): banner, interstitial, native and rewarded 1 hour, app open 4 hours.
    public var defaultTimeToLive: Duration {
        switch self {
        case .appOpen: .seconds(4 * 3600)
        case .banner, .interstitial, .native, .rewarded: .seconds(3600)
        }
    }

    /// The JSON spelling, e.g. `app_open`.
    public var description: String { rawValue }
}

extension MediationConfiguration.Placement {
    /// How a banner placement sizes its slot (Qartvelo seed, "Banner" and "Inline banners").
    public enum BannerSizing: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// Pinned to the top or bottom of the screen at the container's full width; the height
        /// follows the width (50 to 90 pt).
        case anchored
        /// Inside scrolling content: the ad takes the biggest size that fits the width and the
        /// slot's maximum height, keeping its proportions.
        case inline

        /// The JSON spelling.
        public var description: String { rawValue }
    }
}

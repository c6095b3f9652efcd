extension MediationConfiguration {
    /// One frequency cap (`docs/caps.md`): at most ``impressions`` in a sliding window of
    /// ``window`` or per session. JSON `{"impressions": 20, "per_seconds": 86400}` or
    /// `{"impressions": 3, "per": "session"}`.
    package struct Cap: Hashable, Sendable, CustomStringConvertible {
        /// The cap's window.
        public enum Window: Hashable, Sendable {
            /// A sliding window of this many seconds (1 s ... 30 days).
            case seconds(Int)
            /// One session: the app launched, or back in the foreground after at least
            /// ``CapBook/sessionGapSeconds`` in the background.
            case session
        }

        /// The longest window: 30 days, in seconds.
        public static let maximumWindowSeconds = 30 * 86_400
        /// The most impressions a cap may allow: 1,000 (the stored state of a cap holds one
        /// instant per impression it allows).
        public static let maximumImpressions = 1_000

        /// Impressions allowed in a window (1 ... ``maximumImpressions``).
        public var impressions: Int
        /// The window.
        public var window: Window

        /// Creates a cap.
        /// - Parameters:
        ///   - impressions: impressions allowed in the window.
        ///   - window: a sliding window in seconds, or the session.
        public init(impressions: Int, window: Window) {
            self.impressions = impressions
            self.window = window
        }

        /// `20/86400s` or `3/session`.
        public var description: String {
            switch window {
            case .seconds(let seconds): "\(impressions)/\(seconds)s"
            case .session: "\(impressions)/session"
            }
        }
    }

    /// The caps and pacing of one level (the app, a placement, a network or a line item): keys
    /// `caps` and `pacing_seconds`.
    package struct CapSettings: Hashable, Sendable {
        /// The caps; each must allow the next impression (the strictest binds).
        public var caps: [Cap]
        /// The least time between two impressions counted at this level, in whole seconds
        /// (1 ... 30 days), if any.
        public var pacingSeconds: Int?

        /// Creates settings.
        /// - Parameters:
        ///   - caps: the caps.
        ///   - pacingSeconds: the least seconds between two impressions, if any.
        public init(caps: [Cap] = [], pacingSeconds: Int? = nil) {
            self.caps = caps
            self.pacingSeconds = pacingSeconds
        }

        /// Whether it limits nothing.
        public var isEmpty: Bool { caps.isEmpty && pacingSeconds == nil }
    }

    /// The app-wide settings (top-level `"app"`): caps and pacing over every impression of
    /// every placement, and the gap between two full-screen ads.
    package struct AppSettings: Hashable, Sendable {
        /// The default gap between the end of one full-screen ad and the start of the next:
        /// 30 s (see `docs/caps.md`: long enough that two full-screen ads never follow each
        /// other back to back, short enough that no level end of a casual game loses its ad).
        public static let defaultFullScreenGapSeconds = 30

        /// Caps and pacing over every impression of the app.
        public var caps: CapSettings
        /// The least seconds from the end of one full-screen ad (interstitial, rewarded, app
        /// open) to the start of the next, whatever their formats and placements (0 ... 1 day).
        public var fullScreenGapSeconds: Int

        /// Creates app settings.
        /// - Parameters:
        ///   - caps: app-wide caps and pacing.
        ///   - fullScreenGapSeconds: the gap between full-screen ads in seconds.
        public init(caps: CapSettings = CapSettings(), fullScreenGapSeconds: Int = AppSettings.defaultFullScreenGapSeconds) {
            self.caps = caps
            self.fullScreenGapSeconds = fullScreenGapSeconds
        }
    }
}

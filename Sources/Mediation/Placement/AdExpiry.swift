extension Placement.Ad {
    /// When a loaded ad stops being usable (engine rule R14): the network's TTL from when it
    /// arrived, else its format's default (banner and interstitial 1 h, app open 4 h). An ad is
    /// usable strictly before ``expiresAt``; at that instant it has expired.
    package struct Expiry: Hashable, Sendable {
        /// When the ad arrived, on the engine's clock.
        public var loadedAt: MediationInstant
        /// How long it may be shown after arriving.
        public var timeToLive: Duration

        /// Creates an expiry.
        /// - Parameters:
        ///   - loadedAt: when the ad arrived.
        ///   - timeToLive: the network's TTL; `nil` uses `format`'s default. A TTL of zero or less
        ///     (untrusted network input) makes the ad expired on arrival.
        ///   - format: the ad's format.
        package init(loadedAt: MediationInstant, timeToLive: Duration?, format: AdFormat) {
            self.loadedAt = loadedAt
            self.timeToLive = timeToLive ?? format.defaultTimeToLive
        }

        /// The first instant at which the ad is no longer usable.
        public var expiresAt: MediationInstant { loadedAt + timeToLive }

        /// Whether the ad may still be shown at `now` (strictly before ``expiresAt``).
        /// - Parameter now: the current instant.
        public func isUsable(at now: MediationInstant) -> Bool { now < expiresAt }
    }
}

extension MediationConfiguration {
    /// What a segment (or an experiment's variant) changes in a placement: one JSON object of
    /// the same shape wherever it appears; every field is optional and an absent one changes
    /// nothing.
    /// ```json
    /// { "sources": ["nitx_us", "elo"], "ecpm": { "nitx_us": 4.0 }, "floor": 0.5,
    ///   "refresh_seconds": 30, "mode": "waterfall" }
    /// ```
    /// There is one place that applies it, ``applied(to:)``.
    package struct PlacementOverride: Hashable, Sendable {
        /// Which of the placement's line items take part (by id), in the placement's order;
        /// `nil` for all of them.
        public var sources: [String]?
        /// A fixed price per line item id, USD CPM: beats the line item's `ecpm` and its
        /// `ecpm_by_country`.
        public var eCPM: [String: Double]
        /// The placement's floor, USD CPM.
        public var floor: Double?
        /// The banner refresh interval, whole seconds (30...86400).
        public var refreshSeconds: Int?
        /// Parallel or waterfall.
        public var mode: Placement.AuctionMode?
        /// The placement's caps in place of its own (`caps`, `docs/caps.md`); `nil` keeps them.
        public var caps: [Cap]?
        /// The placement's pacing in place of its own (`pacing_seconds`), seconds; `nil` keeps it.
        public var pacingSeconds: Int?
        /// An experiment variant's own `segments`, chosen from in place of the placement's for
        /// the variant's installs (first match wins, the default last); `nil` keeps the
        /// placement's. Only a variant's override holds it (a segment has none).
        package var segments: [AudienceSegment]?

        /// Creates an override (all fields optional: the empty override changes nothing).
        public init(sources: [String]? = nil, eCPM: [String: Double] = [:], floor: Double? = nil, refreshSeconds: Int? = nil, mode: Placement.AuctionMode? = nil) {
            self.sources = sources
            self.eCPM = eCPM
            self.floor = floor
            self.refreshSeconds = refreshSeconds
            self.mode = mode
        }

        /// The caps and pacing it sets (empty when it sets neither), as one level's settings.
        package var capSettings: CapSettings { CapSettings(caps: caps ?? [], pacingSeconds: pacingSeconds) }

        /// Whether it changes nothing.
        package var isEmpty: Bool {
            sources == nil && eCPM.isEmpty && floor == nil && refreshSeconds == nil && mode == nil && caps == nil && pacingSeconds == nil && segments == nil
        }

        /// `placement` with this override applied: only the listed sources (in the placement's
        /// order), the given prices (in USD: the line item's currency becomes USD and its learned
        /// `ecpm_sd`, `ecpm_impressions` and `ecpm_by_country` go, as the price is set by hand),
        /// floor, refresh and mode, and a variant's segments in place of the placement's. The
        /// one place an override is applied.
        /// - Parameter placement: a placement the override was read for (ids it names that the
        ///   placement lacks are skipped; the loader refuses such an override).
        /// - Returns: the changed placement.
        package func applied(to placement: Placement) -> Placement {
            var result = placement
            if let sources {
                let kept = Set(sources)
                result.sources = placement.sources.filter { kept.contains($0.id) }
            }
            if !eCPM.isEmpty {
                for index in result.sources.indices {
                    guard let price = eCPM[result.sources[index].id] else { continue }
                    result.sources[index].eCPM = price
                    result.sources[index].currency = "USD"
                    result.sources[index].usdRate = 1
                    result.sources[index].eCPMSD = nil
                    result.sources[index].eCPMImpressions = nil
                    result.sources[index].eCPMByCountry = [:]
                }
            }
            if let floor { result.floor = floor }
            if let refreshSeconds { result.refreshSeconds = refreshSeconds }
            if let mode { result.mode = mode }
            if let caps { result.caps.caps = caps }
            if let pacingSeconds { result.caps.pacingSeconds = pacingSeconds }
            if let segments { result.segments = segments }
            return result
        }
    }
}

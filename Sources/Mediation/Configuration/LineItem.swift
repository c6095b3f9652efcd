extension MediationConfiguration.Placement {
    /// The auction mode of a placement (engine rule R1).
    package enum AuctionMode: String, Sendable, Hashable, Codable {
        /// Every eligible source is asked at once (the default).
        case parallel
        /// Bidders are asked at once; fixed-price sources tier by tier in descending eCPM.
        case waterfall
    }
}

/// One source of a placement (a line item): a network, its ad unit, and how it is priced.
public struct LineItem: Hashable, Sendable {
    /// The line item's id, unique within its placement, e.g. `"nitx_level_end"`.
    public var id: String
    /// The network id (a key of the config's `networks`).
    public var network: String
    /// The network's own id for the ad unit.
    public var adUnitID: String
    /// How the source is priced.
    public var pricing: Pricing
    /// For fixed-price sources, the configured eCPM in ``currency`` (positive, finite).
    public var eCPM: Double?
    /// For bidders, the lowest bid accepted, in ``currency`` CPM.
    public var floor: Double?
    /// The source's own limit (`timeout_ms`), counted from the moment the source is asked (so a
    /// waterfall tier asked later gets its full time) and never past the deadline (R3a).
    public var timeout: Duration?
    /// The ISO 4217 currency of the source's prices, `"USD"` by default.
    public var currency: String
    /// USD per unit of ``currency`` (1 for USD); applied exactly once to each price (R9).
    public var usdRate: Double
    /// For a learned eCPM (`ecpm_sd`), the standard deviation of its estimate in ``currency`` CPM.
    public var eCPMSD: Double?
    /// For a learned eCPM (`ecpm_impressions`), the impressions its estimate rests on.
    public var eCPMImpressions: Int?
    /// Its own caps and pacing (`caps`, `pacing_seconds`; `docs/caps.md`): a line item capped
    /// is `not_asked` (`capped`) and its ad refused at show.
    package var caps = MediationConfiguration.CapSettings()
    /// For fixed-price sources, the eCPM in ``currency`` by country (`ecpm_by_country`, keys
    /// upper-case ISO 3166-1 alpha-2): used instead of ``eCPM`` in an auction whose country is
    /// listed; a segment's own `ecpm` for the line item beats it.
    public var eCPMByCountry: [String: Double] = [:]

    /// Creates a line item.
    public init(
        id: String,
        network: String,
        adUnitID: String = "",
        pricing: Pricing,
        eCPM: Double? = nil,
        floor: Double? = nil,
        timeout: Duration? = nil,
        currency: String = "USD",
        usdRate: Double = 1,
        eCPMSD: Double? = nil,
        eCPMImpressions: Int? = nil
    ) {
        self.id = id
        self.network = network
        self.adUnitID = adUnitID
        self.pricing = pricing
        self.eCPM = eCPM
        self.floor = floor
        self.timeout = timeout
        self.currency = currency
        self.usdRate = usdRate
        self.eCPMSD = eCPMSD
        self.eCPMImpressions = eCPMImpressions
    }

    /// A bidder line item.
    public static func bidder(_ id: String, network: String? = nil, adUnitID: String = "", floor: Double? = nil, timeout: Duration? = nil) -> LineItem {
        LineItem(id: id, network: network ?? id, adUnitID: adUnitID, pricing: .bidder, floor: floor, timeout: timeout)
    }

    /// A fixed-price line item at `eCPM` USD.
    public static func fixedPrice(_ id: String, network: String? = nil, adUnitID: String = "", eCPM: Double, timeout: Duration? = nil) -> LineItem {
        LineItem(id: id, network: network ?? id, adUnitID: adUnitID, pricing: .fixedPrice, eCPM: eCPM, timeout: timeout)
    }
}

extension MediationConfiguration.Placement {
    /// How a placement values its fixed-price line items (engine rule R23).
    package enum Exploration: String, Sendable, Hashable, Codable {
        /// At their configured eCPM (the default).
        case off
        /// Thompson sampling: each auction values a fixed-price line item at a draw from its
        /// price's posterior, `eCPM + sd · z` (at least 1 micro), with `sd` its `ecpm_sd` or, for a
        /// line item never learned, ``ExplorationDraw/unlearnedCoefficientOfVariation`` × its eCPM,
        /// and `z` standard normal from the auction id and the line item id (``ExplorationDraw``),
        /// so the same auction gives the same values. An uncertain line item sometimes wins, and
        /// so is learned; a well-learned one barely moves.
        case thompson
    }
}

extension MediationConfiguration {
    /// One placement of the configuration: an app slot and its ordered sources.
    public struct Placement: Hashable, Sendable {
        /// The default auction deadline, 3000 ms (R3).
        public static let defaultDeadline: Duration = .milliseconds(3000)
        /// The default banner refresh interval, 60 s (R13).
        public static let defaultRefreshSeconds = 60
        /// The shortest refresh interval allowed, 30 s (R13).
        public static let minimumRefreshSeconds = 30

        /// The placement id, e.g. `"home_banner"`.
        public var id: String
        /// The format it shows.
        public var format: AdFormat
        /// For banners, anchored or inline sizing; `nil` for other formats.
        public var bannerSizing: BannerSizing?
        /// The slot's bounds in points.
        public var slot: SlotSize
        /// For banners, the refresh interval in whole seconds (>= 30); `nil` for formats that do
        /// not refresh.
        public var refreshSeconds: Int?
        /// The auction deadline from its start (at most 3000 ms).
        public var deadline: Duration
        /// The lowest value accepted from any source, in USD CPM; `nil` for none.
        public var floor: Double?
        /// Parallel or waterfall.
        package var mode: AuctionMode
        /// The sources in config order (the last tie-break, R5).
        public var sources: [LineItem]
        /// How fixed-price line items are valued: at their eCPM, or by Thompson sampling (R23).
        package var exploration: Exploration = .off
        /// Its caps and pacing (`caps`, `pacing_seconds`; `docs/caps.md`), over every
        /// impression of the placement.
        package var caps = MediationConfiguration.CapSettings()
        /// Its audience segments (`segments`), in order: the first whose predicate matches an
        /// auction's audience changes the placement for that auction; the last is the default.
        /// Empty when the placement has none.
        package var segments: [AudienceSegment] = []

        /// Creates a placement configuration.
        package init(
            id: String,
            format: AdFormat,
            bannerSizing: BannerSizing? = nil,
            slot: SlotSize = SlotSize(),
            refreshSeconds: Int? = nil,
            deadline: Duration = MediationConfiguration.Placement.defaultDeadline,
            floor: Double? = nil,
            mode: AuctionMode = .parallel,
            sources: [LineItem]
        ) {
            self.id = id
            self.format = format
            self.bannerSizing = bannerSizing
            self.slot = slot
            self.refreshSeconds = refreshSeconds
            self.deadline = deadline
            self.floor = floor
            self.mode = mode
            self.sources = sources
        }

        /// The JSON path of this placement, e.g. `placements.home_banner` (an id that is not a
        /// plain identifier is written `placements["a.b"]`).
        public var path: String {
            JSONPath.root.appending("placements").appending(id).description
        }

        /// The JSON path of the source at `index`, e.g. `placements.level_end.sources[0]`.
        /// - Parameter index: the source's position in ``sources``.
        public func path(ofSourceAt index: Int) -> String {
            JSONPath.root.appending("placements").appending(id).appending("sources").appending(index: index).description
        }

        /// The JSON path of `lineItem` (found by its id, unique in a placement), e.g.
        /// `placements.level_end.sources[0]`; the placement's `sources` path when it is not one of
        /// this placement's sources.
        /// - Parameter lineItem: one of ``sources``.
        public func path(of lineItem: LineItem) -> String {
            guard let index = sources.firstIndex(where: { $0.id == lineItem.id }) else {
                return JSONPath.root.appending("placements").appending(id).appending("sources").description
            }
            return path(ofSourceAt: index)
        }
    }
}

extension LineItem {
    /// How a source's ads are priced (see `docs/engine-rules.md`, "Words").
    public enum Pricing: String, Sendable, Hashable, Codable {
        /// The network's answer carries the price (Elo): it always could still win while outstanding.
        case bidder
        /// The line item's configured eCPM prices every fill (Nitx, Qartvelo, the fallback).
        case fixedPrice = "fixed_price"
    }
}

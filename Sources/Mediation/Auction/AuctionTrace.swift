extension AuctionTrace {
    /// One source's line in an auction's trace.
    package struct Source: Hashable, Sendable, Codable {
        /// The line item id.
        public package(set) var lineItemID: String
        /// The network id.
        public package(set) var network: String
        /// The network's ad unit id the request carried.
        public package(set) var adUnitID: String
        /// Bidder or fixed price.
        public package(set) var pricing: LineItem.Pricing
        /// Its position in the placement's `sources` (0-based, config order).
        public package(set) var position: Int
        /// Waterfall mode: the fixed-price tier it belongs to (1 is the highest eCPM); `nil` for
        /// bidders and in parallel mode.
        public package(set) var tier: Int?
        /// The configured eCPM of a fixed-price line item, in ``currency`` CPM; `nil` for bidders.
        public package(set) var configuredECPM: Double?
        /// The line item's own floor (bidders), in ``currency`` CPM, if any.
        public package(set) var floor: Double?
        /// The ISO 4217 currency of its prices (`"USD"` by default).
        public package(set) var currency: String
        /// The USD rate applied once to its prices when ``currency`` is not USD; `nil` for USD.
        public package(set) var usdRate: Double?
        /// Its effective limit in milliseconds from when it was asked (R3a); `nil` if never asked.
        public package(set) var limitMilliseconds: Double?
        /// When it was asked, in milliseconds from the auction's start; `nil` if never asked.
        public package(set) var startOffsetMilliseconds: Double?
        /// How long it took to answer, in milliseconds; `nil` if it had not answered by its
        /// outcome (a late answer is in ``lateAnswer``).
        public package(set) var latencyMilliseconds: Double?
        /// Its one outcome.
        public package(set) var outcome: SourceOutcome
        /// Its value in USD CPM: the bid converted to USD, or the configured eCPM of a fill;
        /// `nil` when it brought no ad (or an invalid price, kept in ``rawPrice``).
        public package(set) var eCPM: Double?
        /// The price as the network gave it (bids) or as configured (fills), in ``currency``
        /// CPM, before validation and conversion.
        public package(set) var rawPrice: Double?
        /// The network's id of the request it answered (bounded), if its answer carried one.
        public package(set) var requestID: String?
        /// The network's bid id (bounded), if its answer carried one.
        public package(set) var bidID: String?
        /// The creative id of the ad it brought, if any.
        public package(set) var creativeID: String?
        /// The id of the ad it brought (``LoadedAd/id``, unique per showing), if any.
        public package(set) var adID: String?
        /// Whether the engine released its ad (by the time the trace was taken).
        public package(set) var adReleased: Bool
        /// An answer that came after its outcome was set, if any (R6a).
        public package(set) var lateAnswer: AuctionTrace.Source.LateAnswer?
        /// For a source `not_asked` because its network is paused (`network_paused`, R24): when
        /// the network is tried again, in milliseconds on the engine's clock (`retry_at_ms`).
        public package(set) var retryAtMilliseconds: Double?
        /// Errors about this source in this auction (a failed request, an invalid price, a
        /// timeout), in the order they happened.
        public package(set) var errors: [AuctionTrace.Source.Issue]
        /// Warnings about this source in this auction (what its adapter logged as a warning while
        /// the auction ran, a late answer).
        public package(set) var warnings: [AuctionTrace.Source.Issue]

        private enum CodingKeys: String, CodingKey {
            case lineItemID = "line_item"
            case network
            case adUnitID = "ad_unit_id"
            case pricing
            case position
            case tier
            case configuredECPM = "configured_ecpm"
            case floor
            case currency
            case usdRate = "usd_rate"
            case limitMilliseconds = "limit_ms"
            case startOffsetMilliseconds = "start_ms"
            case latencyMilliseconds = "latency_ms"
            case outcome
            case eCPM = "ecpm"
            case rawPrice = "raw_price"
            case requestID = "request_id"
            case bidID = "bid_id"
            case creativeID = "creative_id"
            case adID = "ad_id"
            case adReleased = "released"
            case lateAnswer = "late_answer"
            case retryAtMilliseconds = "retry_at_ms"
            case errors
            case warnings
        }

        /// Creates a trace line.
        package init(
            lineItemID: String,
            network: String,
            adUnitID: String = "",
            pricing: LineItem.Pricing,
            position: Int = 0,
            tier: Int? = nil,
            configuredECPM: Double? = nil,
            floor: Double? = nil,
            currency: String = "USD",
            usdRate: Double? = nil,
            limitMilliseconds: Double? = nil,
            startOffsetMilliseconds: Double? = nil,
            latencyMilliseconds: Double? = nil,
            outcome: SourceOutcome,
            eCPM: Double? = nil,
            rawPrice: Double? = nil,
            requestID: String? = nil,
            bidID: String? = nil,
            creativeID: String? = nil,
            adID: String? = nil,
            adReleased: Bool = false,
            lateAnswer: AuctionTrace.Source.LateAnswer? = nil,
            retryAtMilliseconds: Double? = nil,
            errors: [AuctionTrace.Source.Issue] = [],
            warnings: [AuctionTrace.Source.Issue] = []
        ) {
            self.lineItemID = lineItemID
            self.network = network
            self.adUnitID = adUnitID
            self.pricing = pricing
            self.position = position
            self.tier = tier
            self.configuredECPM = configuredECPM
            self.floor = floor
            self.currency = currency
            self.usdRate = usdRate
            self.limitMilliseconds = limitMilliseconds
            self.startOffsetMilliseconds = startOffsetMilliseconds
            self.latencyMilliseconds = latencyMilliseconds
            self.outcome = outcome
            self.eCPM = eCPM
            self.rawPrice = rawPrice
            self.requestID = requestID
            self.bidID = bidID
            self.creativeID = creativeID
            self.adID = adID
            self.adReleased = adReleased
            self.lateAnswer = lateAnswer
            self.retryAtMilliseconds = retryAtMilliseconds
            self.errors = errors
            self.warnings = warnings
        }

        /// Decodes the form the encoder writes; fields added after the first release default
        /// (`ad_unit_id` empty, `position` 0, `currency` USD, no errors or warnings).
        /// - Throws: `DecodingError` for a missing or mistyped required field.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            lineItemID = try container.decode(String.self, forKey: .lineItemID)
            network = try container.decode(String.self, forKey: .network)
            adUnitID = try container.decodeIfPresent(String.self, forKey: .adUnitID) ?? ""
            pricing = try container.decode(LineItem.Pricing.self, forKey: .pricing)
            position = try container.decodeIfPresent(Int.self, forKey: .position) ?? 0
            tier = try container.decodeIfPresent(Int.self, forKey: .tier)
            configuredECPM = try container.decodeIfPresent(Double.self, forKey: .configuredECPM)
            floor = try container.decodeIfPresent(Double.self, forKey: .floor)
            currency = try container.decodeIfPresent(String.self, forKey: .currency) ?? "USD"
            usdRate = try container.decodeIfPresent(Double.self, forKey: .usdRate)
            limitMilliseconds = try container.decodeIfPresent(Double.self, forKey: .limitMilliseconds)
            startOffsetMilliseconds = try container.decodeIfPresent(Double.self, forKey: .startOffsetMilliseconds)
            latencyMilliseconds = try container.decodeIfPresent(Double.self, forKey: .latencyMilliseconds)
            outcome = try container.decode(SourceOutcome.self, forKey: .outcome)
            eCPM = try container.decodeIfPresent(Double.self, forKey: .eCPM)
            rawPrice = try container.decodeIfPresent(Double.self, forKey: .rawPrice)
            requestID = try container.decodeIfPresent(String.self, forKey: .requestID)
            bidID = try container.decodeIfPresent(String.self, forKey: .bidID)
            creativeID = try container.decodeIfPresent(String.self, forKey: .creativeID)
            adID = try container.decodeIfPresent(String.self, forKey: .adID)
            adReleased = try container.decodeIfPresent(Bool.self, forKey: .adReleased) ?? false
            lateAnswer = try container.decodeIfPresent(AuctionTrace.Source.LateAnswer.self, forKey: .lateAnswer)
            retryAtMilliseconds = try container.decodeIfPresent(Double.self, forKey: .retryAtMilliseconds)
            errors = try container.decodeIfPresent([AuctionTrace.Source.Issue].self, forKey: .errors) ?? []
            warnings = try container.decodeIfPresent([AuctionTrace.Source.Issue].self, forKey: .warnings) ?? []
        }
    }
}

extension AuctionTrace {
    /// A warning every trace of a placement carries, with a stable code, e.g. `sandbox_endpoint`
    /// when some of its sources' networks use their in-process sandbox instead of a real server.
    package struct Warning: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The stable code, e.g. `"sandbox_endpoint"`.
        public package(set) var code: String
        /// The networks it is about, in configuration order.
        public package(set) var networks: [String]
        /// What it means, for a person.
        public package(set) var message: String

        /// The code of the warning that some of the placement's networks use their sandbox.
        public static let sandboxEndpointCode = "sandbox_endpoint"

        /// Creates a warning.
        public init(code: String, networks: [String], message: String) {
            self.code = code
            self.networks = networks
            self.message = message
        }

        /// The `sandbox_endpoint` warning for `networks`.
        /// - Parameter networks: the network ids whose endpoint is `"sandbox"`, in config order.
        public static func sandboxEndpoint(_ networks: [String]) -> AuctionTrace.Warning {
            AuctionTrace.Warning(
                code: sandboxEndpointCode,
                networks: networks,
                message: "answered by in-process sandbox servers, not real ad servers: \(networks.joined(separator: ", "))"
            )
        }

        /// `code: message`.
        public var description: String { "\(code): \(message)" }
    }
}

/// The record of one auction: what every source did, who won, and when it started and ended.
/// Returned with every outcome; ``description`` reads well for a person and `Codable` gives
/// JSON for a program (snake_case keys; instants in milliseconds on the engine's clock, named
/// `..._at_ms`; lengths in milliseconds, named `..._ms`).
public struct AuctionTrace: Hashable, Sendable, Codable {
    /// Every field, in one immutable shared box: copying a trace (into an event, a notice, the
    /// caller's outcome) costs one reference count; setting a field replaces the box.
    private struct Fields {
        var auctionID: String
        var placementID: String
        var mode: MediationConfiguration.Placement.AuctionMode
        var startedAtWallClock: WallClockTime?
        var startedAtMilliseconds: Double
        var endedAtMilliseconds: Double
        var deadlineMilliseconds: Double
        var placement: AuctionTrace.PlacementSummary?
        var winner: String?
        var winningECPM: Double?
        var lines: SourceLines
        var warnings: [AuctionTrace.Warning]
        var configVersion: Int
        var audience: AuctionTrace.AudienceLabel?
        var experiment: MediationEvent.ExperimentArm? = nil
    }

    private var storage: SharedValue<Fields>

    /// Changes the fields (a new box; copies of this trace keep the old one).
    private mutating func change(_ body: (inout Fields) -> Void) {
        storage = storage.changed(body)
    }

    /// A unique id for the auction (OpenRTB `${AUCTION_ID}`).
    public package(set) var auctionID: String {
        get { storage.value.auctionID }
        set { change { $0.auctionID = newValue } }
    }
    /// The placement id.
    public package(set) var placementID: String {
        get { storage.value.placementID }
        set { change { $0.placementID = newValue } }
    }
    /// Parallel or waterfall.
    package var mode: MediationConfiguration.Placement.AuctionMode {
        get { storage.value.mode }
        set { change { $0.mode = newValue } }
    }
    /// The wall-clock time it started (from ``MediationEnvironment/wallClock``), if known.
    /// JSON: `started_at`, ISO 8601 in UTC with milliseconds.
    package var startedAtWallClock: WallClockTime? {
        get { storage.value.startedAtWallClock }
        set { change { $0.startedAtWallClock = newValue } }
    }
    /// When it started, in milliseconds on the engine's clock.
    public package(set) var startedAtMilliseconds: Double {
        get { storage.value.startedAtMilliseconds }
        set { change { $0.startedAtMilliseconds = newValue } }
    }
    /// When it ended (decided), in milliseconds on the engine's clock.
    public package(set) var endedAtMilliseconds: Double {
        get { storage.value.endedAtMilliseconds }
        set { change { $0.endedAtMilliseconds = newValue } }
    }
    /// Its deadline instant, in milliseconds on the engine's clock (JSON `deadline_at_ms`).
    public package(set) var deadlineMilliseconds: Double {
        get { storage.value.deadlineMilliseconds }
        set { change { $0.deadlineMilliseconds = newValue } }
    }
    /// The placement's configuration as this auction ran it, if known.
    package var placement: AuctionTrace.PlacementSummary? {
        get { storage.value.placement }
        set { change { $0.placement = newValue } }
    }
    /// The winning line item id, if any.
    public package(set) var winner: String? {
        get { storage.value.winner }
        set { change { $0.winner = newValue } }
    }
    /// The winning value in USD CPM, if any.
    public package(set) var winningECPM: Double? {
        get { storage.value.winningECPM }
        set { change { $0.winningECPM = newValue } }
    }
    /// One line per source, in config order.
    ///
    /// An auction's trace builds its lines the first time they are read (from its state
    /// machine's record, kept as it was when the auction ended), so an auction whose trace
    /// nobody reads pays nothing for them; every read sees the same lines.
    package var sources: [AuctionTrace.Source] {
        get {
            switch storage.value.lines {
            case .built(let sources): sources
            case .deferred(let deferred): deferred.lines
            }
        }
        set { change { $0.lines = .built(newValue) } }
    }
    /// The lines, built or still to build.
    private var lines: SourceLines { storage.value.lines }
    /// The `config_version` of the configuration this auction ran under, from its start to its
    /// end (engine rule R22): 0 for an unsigned bundled configuration.
    public var configVersion: Int { storage.value.configVersion }
    /// The experiment, variant and unit of an install exposed in this placement, if the
    /// auction ran under an experiment (JSON: `experiment`, `variant`, `unit`).
    public package(set) var experiment: MediationEvent.ExperimentArm? {
        get { storage.value.experiment }
        set { change { $0.experiment = newValue } }
    }
    /// Warnings about the whole auction, e.g. `sandbox_endpoint` (empty for none); warnings
    /// about one source are on its line (``AuctionTrace/Source/warnings``).
    package var warnings: [AuctionTrace.Warning] {
        get { storage.value.warnings }
        set { change { $0.warnings = newValue } }
    }

    private enum CodingKeys: String, CodingKey {
        case auctionID = "auction_id"
        case placementID = "placement"
        case mode
        case startedAtWallClock = "started_at"
        case startedAtMilliseconds = "started_at_ms"
        case endedAtMilliseconds = "ended_at_ms"
        case deadlineLength = "deadline_ms"
        case deadlineMilliseconds = "deadline_at_ms"
        case durationMilliseconds = "duration_ms"
        case placement = "placement_config"
        case winner
        case winningECPM = "winning_ecpm"
        case sources
        case warnings
        case configVersion = "config_version"
        case country
        case segment
        case segmentReason = "segment_reason"
        case experiment
        case variant
        case unit
    }

    /// Creates a trace.
    package init(
        auctionID: String,
        placementID: String,
        mode: MediationConfiguration.Placement.AuctionMode,
        startedAtWallClock: WallClockTime? = nil,
        startedAtMilliseconds: Double,
        endedAtMilliseconds: Double,
        deadlineMilliseconds: Double,
        placement: AuctionTrace.PlacementSummary? = nil,
        winner: String?,
        winningECPM: Double?,
        sources: [AuctionTrace.Source],
        warnings: [AuctionTrace.Warning] = [],
        configVersion: Int = 0,
        audience: AuctionTrace.AudienceLabel? = nil
    ) {
        storage = SharedValue(Fields(
            auctionID: auctionID,
            placementID: placementID,
            mode: mode,
            startedAtWallClock: startedAtWallClock,
            startedAtMilliseconds: startedAtMilliseconds,
            endedAtMilliseconds: endedAtMilliseconds,
            deadlineMilliseconds: deadlineMilliseconds,
            placement: placement,
            winner: winner,
            winningECPM: winningECPM,
            lines: .built(sources),
            warnings: warnings,
            configVersion: configVersion,
            audience: audience
        ))
    }

    /// Creates a trace whose lines `deferred` builds when first read (the auction's form).
    package init(
        auctionID: String,
        placementID: String,
        mode: MediationConfiguration.Placement.AuctionMode,
        startedAtWallClock: WallClockTime?,
        startedAtMilliseconds: Double,
        endedAtMilliseconds: Double,
        deadlineMilliseconds: Double,
        placement: AuctionTrace.PlacementSummary?,
        winner: String?,
        winningECPM: Double?,
        deferredSources deferred: any DeferredSourceLines,
        warnings: [AuctionTrace.Warning],
        configVersion: Int,
        audience: AuctionTrace.AudienceLabel? = nil
    ) {
        storage = SharedValue(Fields(
            auctionID: auctionID,
            placementID: placementID,
            mode: mode,
            startedAtWallClock: startedAtWallClock,
            startedAtMilliseconds: startedAtMilliseconds,
            endedAtMilliseconds: endedAtMilliseconds,
            deadlineMilliseconds: deadlineMilliseconds,
            placement: placement,
            winner: winner,
            winningECPM: winningECPM,
            lines: .deferred(deferred),
            warnings: warnings,
            configVersion: configVersion,
            audience: audience
        ))
    }

    /// Decodes the form the encoder writes; a trace without `warnings` has none, one without
    /// `config_version` (recorded before configurations had versions) ran under version 0.
    /// - Throws: `DecodingError` for a missing or mistyped field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storage = SharedValue(Fields(
            auctionID: try container.decode(String.self, forKey: .auctionID),
            placementID: try container.decode(String.self, forKey: .placementID),
            mode: try container.decode(MediationConfiguration.Placement.AuctionMode.self, forKey: .mode),
            startedAtWallClock: try container.decodeIfPresent(WallClockTime.self, forKey: .startedAtWallClock),
            startedAtMilliseconds: try container.decode(Double.self, forKey: .startedAtMilliseconds),
            endedAtMilliseconds: try container.decode(Double.self, forKey: .endedAtMilliseconds),
            deadlineMilliseconds: try container.decode(Double.self, forKey: .deadlineMilliseconds),
            placement: try container.decodeIfPresent(AuctionTrace.PlacementSummary.self, forKey: .placement),
            winner: try container.decodeIfPresent(String.self, forKey: .winner),
            winningECPM: try container.decodeIfPresent(Double.self, forKey: .winningECPM),
            lines: .built(try container.decode([AuctionTrace.Source].self, forKey: .sources)),
            warnings: try container.decodeIfPresent([AuctionTrace.Warning].self, forKey: .warnings) ?? [],
            configVersion: try container.decodeIfPresent(Int.self, forKey: .configVersion) ?? 0,
            audience: AuctionTrace.AudienceLabel(
                country: try container.decodeIfPresent(String.self, forKey: .country),
                segment: try container.decodeIfPresent(String.self, forKey: .segment),
                segmentReason: try container.decodeIfPresent(String.self, forKey: .segmentReason)
            ).nonEmpty
        ))
        if let experimentID = try container.decodeIfPresent(String.self, forKey: .experiment) {
            experiment = MediationEvent.ExperimentArm(experimentID: experimentID, variantID: try container.decode(String.self, forKey: .variant), unit: try container.decode(String.self, forKey: .unit))
        }
    }

    /// Encodes with snake_case keys: `auction_id`, `placement`, `mode`, `started_at` (wall
    /// clock, ISO 8601 UTC), `started_at_ms`, `ended_at_ms`, `deadline_at_ms` (instants on the
    /// engine's clock), `duration_ms` and `deadline_ms` (lengths), `placement_config`,
    /// `winner`, `winning_ecpm`, `sources`, `warnings`, `config_version`, when known
    /// `country`, `segment`, `segment_reason`, and under an experiment `experiment`, `variant`
    /// and `unit`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(auctionID, forKey: .auctionID)
        try container.encode(placementID, forKey: .placementID)
        try container.encode(mode, forKey: .mode)
        try container.encodeIfPresent(startedAtWallClock, forKey: .startedAtWallClock)
        try container.encode(startedAtMilliseconds, forKey: .startedAtMilliseconds)
        try container.encode(endedAtMilliseconds, forKey: .endedAtMilliseconds)
        try container.encode(deadlineMilliseconds, forKey: .deadlineMilliseconds)
        try container.encode(deadlineLengthMilliseconds, forKey: .deadlineLength)
        try container.encode(durationMilliseconds, forKey: .durationMilliseconds)
        try container.encodeIfPresent(placement, forKey: .placement)
        try container.encodeIfPresent(winner, forKey: .winner)
        try container.encodeIfPresent(winningECPM, forKey: .winningECPM)
        try container.encode(sources, forKey: .sources)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(configVersion, forKey: .configVersion)
        try container.encodeIfPresent(country, forKey: .country)
        try container.encodeIfPresent(segment, forKey: .segment)
        try container.encodeIfPresent(segmentReason, forKey: .segmentReason)
        if let experiment {
            try container.encode(experiment.experimentID, forKey: .experiment)
            try container.encode(experiment.variantID, forKey: .variant)
            try container.encode(experiment.unit, forKey: .unit)
        }
    }

    /// Traces are equal when every field and every line is.
    public static func == (lhs: AuctionTrace, rhs: AuctionTrace) -> Bool {
        if lhs.storage === rhs.storage { return true }
        return lhs.auctionID == rhs.auctionID
            && lhs.placementID == rhs.placementID
            && lhs.mode == rhs.mode
            && lhs.startedAtWallClock == rhs.startedAtWallClock
            && lhs.startedAtMilliseconds == rhs.startedAtMilliseconds
            && lhs.endedAtMilliseconds == rhs.endedAtMilliseconds
            && lhs.deadlineMilliseconds == rhs.deadlineMilliseconds
            && lhs.placement == rhs.placement
            && lhs.winner == rhs.winner
            && lhs.winningECPM == rhs.winningECPM
            && lhs.warnings == rhs.warnings
            && lhs.configVersion == rhs.configVersion
            && lhs.storage.value.audience == rhs.storage.value.audience
            && lhs.experiment == rhs.experiment
            && lhs.sources == rhs.sources
    }

    /// Hashes every field and every line.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(auctionID)
        hasher.combine(placementID)
        hasher.combine(mode)
        hasher.combine(startedAtWallClock)
        hasher.combine(startedAtMilliseconds)
        hasher.combine(endedAtMilliseconds)
        hasher.combine(deadlineMilliseconds)
        hasher.combine(placement)
        hasher.combine(winner)
        hasher.combine(winningECPM)
        hasher.combine(sources)
        hasher.combine(warnings)
        hasher.combine(configVersion)
        hasher.combine(storage.value.audience)
        hasher.combine(experiment)
    }

    /// The auction's country (upper-case ISO 3166-1 alpha-2), or `nil` when unknown.
    public var country: String? { storage.value.audience?.country }
    /// The id of the placement's segment the auction's audience fell in, or `nil` for a
    /// placement without segments.
    public var segment: String? { storage.value.audience?.segment }
    /// Why that segment: `tier1: country US in [US, CA, GB]`, or `default: no earlier segment
    /// matched`.
    public var segmentReason: String? { storage.value.audience?.segmentReason }

    /// The number of lines (sources), without building them.
    package var sourceCount: Int {
        switch lines {
        case .built(let sources): sources.count
        case .deferred(let deferred): deferred.count
        }
    }

    /// What the engine's own tallies need of line `index` (in `0..<sourceCount`), without
    /// building the line.
    package func sourceSummary(at index: Int) -> SourceLineSummary {
        switch lines {
        case .built(let sources): SourceLineSummary(sources[index])
        case .deferred(let deferred): deferred.summary(at: index)
        }
    }

    /// The notice of line `index`'s source (`index` in `0..<sourceCount`) if it was asked,
    /// carrying the ad unit id its request carried and `priceToBeat(won)`; `nil` if it was not
    /// asked. Builds neither the line nor any other source's part.
    package func notice(at index: Int, adUnitID: String, priceToBeat: (_ won: Bool) -> Double?) -> AuctionNotice? {
        switch lines {
        case .built(let sources):
            let line = sources[index]
            guard line.startOffsetMilliseconds != nil else { return nil }
            let won = if case .won = line.outcome { true } else { false }
            return AuctionNotice(auctionID: auctionID, placementID: placementID, lineItemID: line.lineItemID, adUnitID: adUnitID, outcome: line.outcome, eCPM: line.eCPM, priceToBeat: priceToBeat(won), adID: line.adID)
        case .deferred(let deferred):
            return deferred.notice(at: index, auctionID: auctionID, placementID: placementID, adUnitID: adUnitID, priceToBeat: priceToBeat)
        }
    }

    /// The lines still to build, while nobody has read them (an auction's fresh trace); `nil`
    /// once built or for a trace made from built lines.
    package var deferredLines: (any DeferredSourceLines)? {
        if case .deferred(let deferred) = lines { deferred } else { nil }
    }

    /// What each line's outcome says of its network's health (engine rule R24), in one pass,
    /// without building the lines or copying an outcome.
    package var healthSignals: HealthSignals {
        switch lines {
        case .built(let sources):
            var signals = HealthSignals()
            for source in sources { signals.append(HealthSignal(source.outcome)) }
            return signals
        case .deferred(let deferred):
            return deferred.healthSignals
        }
    }

    /// Line `index`'s valid value in USD CPM when its source was asked and brought a priced
    /// ad (`index` in `0..<sourceCount`), without building the line or its summary.
    package func sourceValue(at index: Int) -> Double? {
        switch lines {
        case .built(let sources): sources[index].startOffsetMilliseconds == nil ? nil : sources[index].eCPM
        case .deferred(let deferred): deferred.value(at: index)
        }
    }

    /// Line `index`'s line item id, start offset and limit in ms as its line would have them
    /// (`index` in `0..<sourceCount`), without building the line.
    package func sourceTiming(at index: Int) -> (lineItemID: String, startOffsetMilliseconds: Double?, limitMilliseconds: Double?) {
        switch lines {
        case .built(let sources): (sources[index].lineItemID, sources[index].startOffsetMilliseconds, sources[index].limitMilliseconds)
        case .deferred(let deferred): deferred.timing(at: index)
        }
    }

    /// The auction's length in milliseconds.
    public var durationMilliseconds: Double { endedAtMilliseconds - startedAtMilliseconds }

    /// The deadline as a length from the start, in milliseconds (the config's `deadline_ms`).
    public var deadlineLengthMilliseconds: Double { deadlineMilliseconds - startedAtMilliseconds }

    /// The trace line of `lineItemID`.
    package func source(_ lineItemID: String) -> AuctionTrace.Source? {
        sources.first { $0.lineItemID == lineItemID }
    }

    /// Records `late`, an answer reported after this trace was taken, on its source's line
    /// (R6a): the first late answer of a line is kept, later ones are ignored. A late answer of
    /// another auction is ignored.
    /// - Parameter late: the late answer, as the auction's late-answer handler got it.
    package mutating func record(_ late: MediationEvent.LateAnswer) {
        guard late.auctionID == auctionID, let index = sources.firstIndex(where: { $0.lineItemID == late.lineItemID }), sources[index].lateAnswer == nil else { return }
        let record = AuctionTrace.Source.LateAnswer(atOffsetMilliseconds: late.arrivedAt.milliseconds - startedAtMilliseconds, released: late.adReleased)
        sources[index].lateAnswer = record
        sources[index].warnings.append(TraceIssues.lateAnswer(record))
    }
}

extension MediationEngine.AuctionOutcome {
    /// The winner of an auction.
    ///
    /// A winner of ``MediationEngine/runAuction(placementID:context:)`` holds the configuration its
    /// auction ran under for as long as the caller holds it (the winner, any copy of it, or the
    /// ``MediationEngine/AuctionOutcome`` holding it): a configuration change (engine rule R22)
    /// that removes or changes the winner's network shuts that network's adapter down only once the
    /// winner is dropped, so the ad's impression and clicks still reach its network. Keep the
    /// winner while its ad is unshown or on screen; drop it once the ad is released or no longer
    /// shown. After ``MediationEngine/shutdown()`` a winner holds nothing (every adapter was shut
    /// down then).
    public struct Winner: Sendable {
        /// The ad, which now belongs to the caller (it was not released).
        public package(set) var ad: any LoadedAd
        /// The winning line item.
        public package(set) var lineItem: LineItem {
            get { lineItems[lineItemIndex] }
            set {
                lineItems = [newValue]
                lineItemIndex = 0
            }
        }
        /// The auction's line items, shared with its machine: a copy of the winner (the outcome
        /// passes through several hands) retains one array, not every string of a line item.
        private var lineItems: [LineItem]
        /// The winner's place in ``lineItems``.
        private var lineItemIndex: Int
        /// Its value in USD CPM.
        public package(set) var eCPM: Double
        /// When it arrived, on the engine's clock.
        public package(set) var arrivedAt: MediationInstant
        /// A one-shot winner's use of its configuration snapshot, shared by every copy; `nil` for
        /// a winner that holds none (a placement's, which its controller holds, or one built by hand).
        var hold: SnapshotHold?

        /// Creates a winner.
        public init(ad: any LoadedAd, lineItem: LineItem, eCPM: Double, arrivedAt: MediationInstant) {
            self.init(ad: ad, lineItems: [lineItem], at: 0, eCPM: eCPM, arrivedAt: arrivedAt)
        }

        /// A winner whose line item is `lineItems[index]` (`index` in `lineItems.indices`).
        init(ad: any LoadedAd, lineItems: [LineItem], at index: Int, eCPM: Double, arrivedAt: MediationInstant) {
            self.ad = ad
            self.lineItems = lineItems
            lineItemIndex = index
            self.eCPM = eCPM
            self.arrivedAt = arrivedAt
        }
    }
}

extension MediationEngine {
    /// What an auction returns: the winner, if any, and the trace.
    public struct AuctionOutcome: Sendable {
        /// The winner, or `nil` for no fill.
        public package(set) var winner: MediationEngine.AuctionOutcome.Winner?
        /// What every source did.
        public package(set) var trace: AuctionTrace
        /// The `refresh_seconds` a segment's or experiment variant's override gave this
        /// auction's placement, which the placement's next refresh count uses; `nil` when the
        /// auction ran at the placement's own value (the count then takes the value of the
        /// configuration in force when the ad arrives) or the outcome was made outside a runner.
        package var refreshSeconds: Int?

        /// Creates an outcome.
        public init(winner: MediationEngine.AuctionOutcome.Winner?, trace: AuctionTrace) {
            self.winner = winner
            self.trace = trace
        }

        /// Whether the auction filled.
        public var isFilled: Bool { winner != nil }
    }
}

extension MediationEvent {
    /// A source that answered after its auction had ended (or after it was cancelled): its ad, if
    /// any, was released on arrival (R7). Reported through the auction's late-answer handler.
    public struct LateAnswer: Sendable {
        /// The auction id.
        public package(set) var auctionID: String
        /// The placement id.
        public package(set) var placementID: String
        /// The line item id.
        public package(set) var lineItemID: String
        /// When it arrived, on the engine's clock.
        public package(set) var arrivedAt: MediationInstant
        /// Whether an ad came with it (and was released).
        public package(set) var adReleased: Bool
        /// The `config_version` its auction ran under.
        public package(set) var configVersion: Int
        /// The experiment, variant and unit its auction ran under, if any.
        public package(set) var experiment: MediationEvent.ExperimentArm?

        /// Creates a late answer record.
        public init(auctionID: String, placementID: String, lineItemID: String, arrivedAt: MediationInstant, adReleased: Bool, configVersion: Int = 0) {
            self.auctionID = auctionID
            self.placementID = placementID
            self.lineItemID = lineItemID
            self.arrivedAt = arrivedAt
            self.adReleased = adReleased
            self.configVersion = configVersion
        }
    }
}

/// The lines of a trace: built, or to be built when first read.
private enum SourceLines: Sendable {
    case built([AuctionTrace.Source])
    case deferred(any DeferredSourceLines)
}

/// Trace lines built when first read, once, whoever reads them (an auction's record of its
/// sources, ``AuctionStateMachine``'s).
package protocol DeferredSourceLines: AnyObject, Sendable {
    /// The lines, in config order; built on the first read, the same lines on every read.
    var lines: [AuctionTrace.Source] { get }
    /// The number of lines.
    var count: Int { get }
    /// Line `index`'s summary (`index` in `0..<count`), without building the line.
    func summary(at index: Int) -> SourceLineSummary
    /// Line `index`'s valid value in USD CPM if its source was asked and brought a priced ad.
    func value(at index: Int) -> Double?
    /// Line `index`'s line item id, start offset and limit in ms (``AuctionTrace/sourceTiming(at:)``).
    func timing(at index: Int) -> (lineItemID: String, startOffsetMilliseconds: Double?, limitMilliseconds: Double?)
    /// The notice of line `index`'s source if it was asked (``AuctionNotice``: its own line
    /// item, outcome, value and ad, and `priceToBeat(won)`), `nil` if not.
    func notice(at index: Int, auctionID: String, placementID: String, adUnitID: String, priceToBeat: (_ won: Bool) -> Double?) -> AuctionNotice?
    /// Hands the notice of each of the first `count` lines whose source was asked and
    /// `receives` to `deliver`, in order (what ``AuctionNotice/forEachNotice(of:sourceCount:to:adUnitID:_:)``
    /// does, without copying a line or a notice on the way): a loser's price to beat is
    /// `winningECPM`, the winner's the highest valid value of the other lines.
    func forEachNotice(auctionID: String, placementID: String, count: Int, winningECPM: Double?, receives: (Int) -> Bool, adUnitID: (Int) -> String, _ deliver: (Int, AuctionNotice) -> Void)
    /// What each line's outcome says of its network's health (``HealthSignal/init(_:)``).
    var healthSignals: HealthSignals { get }
}

/// What the engine's own tallies (statistics, simulation counts) read of a trace
/// line, available without building the line.
package struct SourceLineSummary: Sendable {
    /// Whether the source was asked (its line has a start offset).
    package var wasAsked: Bool
    /// Its latency in milliseconds, if it answered by its outcome.
    package var latencyMilliseconds: Double?
    /// Its outcome.
    package var outcome: SourceOutcome

    /// The summary of a built line.
    package init(_ line: AuctionTrace.Source) {
        wasAsked = line.startOffsetMilliseconds != nil
        latencyMilliseconds = line.latencyMilliseconds
        outcome = line.outcome
    }

    /// A summary from its parts.
    package init(wasAsked: Bool, latencyMilliseconds: Double?, outcome: SourceOutcome) {
        self.wasAsked = wasAsked
        self.latencyMilliseconds = latencyMilliseconds
        self.outcome = outcome
    }
}

extension AuctionTrace {
    /// Who an auction ran for: its country, and the segment its audience fell in and why.
    /// An auction keeps its ``SegmentChoice`` and the reason text is made when read.
    package struct AudienceLabel: Hashable, Sendable {
        /// Upper-case ISO 3166-1 alpha-2, or `nil` when unknown.
        package var country: String?
        /// The segment id, or `nil` for a placement without segments.
        package var segment: String?
        /// The reason as text (a decoded trace), or the choice that makes it (an auction's).
        private var reason: Reason?

        private enum Reason: Sendable {
            case text(String)
            case chosen(SegmentChoice)
        }

        /// `tier1: country US in [US, CA, GB]` (made from the choice on each read).
        package var segmentReason: String? {
            get {
                switch reason {
                case .text(let text)?: text
                case .chosen(let choice)?: choice.reason
                case nil: nil
                }
            }
            set { reason = newValue.map(Reason.text) }
        }

        /// A label.
        package init(country: String?, segment: String?, segmentReason: String?) {
            self.country = country
            self.segment = segment
            reason = segmentReason.map(Reason.text)
        }

        /// The label of an auction of `country` whose audience fell in `choice`'s segment.
        package init(country: String?, choice: SegmentChoice) {
            self.country = country
            segment = choice.id
            reason = .chosen(choice)
        }

        /// Equal when the country, the segment and the reason text are.
        package static func == (lhs: AudienceLabel, rhs: AudienceLabel) -> Bool {
            lhs.country == rhs.country && lhs.segment == rhs.segment && lhs.segmentReason == rhs.segmentReason
        }

        /// Hashes the country, the segment and the reason text.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(country)
            hasher.combine(segment)
            hasher.combine(segmentReason)
        }

        /// `nil` when it says nothing.
        var nonEmpty: AudienceLabel? {
            country == nil && segment == nil && reason == nil ? nil : self
        }
    }
}

/// One ``MediationEvent`` as a `Codable` record, for logs and replays: the event's name, its
/// instant and placement, and the fields of its kind. Like the events, it carries ids, prices,
/// instants and traces only: never chat content, context, device or user data.
///
/// JSON (snake_case, instants in milliseconds on the engine's clock):
/// `{"event": "auction_finished", "at_ms": 60090, "placement": "home_banner", "trace": {…}}`;
/// other kinds carry `reason` (`auction_started`: `load`, `refresh`, …; `released`: `replaced`,
/// `expired`, …), `ad` (a ``MediationEvent/AdSummary``), `expires_at_ms`, `due_at_ms`, `revenue_usd` (`shown`)
/// or, for `late_answer`, `auction_id`, `line_item` and `ad_released`. Every record carries
/// `config_version` (R22); a configuration update (`config_applied`, `config_refused` …) carries
/// its code in `reason`, and `message`, `path`, `offered_version`, `source` and
/// `next_check_at_ms`; its `placement` is empty. A network's health (`network_paused`,
/// `network_resumed`, R24) carries `network`, `failed_probes` and, when paused, its cause in
/// `reason`, `failures`, `outcomes`, `backoff_ms` and `retry_at_ms`; its `placement` is empty,
/// unless the event is about one line item paused on its own: then `line_item` names it and
/// `placement` is its placement. `auction_started`, `auction_finished` and the events of an ad
/// (`shown` included) carry the auction's `country` and `segment` when it has them.
/// An event of a placement where the install was exposed to an
/// experiment carries `experiment`, `variant` and `unit` (an `exposure` event starts them);
/// `shown` and `exposure` carry the wall-clock `day` (UTC, `YYYY-MM-DD`).
/// A `capped` event carries `cap` (the rule, e.g.
/// `placement:level_end 20/86400s`), `retry_at_ms` (absent when only a new session frees it)
/// and, for a refused show, `line_item`.
package struct EventRecord: Hashable, Sendable, Codable {
    /// The event's name (``MediationEvent/name``), e.g. `auction_finished`.
    package var event: String
    /// When it happened, milliseconds on the engine's clock.
    package var atMilliseconds: Double
    /// The placement id.
    package var placementID: String
    /// Why an auction started, or why an ad was released.
    package var reason: String?
    /// An auction's trace (`auction_finished`).
    package var trace: AuctionTrace?
    /// The ad (ad events).
    package var ad: MediationEvent.AdSummary?
    /// When a loaded ad expires, milliseconds on the engine's clock (`ad_loaded`).
    package var expiresAtMilliseconds: Double?
    /// When the next refresh is due, milliseconds on the engine's clock (`refresh_scheduled`).
    package var dueAtMilliseconds: Double?
    /// An impression's revenue, USD (`shown`).
    package var revenueUSD: Double?
    /// The auction of a late answer.
    package var auctionID: String?
    /// The line item of a late answer, or of a line item's health event.
    package var lineItemID: String?
    /// Whether a late answer's ad was released.
    package var adReleased: Bool?
    /// The `config_version` the event belongs to (``MediationEvent/configVersion``); `nil` in
    /// records written before configurations had versions.
    package var configVersion: Int?
    /// A configuration update's message.
    package var message: String?
    /// A configuration update's JSON path inside the offered configuration.
    package var path: String?
    /// The version a configuration update was offered.
    package var offeredVersion: Int?
    /// Where a configuration update's configuration came from (`bundled`, `cache`, `remote`).
    package var source: String?
    /// When a configuration update's next check is due, milliseconds on the engine's clock.
    package var nextCheckAtMilliseconds: Double?
    /// The network a health event is about.
    package var network: String?
    /// A paused network's failed verdicts, of ``outcomes``.
    package var failures: Int?
    /// A paused network's verdicts counted.
    package var outcomes: Int?
    /// A network's failed probes since it was paused from closed.
    package var failedProbes: Int?
    /// A paused network's back-off, in milliseconds.
    package var backoffMilliseconds: Double?
    /// When a paused network is tried again, or a cap frees, milliseconds on the engine's clock.
    package var retryAtMilliseconds: Double?
    /// The cap that refused a show (`capped`), e.g. `placement:level_end 20/86400s`.
    package var cap: String?
    /// The auction's country, upper-case ISO 3166-1 alpha-2, when known (`auction_started`,
    /// `auction_finished` and every event of its ad, `shown` included).
    package var country: String?
    /// The segment the auction's audience fell in (the same events), for a placement with
    /// segments.
    package var segment: String?
    /// The experiment of an event of a placement where the install was exposed
    /// (``MediationEvent/experiment``).
    package var experiment: String?
    /// The variant, beside ``experiment``.
    package var variant: String?
    /// The install's user unit in the experiment, beside ``experiment``: 16 hex digits.
    package var unit: String?
    /// The wall-clock day (UTC, `YYYY-MM-DD`) of a `shown` or `exposure` event.
    package var day: String?

    private enum CodingKeys: String, CodingKey {
        case event
        case atMilliseconds = "at_ms"
        case placementID = "placement"
        case reason
        case trace
        case ad
        case expiresAtMilliseconds = "expires_at_ms"
        case dueAtMilliseconds = "due_at_ms"
        case revenueUSD = "revenue_usd"
        case auctionID = "auction_id"
        case lineItemID = "line_item"
        case adReleased = "ad_released"
        case configVersion = "config_version"
        case message
        case path
        case offeredVersion = "offered_version"
        case source
        case nextCheckAtMilliseconds = "next_check_at_ms"
        case network
        case failures
        case outcomes
        case failedProbes = "failed_probes"
        case backoffMilliseconds = "backoff_ms"
        case retryAtMilliseconds = "retry_at_ms"
        case cap
        case country
        case segment
        case experiment
        case variant
        case unit
        case day
    }

    /// The record of `event`.
    /// - Parameter event: an engine event.
    package init(_ event: MediationEvent) {
        self.event = event.name
        atMilliseconds = event.instant.milliseconds
        placementID = event.placementID
        ad = event.ad
        configVersion = event.configVersion
        country = event.ad?.country
        segment = event.ad?.segment
        if let arm = event.experiment {
            experiment = arm.experimentID
            variant = arm.variantID
            unit = arm.unit
        }
        day = event.day
        switch event {
        case .auctionStarted(_, let reason, _, _, _, let country, let segment):
            self.reason = reason.rawValue
            self.country = country
            self.segment = segment
        case .auctionFinished(_, let trace, _):
            self.trace = trace
            country = trace.country
            segment = trace.segment
        case .adLoaded(_, let expiresAt, _):
            expiresAtMilliseconds = expiresAt.milliseconds
        case .shown(let impression, _):
            revenueUSD = impression.revenueUSD
        case .released(_, let reason, _):
            self.reason = reason.rawValue
        case .refreshScheduled(_, let dueAt, _, _, _):
            dueAtMilliseconds = dueAt.milliseconds
        case .configuration(let update):
            reason = update.code.rawValue
            message = update.message
            path = update.path
            offeredVersion = update.offeredVersion
            source = update.source.rawValue
            nextCheckAtMilliseconds = update.nextCheckAt?.milliseconds
        case .lateAnswer(let late):
            auctionID = late.auctionID
            lineItemID = late.lineItemID
            adReleased = late.adReleased
        case .networkPaused(let pause):
            network = pause.networkID
            lineItemID = pause.lineItemID
            reason = pause.cause.rawValue
            failures = pause.failures
            outcomes = pause.outcomes
            failedProbes = pause.failedProbes
            backoffMilliseconds = pause.backoffMilliseconds
            retryAtMilliseconds = pause.retryAt.milliseconds
        case .networkResumed(let networkID, let probes, _, _, let lineItem):
            network = networkID
            lineItemID = lineItem
            failedProbes = probes
        case .capped(_, let lineItem, let refusal, _):
            lineItemID = lineItem
            cap = refusal.cap
            retryAtMilliseconds = refusal.retryAt?.milliseconds
        case .clicked, .retired, .expired, .renderFailed, .placementRemoved, .exposure:
            break
        }
    }
}

extension MediationEvent {
    /// What an event says about one ad: who served it and at what value. It never carries the
    /// creative's content, the request, chat content or user data.
    public struct AdSummary: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The placement id, e.g. `"home_banner"`.
        public var placementID: String
        /// The ad's id (unique per showing).
        public var adID: String
        /// The network's creative id.
        public var creativeID: String
        /// The network id, e.g. `"elo"`.
        public var network: String
        /// The winning line item id.
        public var lineItemID: String
        /// The ad's format.
        public var format: AdFormat
        /// The ad's size in points.
        public var size: AdSize
        /// The ad's value in USD CPM (the winning eCPM of its auction).
        public var eCPM: Double
        /// The `config_version` its auction ran under (R22), which it keeps after a newer version
        /// is applied: its impression and revenue belong to that version.
        public var configVersion: Int
        /// The country its auction ran for (upper-case ISO 3166-1 alpha-2), if known.
        public var country: String?
        /// The segment its auction's audience fell in, for a placement with segments.
        public var segment: String?
        /// The experiment, variant and unit its auction ran under, if any (it keeps them
        /// after the experiment ends: its impression belongs to that variant).
        public var experiment: ExperimentArm?

        /// Creates a summary.
        public init(placementID: String, adID: String, creativeID: String, network: String, lineItemID: String, format: AdFormat, size: AdSize, eCPM: Double, configVersion: Int = 0, experiment: ExperimentArm? = nil) {
            self.placementID = placementID
            self.adID = adID
            self.creativeID = creativeID
            self.network = network
            self.lineItemID = lineItemID
            self.format = format
            self.size = size
            self.eCPM = eCPM
            self.configVersion = configVersion
            self.experiment = experiment
        }

        private enum CodingKeys: String, CodingKey {
            case placementID, adID, creativeID, network, lineItemID, format, size, eCPM, configVersion, country, segment, experiment
        }

        /// Decodes the form the encoder writes; a summary without `configVersion` (recorded before
        /// configurations had versions) is version 0.
        /// - Throws: `DecodingError` for a missing or mistyped field.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            placementID = try container.decode(String.self, forKey: .placementID)
            adID = try container.decode(String.self, forKey: .adID)
            creativeID = try container.decode(String.self, forKey: .creativeID)
            network = try container.decode(String.self, forKey: .network)
            lineItemID = try container.decode(String.self, forKey: .lineItemID)
            format = try container.decode(AdFormat.self, forKey: .format)
            size = try container.decode(AdSize.self, forKey: .size)
            eCPM = try container.decode(Double.self, forKey: .eCPM)
            configVersion = try container.decodeIfPresent(Int.self, forKey: .configVersion) ?? 0
            country = try container.decodeIfPresent(String.self, forKey: .country)
            segment = try container.decodeIfPresent(String.self, forKey: .segment)
            experiment = try container.decodeIfPresent(ExperimentArm.self, forKey: .experiment)
        }

        /// `network/line item ad-id size @ eCPM`, e.g. `nitx/neta nitx-1 320x50 @ $1.20`; control
        /// characters in the ids are escaped (R17).
        public var description: String {
            "\(DisplayText.escaped(network))/\(DisplayText.escaped(lineItemID)) \(DisplayText.escaped(adID)) \(size) @ \(USD.cpm(eCPM))"
        }
    }
}

extension MediationEvent {
    /// One counted impression with its impression-level revenue (engine rule R12).
    public struct Impression: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The ad that was shown.
        public var ad: MediationEvent.AdSummary
        /// The wall-clock day (UTC) it was counted, `YYYY-MM-DD`, when known (the `day` field
        /// of `shown` events, by which experiment reports count days).
        public var day: String?

        /// Creates an impression.
        /// - Parameters:
        ///   - ad: the ad that was shown.
        ///   - day: the wall-clock day (UTC) it was counted, `YYYY-MM-DD`.
        public init(ad: MediationEvent.AdSummary, day: String? = nil) {
            self.ad = ad
            self.day = day
        }

        /// The network that served it.
        public var network: String { ad.network }
        /// The placement it was shown in.
        public var placementID: String { ad.placementID }
        /// The line item that won.
        public var lineItemID: String { ad.lineItemID }
        /// Its value in USD CPM.
        public var eCPM: Double { ad.eCPM }
        /// The revenue of this one impression in USD: eCPM / 1000.
        public var revenueUSD: Double { ad.eCPM / 1000 }

        /// `network/line item @ eCPM, revenue $0.001200`.
        public var description: String {
            "\(ad) revenue \(USD.revenue(revenueUSD))"
        }
    }
}

extension MediationEvent {
    /// Why a placement started an auction.
    public enum AuctionReason: String, Sendable, Hashable, Codable {
        /// The host called `load()`, or a view attached to an empty banner placement.
        case load
        /// The refresh interval's visible time ran out (R13).
        case refresh
        /// The current ad's creative could not be shown; the new auction leaves its line item out.
        case renderFailure = "render_failure"
        /// A one-shot auction run through ``MediationEngine/runAuction(placementID:context:)``.
        case oneShot = "one_shot"
    }
}

extension MediationEvent {
    /// Why the engine released an ad it held (it never releases a shown ad, R12).
    public enum ReleaseReason: String, Sendable, Hashable, Codable {
        /// It was the current ad, never shown, and a newer ad replaced it.
        case replaced
        /// It expired before it was shown (R14).
        case expired
        /// Its creative could not be shown.
        case renderFailure = "render_failure"
        /// Its placement was destroyed (or the auction ended after that).
        case destroyed
    }
}

/// Something that happened in the engine, in the order it happened. Delivered through
/// ``MediationEngine/events()`` and the engine's event handler.
///
/// Events carry ids, prices and instants only: never chat content, context, device or user data.
public enum MediationEvent: Sendable, CustomStringConvertible {
    /// A placement started an auction, under the configuration of `configVersion` (R22).
    /// `experiment` is the experiment, variant and unit of an install exposed there; `country`
    /// (upper-case ISO 3166-1 alpha-2, when known) and `segment` (for a placement with
    /// segments) are who the auction runs for, chosen before it starts (the same as its
    /// trace's).
    case auctionStarted(placementID: String, reason: AuctionReason, configVersion: Int, at: MediationInstant, experiment: ExperimentArm? = nil, country: String? = nil, segment: String? = nil)
    /// An auction ended; the trace says what every source did.
    case auctionFinished(placementID: String, trace: AuctionTrace, at: MediationInstant)
    /// An auction's winner became the placement's current ad, usable until `expiresAt` (R14).
    case adLoaded(AdSummary, expiresAt: MediationInstant, at: MediationInstant)
    /// An ad counted its one impression (R12), with its revenue.
    case shown(MediationEvent.Impression, at: MediationInstant)
    /// The user clicked a shown ad (counted once per ad).
    case clicked(AdSummary, at: MediationInstant)
    /// A shown ad stopped being the placement's ad (a refresh replaced it, or the placement was
    /// destroyed); the renderer keeps it, the engine did not release it (R12).
    case retired(AdSummary, at: MediationInstant)
    /// The engine called `releaseResources()` on an ad it held, once (R7, R14).
    case released(AdSummary, reason: ReleaseReason, at: MediationInstant)
    /// An unshown ad reached its expiry (R14); a `released` event follows.
    case expired(AdSummary, at: MediationInstant)
    /// The host could not render the ad's creative; a new auction follows without its line item.
    case renderFailed(AdSummary, at: MediationInstant)
    /// The next refresh is due at `dueAt` if the placement stays visible in the foreground (R13);
    /// the placement runs the configuration of `configVersion`.
    /// `experiment` is that of the placement's last auction, if it ran under one.
    case refreshScheduled(placementID: String, dueAt: MediationInstant, configVersion: Int, at: MediationInstant, experiment: ExperimentArm? = nil)
    /// The install's first auction of a placement under an experiment: from here on, the
    /// placement's events carry the experiment, the variant and the install's unit.
    case exposure(Exposure)
    /// A source answered after its auction ended; its ad, if any, was released on arrival (R7).
    case lateAnswer(LateAnswer)
    /// A check of the remote configuration, or the choice at launch, came to this (R22): a new
    /// version applied, nothing new, a refusal or a failure with the reason (a warning,
    /// ``MediationEngine/RemoteConfiguration/Update/isWarning``). Its ``placementID`` is empty: it
    /// is about the engine.
    case configuration(MediationEngine.RemoteConfiguration.Update)
    /// The configuration of `configVersion` no longer has this placement (or gives its id
    /// another format): its controller was destroyed, its unshown ads released once and its
    /// shown ones retired. Views of it should detach; ``MediationEngine/placement(_:)`` gives
    /// the new placement of that id, if any.
    case placementRemoved(placementID: String, configVersion: Int, at: MediationInstant)
    /// A network was paused (engine rule R24): no auction asks it until its back-off ends
    /// (its sources are `not_asked` with `network_paused`). Its ``placementID`` is empty: it
    /// is about a network. When the pause is one line item's (``MediationEvent/NetworkPause/lineItemID``;
    /// it failed while its network answered for others), only that line item is not asked,
    /// and ``placementID`` is the line item's placement.
    case networkPaused(NetworkPause)
    /// A paused network's probe answered (R24): every auction asks it again. `failedProbes`
    /// probes had failed before this one. Its ``placementID`` is empty; for a line item paused
    /// on its own, `lineItemID` names it and `placementID` (and ``placementID``) is its
    /// placement.
    case networkResumed(networkID: String, failedProbes: Int, at: MediationInstant, placementID: String? = nil, lineItemID: String? = nil)
    /// A cap, pacing or the one-full-screen-ad rule refused a show of the placement (of line
    /// item `lineItemID`'s ad), or kept its auction from asking any network (`lineItemID`
    /// `nil`): ``CapRefusal`` names the rule and when it frees (`docs/caps.md`).
    case capped(placementID: String, lineItemID: String?, refusal: CapRefusal, at: MediationInstant)

    /// The placement the event is about (empty for ``configuration(_:)``, about the engine).
    public var placementID: String {
        switch self {
        case .auctionStarted(let placementID, _, _, _, _, _, _), .auctionFinished(let placementID, _, _), .refreshScheduled(let placementID, _, _, _, _), .placementRemoved(let placementID, _, _):
            placementID
        case .exposure(let exposure):
            exposure.placementID
        case .configuration:
            ""
        case .networkPaused(let pause):
            pause.placementID ?? ""
        case .networkResumed(_, _, _, let placementID, _):
            placementID ?? ""
        case .adLoaded(let ad, _, _), .clicked(let ad, _), .retired(let ad, _), .released(let ad, _, _), .expired(let ad, _), .renderFailed(let ad, _):
            ad.placementID
        case .shown(let impression, _):
            impression.placementID
        case .lateAnswer(let late):
            late.placementID
        case .capped(let placementID, _, _, _):
            placementID
        }
    }

    /// When it happened, on the engine's clock.
    public var instant: MediationInstant {
        switch self {
        case .auctionStarted(_, _, _, let at, _, _, _), .auctionFinished(_, _, let at), .adLoaded(_, _, let at), .shown(_, let at),
             .clicked(_, let at), .retired(_, let at), .released(_, _, let at), .expired(_, let at),
             .renderFailed(_, let at), .refreshScheduled(_, _, _, let at, _), .placementRemoved(_, _, let at),
             .networkResumed(_, _, let at, _, _), .capped(_, _, _, let at):
            at
        case .networkPaused(let pause):
            pause.at
        case .exposure(let exposure):
            exposure.at
        case .lateAnswer(let late):
            late.arrivedAt
        case .configuration(let update):
            update.at
        }
    }

    /// The `config_version` the event belongs to (R22): the version an auction ran under, the
    /// version an ad's auction ran under (ad events), the version a placement runs (refresh
    /// schedules), or the version running after a configuration update or removal; 0 for a
    /// network's health (`network_paused`, `network_resumed`), which belongs to no version.
    public var configVersion: Int {
        switch self {
        case .auctionStarted(_, _, let version, _, _, _, _), .refreshScheduled(_, _, let version, _, _), .placementRemoved(_, let version, _):
            version
        case .exposure(let exposure):
            exposure.configVersion
        case .auctionFinished(_, let trace, _):
            trace.configVersion
        case .adLoaded(let ad, _, _), .clicked(let ad, _), .retired(let ad, _), .released(let ad, _, _), .expired(let ad, _), .renderFailed(let ad, _):
            ad.configVersion
        case .shown(let impression, _):
            impression.ad.configVersion
        case .lateAnswer(let late):
            late.configVersion
        case .configuration(let update):
            update.runningVersion
        case .networkPaused, .networkResumed, .capped:
            0 // about a network or a cap, not a configuration
        }
    }

    /// A stable snake_case name: `auction_started`, `auction_finished`, `ad_loaded`, `shown`,
    /// `clicked`, `retired`, `released`, `expired`, `render_failed`, `refresh_scheduled`,
    /// `late_answer`, `placement_removed`, `network_paused`, `network_resumed`, `exposure`, `capped`, and for
    /// configuration updates `config_` and the
    /// outcome (`config_applied`, `config_unchanged`, `config_deferred`, `config_refused`,
    /// `config_failed`, `config_warning`).
    public var name: String {
        switch self {
        case .auctionStarted: "auction_started"
        case .auctionFinished: "auction_finished"
        case .adLoaded: "ad_loaded"
        case .shown: "shown"
        case .clicked: "clicked"
        case .retired: "retired"
        case .released: "released"
        case .expired: "expired"
        case .renderFailed: "render_failed"
        case .refreshScheduled: "refresh_scheduled"
        case .lateAnswer: "late_answer"
        case .configuration(let update): "config_" + update.outcome.rawValue
        case .placementRemoved: "placement_removed"
        case .networkPaused: "network_paused"
        case .networkResumed: "network_resumed"
        case .exposure: "exposure"
        case .capped: "capped"
        }
    }

    /// The ad the event is about, for ad events.
    public var ad: AdSummary? {
        switch self {
        case .adLoaded(let ad, _, _), .clicked(let ad, _), .retired(let ad, _), .released(let ad, _, _), .expired(let ad, _), .renderFailed(let ad, _):
            ad
        case .shown(let impression, _):
            impression.ad
        case .auctionStarted, .auctionFinished, .refreshScheduled, .lateAnswer, .configuration, .placementRemoved, .networkPaused, .networkResumed, .exposure, .capped:
            nil
        }
    }

    /// One line for a person: `[30.100s] home_banner auction_started (refresh)`. Ids from the
    /// configuration or a network have their control characters escaped, so the line stays
    /// one line (R17); no instant, however far, can trap.
    public var description: String {
        let head = "[\(instant)] \(DisplayText.escaped(placementID)) \(name)"
        switch self {
        case .auctionStarted(_, let reason, _, _, let experiment, _, _):
            return "\(head) (\(reason.rawValue))\(experiment.map { " [\($0)]" } ?? "")"
        case .auctionFinished(_, let trace, _):
            let winner = trace.winner.map { "winner \(DisplayText.escaped($0)) @ \(USD.cpm(trace.winningECPM ?? 0))" } ?? "no fill"
            let length = MediationInstant(offset: .saturating(milliseconds: trace.durationMilliseconds))
            return "\(head) \(DisplayText.escaped(trace.auctionID)): \(winner) after \(length)"
        case .adLoaded(let ad, let expiresAt, _):
            return "\(head) \(ad), expires \(expiresAt)"
        case .shown(let impression, _):
            return "\(head) \(impression)"
        case .released(let ad, let reason, _):
            return "\(head) \(ad) (\(reason.rawValue))"
        case .clicked(let ad, _), .retired(let ad, _), .expired(let ad, _), .renderFailed(let ad, _):
            return "\(head) \(ad)"
        case .exposure(let exposure):
            return "\(head) \(exposure.arm)"
        case .refreshScheduled(_, let dueAt, _, _, _):
            return "\(head) due \(dueAt)"
        case .placementRemoved(_, let version, _):
            return "\(head) by config version \(version)"
        case .configuration(let update):
            return "[\(instant)] \(update)"
        case .networkPaused(let pause):
            return "[\(instant)] \(name) \(pause)"
        case .networkResumed(let networkID, let failedProbes, _, let placementID, let lineItemID):
            return "[\(instant)] \(name) \(HealthSubject.text(networkID: networkID, placementID: placementID, lineItemID: lineItemID)) after \(failedProbes) failed probes"
        case .capped(_, let lineItemID, let refusal, _):
            return "\(head) \(lineItemID.map { DisplayText.escaped($0) + " " } ?? "")\(refusal)"
        case .lateAnswer(let late):
            return "\(head) \(DisplayText.escaped(late.lineItemID)) in \(DisplayText.escaped(late.auctionID))\(late.adReleased ? ", ad released" : "")"
        }
    }
}

/// Formats USD amounts for event descriptions.
enum USD {
    /// A CPM with two decimals, e.g. `$1.20`.
    static func cpm(_ value: Double) -> String { "$" + fixed(value, digits: 2) }
    /// A revenue with six decimals, e.g. `$0.001200`.
    static func revenue(_ value: Double) -> String { "$" + fixed(value, digits: 6) }

    private static func fixed(_ value: Double, digits: Int) -> String {
        DecimalText.fixed(value, digits: digits)
    }
}

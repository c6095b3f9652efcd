extension MediationEvent {
    /// The experiment, variant and unit the event belongs to, once its install was exposed in
    /// its placement: an `exposure`, an auction's start and trace, its late answers, its ad's
    /// events and the placement's next refresh; `nil` otherwise.
    public var experiment: ExperimentArm? {
        switch self {
        case .auctionStarted(_, _, _, _, let experiment, _, _), .refreshScheduled(_, _, _, _, let experiment):
            experiment
        case .auctionFinished(_, let trace, _):
            trace.experiment
        case .exposure(let exposure):
            exposure.arm
        case .lateAnswer(let late):
            late.experiment
        case .adLoaded, .shown, .clicked, .retired, .released, .expired, .renderFailed:
            ad?.experiment
        case .configuration, .placementRemoved, .networkPaused, .networkResumed, .capped:
            nil
        }
    }

    /// The wall-clock day (UTC, `YYYY-MM-DD`) of a `shown` or `exposure` event, when known.
    public var day: String? {
        switch self {
        case .shown(let impression, _): impression.day
        case .exposure(let exposure): exposure.day
        default: nil
        }
    }

    /// The event with `arm` set where a placement's event carries it (an auction's start, a
    /// late answer, a refresh schedule); other events are returned as they are (an ad's events
    /// carry their auction's arm from the ad's summary, an auction's end from its trace).
    /// - Parameter arm: the experiment, variant and unit, or `nil` for none.
    package func tagged(with arm: ExperimentArm?) -> MediationEvent {
        guard let arm else { return self }
        switch self {
        case .auctionStarted(let placementID, let reason, let version, let at, _, let country, let segment):
            return .auctionStarted(placementID: placementID, reason: reason, configVersion: version, at: at, experiment: arm, country: country, segment: segment)
        case .refreshScheduled(let placementID, let dueAt, let version, let at, _):
            return .refreshScheduled(placementID: placementID, dueAt: dueAt, configVersion: version, at: at, experiment: arm)
        case .lateAnswer(var late):
            late.experiment = arm
            return .lateAnswer(late)
        default:
            return self
        }
    }
}

extension MediationEvent {
    /// An `auction_started` event with the country and segment of `audience` (chosen before
    /// the auction starts); other events, or no audience, are returned as they are.
    /// - Parameter audience: the auction's country and segment, or `nil`.
    func tagged(withAudience audience: AuctionTrace.AudienceLabel?) -> MediationEvent {
        guard let audience, case .auctionStarted(let placementID, let reason, let version, let at, let arm, _, _) = self else { return self }
        return .auctionStarted(placementID: placementID, reason: reason, configVersion: version, at: at, experiment: arm, country: audience.country, segment: audience.segment)
    }
}

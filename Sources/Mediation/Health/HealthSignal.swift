/// What one auction says about one network's health (engine rule R24): it answered, it
/// failed to answer, or the auction says nothing about it. One per network per auction,
/// however many of its line items took part.
package enum HealthSignal: Hashable, Sendable {
    /// It answered: an ad (won, lost, even rejected) or a no-fill.
    case success
    /// It could not be reached or heard from: an error of kind `network`, `server`,
    /// `timeout` or `invalidResponse`, or a timeout of any limit.
    case failure

    /// The signal of one source's outcome, or `nil` when it says nothing about the network:
    /// not asked, cancelled (the auction was decided before it answered), or an error that
    /// waiting does not heal and that must stay visible in every auction (`configuration`,
    /// `creative`, `unsupported`, `cancelled`).
    init?(_ outcome: SourceOutcome) {
        switch outcome {
        case .won, .lost, .noFill:
            self = .success
        case .timeout:
            self = .failure
        case .error(let error):
            guard HealthSignal.failureKinds.contains(error.kind) else { return nil }
            self = .failure
        case .cancelled, .notAsked:
            return nil
        }
    }

    /// The error kinds that are a failure to reach or hear from the network (the one
    /// classification of ``AdLoadResult/Error/Kind/init(_:)``).
    static let failureKinds: Set<AdLoadResult.Error.Kind> = [.network, .server, .timeout, .invalidResponse]

    /// One network's signal from its line items' own signals in one auction: any answer is a
    /// success (the network is reachable), else any failure is a failure, else nothing.
    static func combined<Signals: Sequence>(signals: Signals) -> HealthSignal? where Signals.Element == HealthSignal? {
        var combined: HealthSignal?
        for signal in signals {
            switch signal {
            case .success: return .success
            case .failure: combined = .failure
            case nil: break
            }
        }
        return combined
    }
}

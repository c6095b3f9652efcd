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

/// The health signals (``HealthSignal``) of every source of one finished auction, read in one
/// pass over its record: a bit per source among the first 64, an array only beyond them. One
/// value per auction, so that the monitor combines a network's signal with two masks instead
/// of reading each source's outcome.
package struct HealthSignals: Hashable, Sendable {
    /// Bit `i`: source `i` (of the first 64) answered.
    package private(set) var answered: UInt64 = 0
    /// Bit `i`: source `i` (of the first 64) failed.
    package private(set) var failed: UInt64 = 0
    /// The signals of sources 64 and beyond, in order (empty for nearly every auction).
    package private(set) var beyond: [HealthSignal?] = []
    /// The number of sources.
    package private(set) var count = 0

    /// No sources.
    package init() {}

    /// Adds the next source's signal.
    package mutating func append(_ signal: HealthSignal?) {
        if count < 64 {
            let bit = UInt64(1) << UInt64(count)
            switch signal {
            case .success: answered |= bit
            case .failure: failed |= bit
            case nil: break
            }
        } else {
            beyond.append(signal)
        }
        count += 1
    }

    /// Source `index`'s signal (`nil` for an index out of range).
    package func signal(at index: Int) -> HealthSignal? {
        guard index >= 0, index < count else { return nil }
        guard index < 64 else { return beyond[index - 64] }
        let bit = UInt64(1) << UInt64(index)
        if answered & bit != 0 { return .success }
        return failed & bit != 0 ? .failure : nil
    }

    /// The combined signal (``HealthSignal/combined(signals:)``) of the sources in `mask` (bit
    /// `i` for source `i`, all among the first 64): any answer is a success, else any failure
    /// is a failure, else nothing.
    package func signal(ofSourcesIn mask: UInt64) -> HealthSignal? {
        if answered & mask != 0 { return .success }
        return failed & mask != 0 ? .failure : nil
    }
}

/// The refresh clock of one banner placement (engine rule R13), as a pure value: the host's
/// visibility and foreground changes go in, the instant the next refresh is due comes out.
///
/// Rules it keeps:
/// - Only time during which some view of the placement is visible **and** the app is in the
///   foreground counts; the count freezes (it is not reset) while hidden or in the background.
/// - A count starts (from zero) when the current ad becomes the placement's ad, and again when
///   a refresh auction fails (the current ad is kept): ``start(at:interval:)``.
/// - While a refresh auction runs there is no count (``stop(at:)``); an auction that completes
///   while paused starts a frozen count, so it does not start a refresh at once.
/// - There is one schedule per placement, so at most one refresh cycle.
///
/// Example (scenario 7, refresh 60): ``start(at:interval:)`` at 0.100 s while visible, hidden
/// at 20.100 s (20 s counted), visible again at 200.100 s: ``dueInstant`` is 240.100 s.
package struct RefreshSchedule: Hashable, Sendable {
    /// The refresh interval.
    package private(set) var interval: Duration
    /// Whether some view of the placement is visible.
    package private(set) var isVisible: Bool
    /// Whether the app is in the foreground.
    package private(set) var isForeground: Bool
    /// Whether a count has been started (and not stopped).
    package private(set) var isStarted = false
    /// Time counted before the current counting stretch began.
    private var accumulated: Duration = .zero
    /// When the current counting stretch began; `nil` while not counting.
    private var countingSince: MediationInstant?

    /// Creates a schedule with no count started.
    /// - Parameters:
    ///   - interval: the refresh interval (R13: whole seconds, at least 30; see ``RefreshInterval``).
    ///   - visible: whether some view of the placement is visible.
    ///   - foreground: whether the app is in the foreground.
    package init(interval: Duration, visible: Bool = false, foreground: Bool = true) {
        self.interval = interval
        self.isVisible = visible
        self.isForeground = foreground
    }

    /// Whether time is being counted right now: started, visible and in the foreground.
    package var isCounting: Bool { isStarted && isVisible && isForeground }

    /// The instant the refresh is due if nothing changes; `nil` while not counting (paused or
    /// not started), since then no refresh can become due.
    package var dueInstant: MediationInstant? {
        guard let countingSince else { return nil }
        return countingSince + (interval - accumulated)
    }

    /// The time counted by `now` in this cycle.
    /// - Parameter now: the current instant (not before the last change).
    package func counted(at now: MediationInstant) -> Duration {
        guard let countingSince else { return accumulated }
        return accumulated + (now - countingSince)
    }

    /// Whether the refresh is due at `now`: counting, and the counted time has reached the
    /// interval.
    /// - Parameter now: the current instant.
    package func isDue(at now: MediationInstant) -> Bool {
        guard let dueInstant else { return false }
        return now >= dueInstant
    }

    /// Starts a new count from zero: the current ad became the placement's ad, or a refresh
    /// auction failed and the current ad is kept.
    /// - Parameters:
    ///   - now: the current instant.
    ///   - interval: a new interval for this and later cycles (a network's server-sent value,
    ///     already resolved by ``RefreshInterval``); `nil` keeps the current one.
    package mutating func start(at now: MediationInstant, interval newInterval: Duration? = nil) {
        if let newInterval { interval = newInterval }
        isStarted = true
        accumulated = .zero
        countingSince = isCounting ? now : nil
    }

    /// Ends the cycle without a new count: a refresh auction started, or the placement was
    /// destroyed or emptied.
    /// - Parameter now: the current instant.
    package mutating func stop(at now: MediationInstant) {
        isStarted = false
        accumulated = .zero
        countingSince = nil
    }

    /// Records whether some view of the placement is visible.
    /// - Parameters:
    ///   - visible: the new visibility.
    ///   - now: the current instant.
    package mutating func setVisible(_ visible: Bool, at now: MediationInstant) {
        transition(at: now) { $0.isVisible = visible }
    }

    /// Records whether the app is in the foreground.
    /// - Parameters:
    ///   - foreground: the new state.
    ///   - now: the current instant.
    package mutating func setForeground(_ foreground: Bool, at now: MediationInstant) {
        transition(at: now) { $0.isForeground = foreground }
    }

    /// Closes the current counting stretch, applies `change`, and opens a new stretch at `now`
    /// if counting afterwards.
    private mutating func transition(at now: MediationInstant, _ change: (inout RefreshSchedule) -> Void) {
        if let countingSince {
            accumulated += max(.zero, now - countingSince)
            self.countingSince = nil
        }
        change(&self)
        if isCounting { countingSince = now }
    }
}

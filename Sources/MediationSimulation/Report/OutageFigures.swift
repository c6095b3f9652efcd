/// How a network with outages in the market fared in a timed run (engine rule R24,
/// `docs/health.md`, "A flapping network"): how often the auctions of its up time asked it, how
/// often those of its down time did (each waited for it, or got its error), and how many
/// auctions asked it at each outage's onset before the engine paused it.
///
/// Up and down time are read from the windows (``SimulationReport/windows``): a window no
/// outage overlaps is up time, one wholly inside an outage down time, any other is counted in
/// neither (``mixedWindows``): a window width that divides the outages' edges (`--window 30s`
/// for outages on whole half minutes) leaves none.
public struct OutageFigures: Hashable, Sendable, Codable {
    /// The network.
    public var network: String
    /// Auctions started in windows of its up time.
    public var upRequests: Int
    /// Of those, the auctions that asked it.
    public var upAsked: Int
    /// ``upAsked`` ÷ ``upRequests`` (0 with none).
    public var upAskedShare: Double
    /// Auctions started in windows of its down time.
    public var downRequests: Int
    /// Of those, the auctions that asked it: each waited for it (at most its limit) or got its
    /// error.
    public var downAsked: Int
    /// Windows that are neither wholly up nor wholly down (their auctions are in neither count).
    public var mixedWindows: Int
    /// For each outage that began while the network was asked by every auction (not paused),
    /// in time order: the auctions started from the outage's start until the engine paused it
    /// (all of them asked it during the outage), or until the outage's end if it was never
    /// paused. Outages that began while it was paused, or after the listed health events end,
    /// have none.
    public var onsetAsked: [Int]
    /// For each onset of ``onsetAsked``: of the auctions that asked it, those that stopped
    /// waiting for it when it was paused (R24: `timeout (network_paused)`), read from the
    /// windows of that outage (the others waited until its limit, or their auction ended
    /// sooner).
    public var onsetReleasedByPause: [Int] = []
    /// Its requests that timed out in windows of its down time.
    public var downTimeouts = 0
    /// Of ``downTimeouts``, those ended by its pause (the others waited until their limit).
    public var downTimeoutsEndedByPause = 0
    /// The time its timed-out requests of its down time were waited for, in all, seconds.
    public var downTimeoutWaitSeconds = 0.0
    /// Its failed probes during its outages (`paused` events with the cause `probe_failed`
    /// from an outage's start to 3 s after its end), among the listed events: each probe that
    /// hung is one of the timeouts at their limit of ``downTimeouts``; the others are the
    /// onsets'.
    public var downFailedProbes = 0

    private enum CodingKeys: String, CodingKey {
        case network
        case upRequests = "up_requests"
        case upAsked = "up_asked"
        case upAskedShare = "up_asked_share"
        case downRequests = "down_requests"
        case downAsked = "down_asked"
        case mixedWindows = "mixed_windows"
        case onsetAsked = "onset_asked"
        case onsetReleasedByPause = "onset_released_by_pause"
        case downTimeouts = "down_timeouts"
        case downTimeoutsEndedByPause = "down_timeouts_ended_by_pause"
        case downTimeoutWaitSeconds = "down_timeout_wait_s"
        case downFailedProbes = "down_failed_probes"
    }

    /// The figures of every network of `models` with outages, in order of first appearance.
    /// - Parameters:
    ///   - windows: the run's windows, of `width`.
    ///   - events: the run's listed health events (the first ``HealthFigures/listedEvents``).
    ///   - listedAll: whether `events` holds every event of the run.
    ///   - rate: auctions per second (auction `i` starts at `i ÷ rate` s).
    ///   - requests: the run's auctions.
    static func all(models: [SourceModel], windows: [WindowFigures], width: Duration, events: [HealthEventFigure], listedAll: Bool, rate: Double, requests: Int) -> [OutageFigures] {
        var order: [String] = []
        var outagesByNetwork: [String: [Outage]] = [:]
        for model in models where !model.outages.isEmpty && outagesByNetwork[model.lineItem.network] == nil {
            order.append(model.lineItem.network)
            outagesByNetwork[model.lineItem.network] = model.outages
        }
        return order.map { network in
            OutageFigures(network: network, outages: outagesByNetwork[network] ?? [], windows: windows, width: width, events: events.filter { $0.network == network && $0.lineItem == nil }, listedAll: listedAll, rate: rate, requests: requests)
        }
    }

    private init(network: String, outages: [Outage], windows: [WindowFigures], width: Duration, events: [HealthEventFigure], listedAll: Bool, rate: Double, requests: Int) {
        self.network = network
        upRequests = 0
        upAsked = 0
        downRequests = 0
        downAsked = 0
        mixedWindows = 0
        let widthSeconds = width.inSeconds
        for window in windows {
            let start = window.startSeconds
            let end = start + widthSeconds
            let overlapping = outages.filter { $0.start.inSeconds < end && $0.end.inSeconds > start }
            let asked = window.network(network)?.asked ?? 0
            if overlapping.isEmpty {
                upRequests += window.requests
                upAsked += asked
            } else if overlapping.contains(where: { $0.start.inSeconds <= start && $0.end.inSeconds >= end }) {
                downRequests += window.requests
                downAsked += asked
                downTimeouts += window.network(network)?.timeouts ?? 0
                downTimeoutsEndedByPause += window.network(network)?.timeoutsEndedByPause ?? 0
                downTimeoutWaitSeconds += (window.network(network)?.timeoutWaitMilliseconds ?? 0) / 1000
            } else {
                mixedWindows += 1
            }
        }
        upAskedShare = upRequests > 0 ? Double(upAsked) / Double(upRequests) : 0
        downFailedProbes = events.filter { event in
            event.event == "paused" && event.cause == "probe_failed" && outages.contains { outage in
                Double(event.atMilliseconds) >= outage.start.inSeconds * 1000 && Double(event.atMilliseconds) < outage.end.inSeconds * 1000 + 3000
            }
        }.count
        let onsets = Self.onsets(outages: outages, events: events, listedAll: listedAll, rate: rate, requests: requests)
        onsetAsked = onsets.map(\.asked)
        // Only an onset's auctions can be released by a pause: a probe is the one auction asking
        // a paused network, and its own verdict reopens it.
        onsetReleasedByPause = onsets.map { onset in
            windows.reduce(0) { sum, window in
                let start = window.startSeconds
                guard start >= onset.outage.start.inSeconds, start < onset.outage.end.inSeconds else { return sum }
                return sum + (window.network(network)?.timeoutsEndedByPause ?? 0)
            }
        }
    }

    /// The auctions asking the network at each outage's onset (``onsetAsked``): the state at
    /// each onset is read from the events in order (a pause opens it, a resume closes it, a new
    /// shard starts closed).
    private static func onsets(outages: [Outage], events: [HealthEventFigure], listedAll: Bool, rate: Double, requests: Int) -> [(outage: Outage, asked: Int)] {
        /// The number of auctions started before `milliseconds` from the run's start.
        func startedBefore(_ milliseconds: Double) -> Int {
            min(requests, max(0, Int((milliseconds * rate / 1000).rounded(.up))))
        }
        let shardMilliseconds = SimulationOptions.timedShardDuration.inSeconds * 1000
        let lastListed = events.last.map { Double($0.atMilliseconds) } ?? 0
        let runEnd = Double(requests) / rate * 1000
        var counts: [(outage: Outage, asked: Int)] = []
        for outage in outages {
            let start = outage.start.inSeconds * 1000
            let end = min(outage.end.inSeconds * 1000, runEnd)
            guard start < runEnd else { break }
            // The events before the onset say whether it was paused then.
            let shard = Int(start / shardMilliseconds)
            var paused = false
            for event in events where Double(event.atMilliseconds) < start && event.shard == shard {
                paused = event.event == "paused"
            }
            if paused { continue }
            let pause = events.first { $0.event == "paused" && Double($0.atMilliseconds) >= start && Double($0.atMilliseconds) < end }
            if pause == nil, !listedAll, end > lastListed { break }
            let until = pause.map { Double($0.atMilliseconds) } ?? end
            counts.append((outage, startedBefore(until) - startedBefore(start)))
        }
        return counts
    }
}

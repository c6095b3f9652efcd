/// A network, or one of its line items on its own, paused or resumed by the engine's health
/// (engine rule R24) during a run.
public struct HealthEventFigure: Hashable, Sendable, Codable {
    /// The network id.
    public var network: String
    /// The line item (of the simulated placement) paused or resumed on its own while its
    /// network answered for others; `nil` (absent in JSON) for the whole network.
    public var lineItem: String?
    /// `paused` or `resumed`.
    public var event: String
    /// A pause's cause: `failures`, `probe_failed` or `restored` (`nil` for a resume).
    public var cause: String?
    /// The instant, in milliseconds of the run's virtual time (from a timed run's start; from
    /// its shard's start in a run of N auctions).
    public var atMilliseconds: Int64
    /// A pause's retry instant, on the same time line (`nil` for a resume).
    public var retryAtMilliseconds: Int64?
    /// A pause's failures among its recent verdicts (`nil` for a resume).
    public var failures: Int?
    /// A pause's recent verdicts (`nil` for a resume).
    public var outcomes: Int?
    /// The shard whose engine it happened in (health starts fresh at each shard).
    public var shard: Int

    private enum CodingKeys: String, CodingKey {
        case network
        case lineItem = "line_item"
        case event, cause
        case atMilliseconds = "at_ms"
        case retryAtMilliseconds = "retry_at_ms"
        case failures, outcomes, shard
    }

    init(_ record: HealthEventRecord) {
        network = record.network
        lineItem = record.lineItem
        event = record.paused ? "paused" : "resumed"
        cause = record.paused ? record.cause : nil
        atMilliseconds = record.atMilliseconds
        retryAtMilliseconds = record.paused ? record.retryAtMilliseconds : nil
        failures = record.paused ? record.failures : nil
        outcomes = record.paused ? record.outcomes : nil
        shard = record.shard
    }
}

/// What network health (R24) did over a run.
public struct HealthFigures: Hashable, Sendable, Codable {
    /// The most events a report lists (they are all counted).
    public static let listedEvents = 1000

    /// Whether the engine ran with the configuration's health settings (`false`: health off).
    public var enabled: Bool
    /// Pauses (`network_paused` events), all networks and line items.
    public var pauses: Int
    /// Resumes (`network_resumed` events).
    public var resumes: Int
    /// Requests not made because their network, or their line item, was paused (`not_asked`,
    /// `network_paused`).
    public var pausedRequests: Int
    /// The first ``listedEvents`` pauses and resumes, by shard, then in the order they happened.
    public var events: [HealthEventFigure]

    private enum CodingKeys: String, CodingKey {
        case enabled, pauses, resumes
        case pausedRequests = "paused_requests"
        case events
    }

    init(enabled: Bool, totals: RunTotals) {
        self.enabled = enabled
        pauses = totals.pauses
        resumes = totals.resumes
        pausedRequests = totals.sources.reduce(0) { $0 + $1.paused }
        events = totals.healthEvents.prefix(HealthFigures.listedEvents).map(HealthEventFigure.init)
    }
}

/// One network's figures in one window of a timed run.
public struct WindowNetworkFigures: Hashable, Sendable, Codable {
    /// The network id.
    public var network: String
    /// Requests made to it (its line items asked).
    public var asked: Int
    /// Auctions it won.
    public var wins: Int
    /// wins ÷ the window's filled auctions (0 with none).
    public var winShare: Double
    /// Its line items not asked because it was paused.
    public var paused: Int
    /// Its requests that timed out.
    public var timeouts: Int
    /// Of ``timeouts``, those ended early because it was paused while they were waited for
    /// (R24: `timeout (network_paused)`); the others waited until their limit.
    public var timeoutsEndedByPause: Int = 0
    /// The time its timed-out requests were waited for, in all, ms (each from being asked to
    /// its auction's end, at most its limit).
    public var timeoutWaitMilliseconds: Double = 0

    private enum CodingKeys: String, CodingKey {
        case network, asked, wins
        case winShare = "win_share"
        case paused, timeouts
        case timeoutsEndedByPause = "timeouts_ended_by_pause"
        case timeoutWaitMilliseconds = "timeout_wait_ms"
    }
}

/// One window of a timed run: the auctions that started in it.
public struct WindowFigures: Hashable, Sendable, Codable {
    /// The window's start, seconds from the run's start.
    public var startSeconds: Double
    /// Auctions that started in it.
    public var requests: Int
    /// Those that filled.
    public var filled: Int
    /// filled ÷ requests.
    public var fillRate: Double
    /// Realised revenue per 1000 requests, USD.
    public var revenuePer1000Requests: Double
    /// Time to ad of its filled auctions, ms.
    public var timeToAd: Percentiles
    /// Per network, in order of first appearance in the placement.
    public var networks: [WindowNetworkFigures]

    private enum CodingKeys: String, CodingKey {
        case startSeconds = "start_s"
        case requests, filled
        case fillRate = "fill_rate"
        case revenuePer1000Requests = "revenue_per_1000_requests"
        case timeToAd = "time_to_ad_ms"
        case networks
    }

    /// The figures of network `id` in this window.
    /// - Parameter id: a network id.
    public func network(_ id: String) -> WindowNetworkFigures? {
        networks.first { $0.network == id }
    }

    static func all(_ totals: RunTotals, models: [SourceModel], window: Duration) -> [WindowFigures] {
        var order: [String] = []
        for model in models where !order.contains(model.lineItem.network) { order.append(model.lineItem.network) }
        return totals.windows.keys.sorted().map { index in
            let counts = totals.windows[index] ?? WindowTotals(sourceCount: models.count)
            let networks = order.map { network in
                var figures = WindowNetworkFigures(network: network, asked: 0, wins: 0, winShare: 0, paused: 0, timeouts: 0)
                for model in models where model.lineItem.network == network && model.index < counts.sources.count {
                    let source = counts.sources[model.index]
                    figures.asked += source.asked
                    figures.wins += source.wins
                    figures.paused += source.paused
                    figures.timeouts += source.timeouts
                    figures.timeoutsEndedByPause += source.pauseEnded
                    figures.timeoutWaitMilliseconds += source.timeoutWaitMilliseconds
                }
                figures.winShare = counts.filled > 0 ? Double(figures.wins) / Double(counts.filled) : 0
                return figures
            }
            return WindowFigures(
                startSeconds: Double(index) * window.inSeconds,
                requests: counts.requests,
                filled: counts.filled,
                fillRate: counts.requests > 0 ? Double(counts.filled) / Double(counts.requests) : 0,
                revenuePer1000Requests: counts.requests > 0 ? counts.realised.value / Double(counts.requests) / 1_000_000 : 0,
                timeToAd: Percentiles(histogram: counts.timesToAdHistogram),
                networks: networks
            )
        }
    }
}

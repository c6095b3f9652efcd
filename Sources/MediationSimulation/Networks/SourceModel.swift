import Foundation
import Mediation

/// One source (line item) of a simulated placement: its market behaviour, the key of its random
/// stream, and what the engine's rules make of its answers, for the oracles.
struct SourceModel: Sendable {
    /// Its position in the placement's `sources`.
    let index: Int
    /// The line item, as configured (its ad unit id is the rewritten one, see
    /// ``SimulatedNetworks``).
    let lineItem: LineItem
    /// `SplitMix64.key(ofLineItem:)` of its id.
    let key: UInt64
    /// What its requests draw from.
    let behaviour: SourceBehaviour
    /// A fixed-price source whose configured eCPM is invalid or under the placement's floor is
    /// never asked (R1, R2); bidders are always asked.
    let eligible: Bool
    /// The lowest bid the engine accepts from it, USD CPM micros: the larger of its own floor
    /// and the placement's (R2). 1 for fixed-price sources.
    let minimumBidMicros: Int64
    /// Its effective limit from the moment it is asked (R3a): the earliest of its line item's
    /// and its network's `timeout_ms` and the placement's deadline (at most 3000 ms).
    let limit: Duration
    /// Its network's outages (``NetworkMarket/outages``), in time order.
    var outages: [Outage] = []
    /// In a market with countries, its network's bid that fills it (``TierModel``); `nil`
    /// otherwise.
    var tier: TierModel?
    /// In a replay, the answers the recording holds for this source, by auction index (empty
    /// otherwise): they take the place of the market's draws.
    var recorded: [UInt64: RecordedAnswer] = [:]
    /// In a replay, the auction indices whose recording has a line of this source, with an
    /// answer or without (empty otherwise).
    var recordedLines = IndexSet()

    init(index: Int, lineItem: LineItem, behaviour: SourceBehaviour, placement: MediationConfiguration.Placement, networkTimeout: Duration?) {
        self.index = index
        self.lineItem = lineItem
        self.behaviour = behaviour
        key = SplitMix64.key(ofLineItem: lineItem.id)
        let placementFloor = placement.floor.map { SourceModel.engineMicros(price: $0, usdRate: 1) ?? .max }
        switch lineItem.pricing {
        case .bidder:
            eligible = true
            let ownFloor = lineItem.floor.map { SourceModel.engineMicros(price: $0, usdRate: lineItem.usdRate) ?? .max }
            minimumBidMicros = max(ownFloor ?? 1, placementFloor ?? 1)
        case .fixedPrice:
            let value = lineItem.eCPM.flatMap { SourceModel.engineMicros(price: $0, usdRate: lineItem.usdRate) }
            eligible = value.map { value in placementFloor.map { value >= $0 } ?? true } ?? false
            minimumBidMicros = 1
        }
        var limit = min(placement.deadline, MediationConfiguration.Placement.defaultDeadline)
        if let timeout = lineItem.timeout { limit = min(limit, timeout) }
        if let networkTimeout { limit = min(limit, networkTimeout) }
        self.limit = limit
    }

    /// Its draw in auction `auction` of a run seeded `seed`, for a request made `offset` after
    /// the run's start (an outage then changes it; `nil`: no outage applies).
    func draw(seed: UInt64, auction: UInt64, at offset: Duration? = nil) -> SourceDraw {
        if !recorded.isEmpty, let answer = recorded[auction] { return answer.draw }
        var draw = behaviour.draw(seed: seed, auction: auction, lineItemKey: key)
        if let tier { draw = tier.applied(to: draw, seed: seed, auction: auction) }
        if let offset, let outage = outages.active(at: offset) { return outage.applied(to: draw) }
        return draw
    }

    /// The bid this source sends for `draw`, in its line item's currency.
    func bid(for draw: SourceDraw) -> Double {
        draw.price / lineItem.usdRate
    }

    /// What a clairvoyant picker could take from this source's `draw` (USD CPM micros of the
    /// realised price, 0 for nothing): `bounded` if the answer is a valid ad arriving at or
    /// before the source's limit, `unbounded` if it is a valid ad whenever it arrives; `known`
    /// is the bounded one valued as the engine knows it (the bid, or the configured eCPM).
    func oracleValues(of draw: SourceDraw) -> (bounded: Int64, unbounded: Int64, known: Int64) {
        guard eligible, draw.answer == .ad else { return (0, 0, 0) }
        let known: Int64
        if lineItem.pricing == .bidder {
            // The bid as the engine values it (converted once and rounded, R2, R9).
            guard let value = SourceModel.engineMicros(price: bid(for: draw), usdRate: lineItem.usdRate), value >= minimumBidMicros else { return (0, 0, 0) }
            known = value
        } else {
            known = knownFixedMicros
        }
        // The engine accepts an answer due at its source's limit (the answer is taken before the
        // timer at one instant), so the oracle does too: one rule for both.
        let inTime = Duration.milliseconds(draw.latencyMilliseconds) <= limit
        return (inTime ? draw.priceMicros : 0, draw.priceMicros, inTime ? known : 0)
    }

    /// A fixed-price source's configured eCPM as the engine values it, USD CPM micros (0 when
    /// invalid or for a bidder).
    var knownFixedMicros: Int64 {
        lineItem.eCPM.flatMap { SourceModel.engineMicros(price: $0, usdRate: lineItem.usdRate) } ?? 0
    }

    /// A price as the engine values it (R2): `price × usdRate` in micros, rounded half away from
    /// zero; `nil` when invalid (not finite, not positive, over the maximum, under 1 micro).
    static func engineMicros(price: Double, usdRate: Double) -> Int64? {
        let usd = price * usdRate
        guard usd.isFinite, usd > 0, usd <= SourceDraw.maximumPrice else { return nil }
        let micros = (usd * 1_000_000).rounded(.toNearestOrAwayFromZero)
        guard micros >= 1 else { return nil }
        return Int64(micros)
    }
}

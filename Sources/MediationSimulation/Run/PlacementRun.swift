import Mediation
import MediationVirtualTime

extension Simulation {
    /// Runs a refreshing placement (a banner) for `duration` of virtual time the way an app
    /// would: one view, visible the whole time, that renders every new ad the moment it becomes
    /// current (so each counts one impression, R12), with the real ``Placement``'s loading,
    /// refresh (R13) and expiry. Auction `k` of the run (0, 1, …) draws its answers from the
    /// streams keyed by (seed, k, line item id).
    /// - Parameters:
    ///   - configuration: the configuration, as loaded.
    ///   - market: how the networks answer.
    ///   - placementID: a placement that refreshes (a banner).
    ///   - duration: the virtual time to run.
    ///   - seed: the seed.
    /// - Returns: auctions, impressions and revenue.
    /// - Throws: ``SimulationError``: `unknown_placement`, `invalid_market`,
    ///   `invalid_configuration`, `invalid_options` (a placement that does not refresh, or a
    ///   duration that is not positive).
    public static func runPlacement(configuration: MediationConfiguration, market: Market, placementID: String, duration: Duration, seed: UInt64) async throws(SimulationError) -> PlacementRunReport {
        guard duration > .zero else {
            throw SimulationError(code: .invalidOptions, message: "the duration must be positive")
        }
        guard configuration.placement(placementID) != nil else {
            throw SimulationError(code: .unknownPlacement, message: "no placement \"\(placementID)\" in the configuration")
        }
        let networks: SimulatedNetworks
        do {
            try market.check(against: [configuration], placements: [placementID])
            networks = try SimulatedNetworks(configuration: configuration, market: market, seed: seed, placements: [placementID])
        } catch {
            throw SimulationError.market(error)
        }
        let clock = ManualClock()
        let counters = Locked(PlacementCounters())
        let shownPlacement = Locked<Placement?>(nil)
        let engine: MediationEngine
        do {
            engine = try MediationEngine(
                configuration: networks.configuration,
                registry: networks.registry,
                environment: ShardRunner.environment(clock: clock, seed: seed, firstAuction: 0),
                hostContext: { _ in
                    // Called once per auction, on the clock, in the order auctions start.
                    SimulatedNetworks.context(forAuction: counters.withLock { $0.nextAuction() })
                },
                onEvent: { event in
                    switch event {
                    case .auctionFinished(_, let trace, _):
                        counters.withLock { $0.auctionFinished(filled: trace.winner != nil) }
                    case .adLoaded(let summary, _, _):
                        // The host renders the new ad in its visible view at once.
                        guard let placement = shownPlacement.withLock({ $0 }) else { return }
                        clock.startTask {
                            guard let current = await placement.currentAd, current.ad.id == summary.adID, !current.isShown else { return }
                            if case .impression(let impression) = await placement.reportShown(current.ad) {
                                let realised = (current.ad as? SimulatedAd)?.realisedPriceMicros
                                counters.withLock { $0.shown(impression, realisedMicros: realised) }
                            }
                        }
                    default:
                        break
                    }
                }
            )
        } catch {
            throw SimulationError(code: .invalidConfiguration, path: error.path, message: error.message)
        }
        guard let placement = engine.placement(placementID), placement.refreshes else {
            throw SimulationError(code: .invalidOptions, message: "placement \"\(placementID)\" does not refresh: runPlacement runs banners (use run for one-shot auctions)")
        }
        shownPlacement.withLock { $0 = placement }
        let start = clock.now
        let end = start + duration
        await clock.perform {
            _ = await placement.attachView(visible: true) // a banner loads when its view attaches
            while true {
                await clock.runUntilIdle()
                guard let next = clock.nextDeadline, next <= end else { break }
                await clock.advance(to: next)
            }
            await clock.advance(to: end)
            await engine.shutdown()
            await clock.runUntilIdle()
        }
        let totals = counters.withLock { $0 }
        let lineItems = (configuration.placement(placementID)?.sources ?? []).compactMap { lineItem -> PlacementRunReport.LineItemImpressions? in
            guard let served = totals.byLineItem[lineItem.id] else { return nil }
            return PlacementRunReport.LineItemImpressions(lineItemID: lineItem.id, network: lineItem.network, impressions: served.impressions, revenueUSD: Money.usd(served.revenue))
        }
        return PlacementRunReport(
            placementID: placementID,
            seed: seed,
            durationSeconds: duration.milliseconds / 1000,
            auctions: totals.auctions,
            filledAuctions: totals.filled,
            impressions: totals.impressions,
            revenueUSD: Money.usd(totals.revenue),
            knownRevenueUSD: Money.usd(totals.knownRevenue),
            lineItems: lineItems
        )
    }
}

/// The counts of a placement run, kept as its events come.
struct PlacementCounters: Sendable {
    var auctionsStarted: UInt64 = 0
    var auctions = 0
    var filled = 0
    var impressions = 0
    var revenue = WideSum()
    var knownRevenue = WideSum()
    var byLineItem: [String: (impressions: Int, revenue: WideSum)] = [:]

    mutating func nextAuction() -> UInt64 {
        defer { auctionsStarted += 1 }
        return auctionsStarted
    }

    mutating func auctionFinished(filled: Bool) {
        auctions += 1
        if filled { self.filled += 1 }
    }

    mutating func shown(_ impression: MediationEvent.Impression, realisedMicros: Int64?) {
        let known = Int64((impression.eCPM * 1_000_000).rounded(.toNearestOrAwayFromZero))
        let realised = realisedMicros ?? known
        impressions += 1
        revenue.add(realised)
        knownRevenue.add(known)
        var line = byLineItem[impression.lineItemID] ?? (0, WideSum())
        line.impressions += 1
        line.revenue.add(realised)
        byLineItem[impression.lineItemID] = line
    }
}

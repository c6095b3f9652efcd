import Mediation

/// A recorded run replayed under a configuration: the report of the replayed auctions, what the
/// recording itself earned, and how many answers came from the recording or from the market.
public struct ReplayReport: Hashable, Sendable, Codable {
    /// The replayed auctions' report (auction `i` is the recording's `i`-th auction of the
    /// placement). Realised prices of recorded answers are their recorded values.
    public var report: SimulationReport
    /// The recording's auctions of the placement.
    public var recordedAuctions: Int
    /// How many of them filled.
    public var recordedFilled: Int
    /// Σ recorded winning eCPM ÷ 1000 (one impression per filled auction), USD.
    public var recordedRevenueUSD: Double
    /// Requests of the replay answered as recorded.
    public var recordedAnswers: Int
    /// Requests of the replay the recording had no answer for (a tier it never reached, a
    /// source it cancelled, a late or unknown outcome, a line item it did not have), drawn from
    /// the market model.
    public var drawnAnswers: Int

    private enum CodingKeys: String, CodingKey {
        case report
        case recordedAuctions = "recorded_auctions"
        case recordedFilled = "recorded_filled"
        case recordedRevenueUSD = "recorded_revenue_usd"
        case recordedAnswers = "recorded_answers"
        case drawnAnswers = "drawn_answers"
    }

    /// Creates a report.
    public init(report: SimulationReport, recordedAuctions: Int, recordedFilled: Int, recordedRevenueUSD: Double, recordedAnswers: Int, drawnAnswers: Int) {
        self.report = report
        self.recordedAuctions = recordedAuctions
        self.recordedFilled = recordedFilled
        self.recordedRevenueUSD = recordedRevenueUSD
        self.recordedAnswers = recordedAnswers
        self.drawnAnswers = drawnAnswers
    }
}

extension Simulation {
    /// Re-runs the recorded auctions of `placementID` under `configuration` through the real
    /// engine: each source answers auction `i` with its recorded answer and latency from the
    /// recording's `i`-th auction of the placement when there is one (`won` / `lost` at the
    /// recorded value, `no_fill`, `error`, `timeout` as silence), and otherwise with a draw
    /// from `market` keyed by (`options.seed`, `i`, line item id).
    /// - Parameters:
    ///   - recording: the recorded run (``Recording/load(contentsOf:)``).
    ///   - configuration: the configuration to replay under (the recorded one, or a change).
    ///   - market: draws the answers the recording lacks; it must describe every line item.
    ///   - placementID: the placement.
    ///   - options: seed, jobs, shard size, concurrency, batches (`auctions` is ignored: the
    ///     recording's count is used).
    /// - Returns: the report, with the recording's own revenue and the answer counts.
    /// - Throws: ``SimulationError``: `invalid_recording` when the recording has no auction of
    ///   the placement, and as ``run(configuration:market:placementID:options:)``.
    public static func replay(_ recording: Recording, configuration: MediationConfiguration, market: Market, placementID: String, options: SimulationOptions) async throws(SimulationError) -> ReplayReport {
        let auctions = recording.auctions(of: placementID)
        guard !auctions.isEmpty else {
            let placements = Set(recording.auctions.map(\.placementID)).sorted().joined(separator: ", ")
            throw SimulationError(code: .invalidRecording, message: "the recording has no auction of \"\(placementID)\"" + (placements.isEmpty ? " (it has no auction_finished event)" : "; it has: \(placements)"))
        }
        guard configuration.placement(placementID) != nil else {
            let known = configuration.placements.map(\.id).joined(separator: ", ")
            throw SimulationError(code: .unknownPlacement, message: "no placement \"\(placementID)\" in the configuration; it has: \(known)")
        }
        var options = options
        options.auctions = auctions.count
        try options.validate()
        try Simulation.checkOutages(market, options: options)
        let counters = ReplayCounters()
        let networks: SimulatedNetworks
        do {
            try market.check(against: [configuration], placements: [placementID])
            networks = try SimulatedNetworks(configuration: configuration, market: market, seed: options.seed, placements: [placementID], recording: ReplaySources(placementID: placementID, auctions: auctions, counters: counters))
        } catch {
            throw SimulationError.market(error)
        }
        switch await ShardScheduler.run([networks], placementID: placementID, options: options) {
        case .success(let totals):
            let report = SimulationReport(placementID: placementID, seed: options.seed, totals: totals.runs[0], models: networks.sourcesByPlacement[placementID] ?? [])
            var recordedRevenue = WideSum()
            var recordedFilled = 0
            for auction in auctions where auction.winner != nil {
                recordedFilled += 1
                recordedRevenue.add(SourceDraw.micros(ofPrice: auction.winningECPM ?? 0))
            }
            return ReplayReport(
                report: report,
                recordedAuctions: auctions.count,
                recordedFilled: recordedFilled,
                recordedRevenueUSD: Money.usd(recordedRevenue),
                recordedAnswers: counters.recorded,
                drawnAnswers: counters.drawn
            )
        case .failure(let error):
            throw error
        }
    }
}

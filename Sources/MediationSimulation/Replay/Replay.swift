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
    /// Requests of the replay the recording had no answer for, drawn from the market model:
    /// those of a line the recording has without an answer (a tier it never reached, a source
    /// it cancelled, a late answer, a bid without a usable value) and the
    /// ``drawnWithoutLine`` ones.
    public var drawnAnswers: Int
    /// Of ``drawnAnswers``, the requests of a line item the recorded auction has no line of (a
    /// line item the recorded configuration did not have).
    public var drawnWithoutLine: Int
    /// The configuration's line items of the placement that no recorded auction has a line of,
    /// in configuration order: every answer of theirs is drawn.
    public var unrecordedLineItems: [String]
    /// The line items the recorded auctions name that the configuration's placement does not
    /// have, in order of first appearance: their recorded lines are not replayed.
    public var unknownLineItems: [UnknownRecordedLineItem]

    private enum CodingKeys: String, CodingKey {
        case report
        case recordedAuctions = "recorded_auctions"
        case recordedFilled = "recorded_filled"
        case recordedRevenueUSD = "recorded_revenue_usd"
        case recordedAnswers = "recorded_answers"
        case drawnAnswers = "drawn_answers"
        case drawnWithoutLine = "drawn_without_line"
        case unrecordedLineItems = "unrecorded_line_items"
        case unknownLineItems = "unknown_line_items"
    }

    /// Creates a report.
    public init(report: SimulationReport, recordedAuctions: Int, recordedFilled: Int, recordedRevenueUSD: Double, recordedAnswers: Int, drawnAnswers: Int, drawnWithoutLine: Int = 0, unrecordedLineItems: [String] = [], unknownLineItems: [UnknownRecordedLineItem] = []) {
        self.report = report
        self.recordedAuctions = recordedAuctions
        self.recordedFilled = recordedFilled
        self.recordedRevenueUSD = recordedRevenueUSD
        self.recordedAnswers = recordedAnswers
        self.drawnAnswers = drawnAnswers
        self.drawnWithoutLine = drawnWithoutLine
        self.unrecordedLineItems = unrecordedLineItems
        self.unknownLineItems = unknownLineItems
    }
}

/// A line item a recording's auctions name that the configuration replayed under does not
/// have in the placement: where it first appears and how many lines it has.
public struct UnknownRecordedLineItem: Hashable, Sendable, Codable {
    /// The recorded line item id.
    public var lineItemID: String
    /// The network its first line names.
    public var network: String
    /// How many recorded lines name it.
    public var lines: Int
    /// The NDJSON line of its first appearance (1-based), if known.
    public var firstLine: Int?
    /// The JSON path of its first line in that NDJSON line (`trace.sources[2]`).
    public var firstPath: String

    private enum CodingKeys: String, CodingKey {
        case lineItemID = "line_item"
        case network
        case lines
        case firstLine = "first_line"
        case firstPath = "first_path"
    }

    /// Creates an entry.
    public init(lineItemID: String, network: String, lines: Int, firstLine: Int?, firstPath: String) {
        self.lineItemID = lineItemID
        self.network = network
        self.lines = lines
        self.firstLine = firstLine
        self.firstPath = firstPath
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
        guard let placement = configuration.placement(placementID) else {
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
            let (unrecorded, unknown) = lineItemsNotInBoth(auctions, placement: placement)
            return ReplayReport(
                report: report,
                recordedAuctions: auctions.count,
                recordedFilled: recordedFilled,
                recordedRevenueUSD: Money.usd(recordedRevenue),
                recordedAnswers: counters.recorded,
                drawnAnswers: counters.drawn,
                drawnWithoutLine: counters.drawnWithoutLine,
                unrecordedLineItems: unrecorded,
                unknownLineItems: unknown
            )
        case .failure(let error):
            throw error
        }
    }

    /// The placement's line items no recorded auction has a line of, and the recorded line items
    /// the placement does not have.
    private static func lineItemsNotInBoth(_ auctions: [RecordedAuction], placement: MediationConfiguration.Placement) -> (unrecorded: [String], unknown: [UnknownRecordedLineItem]) {
        let configured = Set(placement.sources.map(\.id))
        var recorded = Set<String>()
        var unknown: [UnknownRecordedLineItem] = []
        var unknownIndex: [String: Int] = [:]
        for auction in auctions {
            for (index, source) in auction.sources.enumerated() {
                recorded.insert(source.lineItemID)
                guard !configured.contains(source.lineItemID) else { continue }
                if let known = unknownIndex[source.lineItemID] {
                    unknown[known].lines += 1
                } else {
                    unknownIndex[source.lineItemID] = unknown.count
                    unknown.append(UnknownRecordedLineItem(lineItemID: source.lineItemID, network: source.network, lines: 1, firstLine: auction.line, firstPath: "trace.sources[\(index)]"))
                }
            }
        }
        return (placement.sources.map(\.id).filter { !recorded.contains($0) }, unknown)
    }
}

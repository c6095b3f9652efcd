import Mediation
import MediationVirtualTime

/// What-if runs of a placement on the real engine: N auctions through ``MediationEngine`` on
/// virtual time (``ManualClock``), against simulated networks that answer from a ``Market``
/// with seeded draws (`docs/simulation.md`).
///
/// ```swift
/// let configuration = try MediationConfiguration(contentsOf: configURL, registry: .standard)
/// let market = try Market.load(contentsOf: marketURL)
/// let report = try await Simulation.run(configuration: configuration, market: market,
///                                       placementID: "home_banner", auctions: 100_000, seed: 7)
/// print(report.revenuePer1000Requests, report.oracle.ratio ?? 0)
/// ```
public enum Simulation {
    /// Runs `auctions` auctions of `placementID` (see ``run(configuration:market:placementID:options:)``).
    /// - Parameters:
    ///   - configuration: the configuration, as loaded.
    ///   - market: how the networks answer.
    ///   - placementID: the placement.
    ///   - auctions: the number of auctions (requests).
    ///   - seed: the seed of every draw.
    ///   - jobs: shards run at once, on as many threads (the report is the same for any value).
    /// - Returns: the report.
    /// - Throws: ``SimulationError``.
    public static func run(configuration: MediationConfiguration, market: Market, placementID: String, auctions: Int, seed: UInt64, jobs: Int = 1) async throws(SimulationError) -> SimulationReport {
        try await run(configuration: configuration, market: market, placementID: placementID, options: SimulationOptions(auctions: auctions, seed: seed, jobs: jobs))
    }

    /// Runs `options.auctions` one-shot auctions of `placementID` through the real engine, in
    /// shards of `options.shardSize` (each with its own clock and engine, `options.jobs` at
    /// once), auction `i` drawing every source's answer from the stream keyed by
    /// (`options.seed`, `i`, line item id).
    /// - Parameters:
    ///   - configuration: the configuration, as loaded.
    ///   - market: how the networks answer.
    ///   - placementID: the placement.
    ///   - options: auctions, seed, jobs, shard size, concurrency, batches.
    /// - Returns: the report; the same for the same configuration, market, placement, auctions,
    ///   seed and batches, whatever the jobs, shard size and concurrency.
    /// - Throws: ``SimulationError``: `unknown_placement`, `invalid_market` (the market path),
    ///   `invalid_options`, `invalid_configuration`, `stalled`.
    public static func run(configuration: MediationConfiguration, market: Market, placementID: String, options: SimulationOptions) async throws(SimulationError) -> SimulationReport {
        let (totals, models) = try await runTotals([(configuration, true)], market: market, placementID: placementID, options: options)
        return SimulationReport(placementID: placementID, seed: options.seed, totals: totals.runs[0], models: models[0], options: options)
    }

    /// Runs `placementID` twice on the same auctions and draws: A with network health off for
    /// every network (the engine without R24), B with the configuration's health settings, and
    /// reports each figure's difference B − A (what health changes) as
    /// ``compare(_:_:market:placementID:options:)`` does.
    /// - Parameters:
    ///   - configuration: the configuration, as loaded.
    ///   - market: how the networks answer (outages too, in a timed run).
    ///   - placementID: the placement.
    ///   - options: auctions (or a timed run's rate), seed, jobs, shard size, concurrency, batches.
    /// - Returns: A (no health), B (health) and the differences.
    /// - Throws: ``SimulationError``.
    public static func compareHealth(configuration: MediationConfiguration, market: Market, placementID: String, options: SimulationOptions) async throws(SimulationError) -> SimulationComparison {
        let (totals, models) = try await runTotals([(configuration, false), (configuration, true)], market: market, placementID: placementID, options: options)
        return SimulationComparison(
            a: SimulationReport(placementID: placementID, seed: options.seed, totals: totals.runs[0], models: models[0], health: false, options: options),
            b: SimulationReport(placementID: placementID, seed: options.seed, totals: totals.runs[1], models: models[1], options: options),
            differences: Differences.between(totals, from: 0, to: 1)
        )
    }

    /// Runs two configurations of `placementID` on the same auctions and draws (common random
    /// numbers) and reports each figure's difference B − A with a 95 % interval: paired
    /// per-auction differences for means, batch means for ratios. Identical configurations give
    /// exactly zero differences with zero-width intervals.
    /// - Parameters:
    ///   - a: configuration A (the current one, say).
    ///   - b: configuration B (the change).
    ///   - market: how the networks answer (it must describe both).
    ///   - placementID: the placement, in both.
    ///   - options: auctions, seed, jobs, shard size, concurrency, batches.
    /// - Returns: both reports and the differences.
    /// - Throws: ``SimulationError``.
    public static func compare(_ a: MediationConfiguration, _ b: MediationConfiguration, market: Market, placementID: String, options: SimulationOptions) async throws(SimulationError) -> SimulationComparison {
        let (totals, models) = try await runTotals([(a, true), (b, true)], market: market, placementID: placementID, options: options)
        return SimulationComparison(
            a: SimulationReport(placementID: placementID, seed: options.seed, totals: totals.runs[0], models: models[0], options: options),
            b: SimulationReport(placementID: placementID, seed: options.seed, totals: totals.runs[1], models: models[1], options: options),
            differences: Differences.between(totals, from: 0, to: 1)
        )
    }

    /// Runs `placementID` at every value of a parameter, on the same draws, and picks the value
    /// with the highest realised revenue per 1000 requests.
    /// - Parameters:
    ///   - specification: the parameter and its values (``SweepSpecification/init(parsing:)``).
    ///   - configuration: the configuration the sweep starts from (also run, as the baseline).
    ///   - market: how the networks answer.
    ///   - placementID: the placement.
    ///   - options: auctions, seed, jobs, shard size, concurrency, batches.
    /// - Returns: the curve, the best value, and its differences from the baseline and from the
    ///   runner-up.
    /// - Throws: ``SimulationError``: `invalid_sweep` for a value that does not apply, and as
    ///   ``run(configuration:market:placementID:options:)``.
    public static func sweep(_ specification: SweepSpecification, configuration: MediationConfiguration, market: Market, placementID: String, options: SimulationOptions) async throws(SimulationError) -> SweepResult {
        guard !specification.values.isEmpty else {
            throw SimulationError(code: .invalidSweep, message: "\(specification.parameter): no values")
        }
        var configurations = [configuration]
        for value in specification.values {
            configurations.append(try specification.parameter.apply(value, to: configuration, placementID: placementID))
        }
        let (totals, models) = try await runTotals(configurations.map { ($0, true) }, market: market, placementID: placementID, options: options)
        let reports = totals.runs.indices.map { index in
            SimulationReport(placementID: placementID, seed: options.seed, totals: totals.runs[index], models: models[index], options: options)
        }
        let points = zip(specification.values, reports.dropFirst()).map { SweepPoint(value: $0, report: $1) }
        // Ranked by the objective, then by position (the first of equals wins).
        let ranked = points.indices.sorted { lhs, rhs in
            let left = points[lhs].report.revenuePer1000Requests
            let right = points[rhs].report.revenuePer1000Requests
            return left != right ? left > right : lhs < rhs
        }
        let best = ranked[0]
        return SweepResult(
            parameter: specification.parameter.description,
            objective: "revenue_per_1000_requests",
            baseline: reports[0],
            points: points,
            bestIndex: best,
            bestVersusBaseline: Differences.between(totals, from: 0, to: best + 1),
            bestVersusRunnerUp: ranked.count > 1 ? Differences.between(totals, from: ranked[1] + 1, to: best + 1) : []
        )
    }

    /// ``sweep(_:configuration:market:placementID:options:)`` for a parameter and values given
    /// directly.
    /// - Parameters:
    ///   - parameter: what to vary (`.floor`, `.deadline`, `.eCPM(lineItem:)`).
    ///   - values: its values, in order.
    ///   - configuration: the configuration the sweep starts from (also run, as the baseline).
    ///   - market: how the networks answer.
    ///   - placementID: the placement.
    ///   - options: auctions, seed, jobs, shard size, concurrency, batches.
    /// - Returns: the curve and the best value.
    /// - Throws: ``SimulationError``.
    public static func sweep(parameter: SweepParameter, values: [Double], configuration: MediationConfiguration, market: Market, placementID: String, options: SimulationOptions) async throws(SimulationError) -> SweepResult {
        try await sweep(SweepSpecification(parameter: parameter, values: values), configuration: configuration, market: market, placementID: placementID, options: options)
    }

    /// Runs `runs` (a configuration, and whether its health is on; the same placement in each)
    /// on the same shards and draws.
    static func runTotals(_ runs: [(configuration: MediationConfiguration, health: Bool)], market: Market, placementID: String, options: SimulationOptions) async throws(SimulationError) -> (MultiTotals, [[SourceModel]]) {
        try options.validate()
        try checkOutages(market, options: options)
        let configurations = runs.map(\.configuration)
        for configuration in configurations where configuration.placement(placementID) == nil {
            let known = configuration.placements.map(\.id).joined(separator: ", ")
            throw SimulationError(code: .unknownPlacement, message: "no placement \"\(placementID)\" in the configuration; it has: \(known)")
        }
        var networks: [SimulatedNetworks] = []
        do {
            try market.check(against: configurations, placements: [placementID])
            for run in runs {
                networks.append(try SimulatedNetworks(configuration: run.configuration, market: market, seed: options.seed, placements: [placementID], health: run.health))
            }
        } catch {
            throw SimulationError.market(error)
        }
        switch await ShardScheduler.run(networks, placementID: placementID, options: options) {
        case .success(let totals):
            return (totals, networks.map { $0.sourcesByPlacement[placementID] ?? [] })
        case .failure(let error):
            throw error
        }
    }

    /// A market's outages are instants of a run's time line, which only a timed run has.
    static func checkOutages(_ market: Market, options: SimulationOptions) throws(SimulationError) {
        guard options.rate == nil, let network = market.networks.first(where: { !$0.outages.isEmpty }) else { return }
        throw SimulationError(code: .invalidOptions, message: "the market has outages (networks.\(network.id).outages), which need a timed run: a rate of requests per second (SimulationOptions.timed, mediate simulate --duration D --rate R)")
    }
}

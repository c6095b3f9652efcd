import Adapters
import Foundation
import Mediation
import MediationSimulation

/// What the engine earns against what was on offer, on the shipped config and market
/// (`home_banner`, `Config/mediation.json`, `Config/market.json`), from the same draws:
///
/// - the engine in parallel mode, and in waterfall mode (the same config with `mode` waterfall);
/// - a classic sequential waterfall built from the same simulated adapters' answers: the
///   bidder asked first, then the fixed-price tiers in descending configured eCPM, each asked
///   only after the previous one failed (no fill, error, or silence until its timeout), within
///   the placement's deadline;
///
/// each as a ratio of the deadline oracle (the best valid answer arriving before its source's
/// limit), valued at known prices (bids and configured eCPMs: what the engine can know) and at
/// realised prices (what the market actually paid).
enum RevenueBenchmark {
    static let placementID = "home_banner"

    static func run(quick: Bool) async -> BenchmarkResult {
        var result = BenchmarkResult(name: "revenue", title: "Oracle ratios on the shipped config and market: engine parallel, engine waterfall, classic waterfall (home_banner)")
        let auctions = quick ? 20_000 : 200_000
        guard let (configuration, market) = ShippedSimulationFiles.load(into: &result) else { return result }
        var waterfall = configuration
        if let index = waterfall.placements.firstIndex(where: { $0.id == placementID }) {
            waterfall.placements[index].mode = .waterfall
        }
        let options = SimulationOptions(auctions: auctions, seed: 1)
        let parallelReport: SimulationReport
        let waterfallReport: SimulationReport
        let networks: SimulatedNetworks
        do {
            parallelReport = try await Simulation.run(configuration: configuration, market: market, placementID: placementID, options: options)
            waterfallReport = try await Simulation.run(configuration: waterfall, market: market, placementID: placementID, options: options)
            networks = try SimulatedNetworks(configuration: configuration, market: market, seed: options.seed, placements: [placementID])
        } catch {
            result.failures.append("simulation failed: \(error)")
            return result
        }
        let classic = ClassicWaterfall.run(configuration: configuration, networks: networks, placementID: placementID, auctions: auctions)
        let knownOracle = parallelReport.oracle.knownRevenueUSD
        let realisedOracle = parallelReport.oracle.revenueUSD
        let rows: [(String, known: Double, realised: Double, fill: Double)] = [
            ("engine, parallel", parallelReport.knownRevenueUSD, parallelReport.revenueUSD, parallelReport.fillRate),
            ("engine, waterfall mode", waterfallReport.knownRevenueUSD, waterfallReport.revenueUSD, waterfallReport.fillRate),
            ("classic sequential waterfall", classic.knownUSD, classic.realisedUSD, Double(classic.filled) / Double(auctions)),
        ]
        for row in rows {
            result.figures.append(Figure(name: "\(row.0): oracle ratio, known prices", unit: "ratio", summary: Summary(single: row.known / knownOracle)))
            result.figures.append(Figure(name: "\(row.0): oracle ratio, realised prices", unit: "ratio", summary: Summary(single: row.realised / realisedOracle)))
            result.figures.append(Figure(name: "\(row.0): revenue / 1000 requests, known", unit: "USD", summary: Summary(single: row.known * 1_000_000 / Double(auctions) / 1000)))
            result.figures.append(Figure(name: "\(row.0): revenue / 1000 requests, realised", unit: "USD", summary: Summary(single: row.realised * 1_000_000 / Double(auctions) / 1000)))
            result.figures.append(Figure(name: "\(row.0): fill rate", unit: "share", summary: Summary(single: row.fill)))
        }
        result.figures.append(Figure(name: "classic sequential waterfall: time to ad p50", unit: "ms", summary: Summary(single: Double(classic.timeToAdP50))))
        result.figures.append(Figure(name: "engine, parallel: time to ad p50", unit: "ms", summary: Summary(single: Double(parallelReport.timeToAd.p50 ?? 0))))
        result.figures.append(Figure(name: "engine, waterfall mode: time to ad p50", unit: "ms", summary: Summary(single: Double(waterfallReport.timeToAd.p50 ?? 0))))
        let ratio = parallelReport.knownRevenueUSD / knownOracle
        result.targets.append(TargetCheck(
            target: "parallel revenue = deadline oracle within 0.1 % at known prices",
            measured: String(format: "%.5f (%d auctions, seed 1)", ratio, auctions),
            met: abs(ratio - 1) <= 0.001
        ))
        result.notes.append("\(auctions) auctions of seed 1, the same draws for every column")
        result.notes.append(String(format: "deadline oracle per 1000 requests: known %.4f, realised %.4f USD; unbounded oracle ratio of the parallel engine %.4f", knownOracle * 1_000_000 / Double(auctions) / 1000, realisedOracle * 1_000_000 / Double(auctions) / 1000, parallelReport.oracle.unboundedRatio ?? .nan))
        return result
    }
}

/// Simulated auctions per second: 1,000,000 auctions of `home_banner` with one job, then two
/// (the same report, byte for byte, is checked through a digest of its JSON).
enum SimulationSpeedBenchmark {
    static func run(quick: Bool) async -> BenchmarkResult {
        var result = BenchmarkResult(name: "simulation", title: "Simulated auctions per second, home_banner on the shipped market (jobs 1, jobs 2)")
        let auctions = quick ? 100_000 : 1_000_000
        guard let (configuration, market) = ShippedSimulationFiles.load(into: &result) else { return result }
        var digests: [UInt64] = []
        var seconds: [Double] = []
        for jobs in [1, 2] {
            let clock = ContinuousClock()
            let start = clock.now
            do {
                let report = try await Simulation.run(configuration: configuration, market: market, placementID: RevenueBenchmark.placementID, options: SimulationOptions(auctions: auctions, seed: 1, jobs: jobs))
                let elapsed = (clock.now - start).seconds
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                let json = (try? encoder.encode(report)) ?? Data()
                digests.append(json.reduce(UInt64(0xCBF2_9CE4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 })
                seconds.append(elapsed)
                result.figures.append(Figure(name: "\(auctions) auctions, jobs \(jobs): wall time", unit: "s", summary: Summary(single: elapsed)))
                result.figures.append(Figure(name: "jobs \(jobs): auctions per second", unit: "auctions/s", summary: Summary(single: Double(auctions) / elapsed)))
            } catch {
                result.failures.append("simulation failed: \(error)")
                return result
            }
        }
        if !quick {
            result.targets.append(TargetCheck(target: "1,000,000 auctions of home_banner in < 60 s on one job", measured: String(format: "%.1f s", seconds[0]), met: seconds[0] < 60))
        }
        if digests.count == 2, digests[0] != digests[1] {
            result.failures.append("jobs 1 and jobs 2 reports differ")
        }
        result.notes.append("report digest \(String(digests.first ?? 0, radix: 16)) for jobs 1 and jobs 2 (\(digests.count == 2 && digests[0] == digests[1] ? "identical" : "DIFFERENT")); jobs 2 runs two shards at once, so it is only faster when the process may use two cores (not under taskset -c 0)")
        return result
    }
}

extension Duration {
    /// This length in seconds.
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// A classic sequential waterfall over the simulated adapters' answers: bidders first, then
/// fixed-price tiers in descending configured eCPM (those under the placement's floor never
/// asked); each tier is asked when the previous one failed and waits for its answer until its
/// limit (the line item's or the network's `timeout_ms`, else the deadline); the first ad wins.
enum ClassicWaterfall {
    struct Totals {
        var knownUSD = 0.0
        var realisedUSD = 0.0
        var filled = 0
        var timeToAdP50 = 0
    }

    static func run(configuration: MediationConfiguration, networks: SimulatedNetworks, placementID: String, auctions: Int) -> Totals {
        guard let placement = configuration.placement(placementID) else { return Totals() }
        let deadline = Int64(placement.deadline.milliseconds)
        let floorMicros = placement.floor.map { Int64(($0 * 1_000_000).rounded()) } ?? 0
        let bidders = placement.sources.filter { $0.pricing == .bidder }
        let fixed = placement.sources.enumerated()
            .filter { $0.element.pricing == .fixedPrice && micros($0.element) >= max(1, floorMicros) }
            .sorted { micros($0.element) != micros($1.element) ? micros($0.element) > micros($1.element) : $0.offset < $1.offset }
            .map(\.element)
        let tiers = bidders + fixed
        let limits = tiers.map { lineItem -> Int64 in
            var limit = deadline
            if let timeout = lineItem.timeout { limit = min(limit, Int64(timeout.milliseconds)) }
            if let timeout = configuration.network(lineItem.network)?.timeout { limit = min(limit, Int64(timeout.milliseconds)) }
            return limit
        }
        var known: Int64 = 0
        var realised: Int64 = 0
        var totals = Totals()
        var times = [Int](repeating: 0, count: Int(deadline) + 1)
        for auction in 0..<auctions {
            var now: Int64 = 0
            for (index, lineItem) in tiers.enumerated() where now < deadline {
                let end = min(now + limits[index], deadline)
                guard let draw = networks.answer(placementID: placementID, lineItemID: lineItem.id, auction: UInt64(auction)), draw.answer != .never else {
                    now = end
                    continue
                }
                let arrival = now + draw.latencyMilliseconds
                guard arrival < end else {
                    now = end
                    continue
                }
                now = arrival
                guard draw.answer == .ad else { continue }
                if lineItem.pricing == .bidder {
                    let ownFloor = lineItem.floor.map { Int64(($0 * lineItem.usdRate * 1_000_000).rounded()) } ?? 0
                    guard draw.priceMicros >= max(1, floorMicros, ownFloor) else { continue }
                    known += draw.priceMicros
                } else {
                    known += micros(lineItem)
                }
                realised += draw.priceMicros
                totals.filled += 1
                times[Int(min(arrival, deadline))] += 1
                break
            }
        }
        totals.knownUSD = Double(known) / 1_000_000_000
        totals.realisedUSD = Double(realised) / 1_000_000_000
        var seen = 0
        for (milliseconds, count) in times.enumerated() {
            seen += count
            if seen * 2 >= totals.filled {
                totals.timeToAdP50 = milliseconds
                break
            }
        }
        return totals
    }

    /// A fixed-price line item's configured eCPM in USD CPM micros.
    private static func micros(_ lineItem: LineItem) -> Int64 {
        Int64(((lineItem.eCPM ?? 0) * lineItem.usdRate * 1_000_000).rounded())
    }
}

/// The shipped config and market, read from the current directory (the package root).
enum ShippedSimulationFiles {
    /// `Config/mediation.json` and `Config/market.json`, or `nil` with the failure noted in
    /// `result`.
    static func load(into result: inout BenchmarkResult) -> (MediationConfiguration, Market)? {
        do {
            let configuration = try MediationConfiguration(contentsOf: URL(fileURLWithPath: "Config/mediation.json"), registry: .standard)
            let market = try Market.load(contentsOf: URL(fileURLWithPath: "Config/market.json"))
            return (configuration, market)
        } catch {
            result.failures.append("cannot load Config/mediation.json or Config/market.json from the current directory: \(error)")
            return nil
        }
    }
}

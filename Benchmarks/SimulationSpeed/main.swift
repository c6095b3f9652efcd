// simulation-speed: times Simulation.run on the shipped config and market, for the figures in
// docs/simulation.md ("Speed"). Not a test: run it from the package root, release build:
//   swift build -c release --product simulation-speed
//   taskset -c 0 .build/release/simulation-speed --auctions 1000000
//   .build/release/simulation-speed --auctions 1000000 --jobs 2
//   .build/release/simulation-speed --auctions 100000 --sweep 'ecpm[home_banner_nitx]=1.0:2.0:0.2'
//   .build/release/simulation-speed --config Config/mediation-global.json --market Config/market-global.json --placement level_end --auctions 1000000
//   .build/release/simulation-speed --config Config/mediation-global.json --market Config/market-global.json --placement level_end --market-limits 14 --auctions 100000 --seeds 10
// (--market-limits DAYS: the per-country true-means limit against the one-global-price limit,
// expected from the model and run on the market's own draws, --auctions a day, over --seeds.)
// Prints the wall time, auctions per second and a digest of the report's JSON (equal digests:
// byte-identical reports).
import Adapters
import Foundation
import Mediation
import MediationSimulation

var options = SimulationOptions(auctions: 100_000, seed: 1)
var placementID = "home_banner"
var printReport = false
var sweep: String?
var configPath = "Config/mediation.json"
var marketPath = "Config/market.json"
var limitDays: Int?
var seedCount = 10
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--report": printReport = true; continue
    default: break
    }
    guard let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data("simulation-speed: \(argument) needs a value\n".utf8))
        exit(64)
    }
    switch argument {
    case "--auctions": options.auctions = Int(value) ?? 0
    case "--jobs": options.jobs = Int(value) ?? 0
    case "--concurrency": options.concurrency = Int(value) ?? 0
    case "--shard-size": options.shardSize = Int(value) ?? 0
    case "--seed": options.seed = UInt64(value) ?? 0
    case "--placement": placementID = value
    case "--sweep": sweep = value
    case "--config": configPath = value
    case "--market": marketPath = value
    case "--market-limits": limitDays = Int(value) ?? 0
    case "--seeds": seedCount = Int(value) ?? 0
    default:
        FileHandle.standardError.write(Data("simulation-speed: unknown option \(argument)\n".utf8))
        exit(64)
    }
}

do {
    let configuration = try MediationConfiguration(contentsOf: URL(fileURLWithPath: configPath), registry: .standard)
    let market = try Market.load(contentsOf: URL(fileURLWithPath: marketPath))
    let clock = ContinuousClock()
    let start = clock.now
    if let limitDays {
        guard let placement = configuration.placement(placementID),
              let figure = market.limitFigure(of: placement, days: limitDays, auctionsPerDay: options.auctions, seeds: (1...max(1, seedCount)).map(UInt64.init)) else {
            FileHandle.standardError.write(Data("simulation-speed: --market-limits needs a market with countries and a placement with tiers\n".utf8))
            exit(64)
        }
        print("\(placementID), \(limitDays) days, \(options.auctions) auctions a day, seeds 1 to \(seedCount): per-country true-means limit ÷ one-global-price limit")
        print("day  per-country $/1000  global $/1000  ratio")
        for day in figure.days {
            print(String(format: "%3d  %18.4f  %13.4f  %.4f", day.day, day.perCountryRevenuePer1000, day.globalRevenuePer1000, day.perCountryRevenuePer1000 / day.globalRevenuePer1000))
        }
        let interval = figure.simulatedRatioInterval.map { String(format: "%.4f to %.4f", $0.lower, $0.upper) } ?? "-"
        print(String(format: "expected (model) %.4f; simulated %.4f", figure.expectedRatio, figure.simulatedRatio) + " (95 % over seeds: \(interval))")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(figure), as: UTF8.self))
        exit(0)
    }
    if let sweep {
        let result = try await Simulation.sweep(try SweepSpecification(parsing: sweep), configuration: configuration, market: market, placementID: placementID, options: options)
        let elapsed = clock.now - start
        print("\(placementID) sweep \(result.parameter), \(options.auctions) auctions per value (\(elapsed)):")
        func line(_ label: String, _ report: SimulationReport) -> String {
            let interval = report.revenuePer1000RequestsInterval.map { String(format: "[%.4f, %.4f]", $0.lower, $0.upper) } ?? "-"
            return "  \(label): revenue/1000 \(String(format: "%.4f", report.revenuePer1000Requests)) \(interval), fill \(String(format: "%.4f", report.fillRate)), oracle ratio \(String(format: "%.4f", report.oracle.ratio ?? .nan)), time to ad p95 \(report.timeToAd.p95 ?? -1) ms"
        }
        print(line("baseline", result.baseline))
        for point in result.points { print(line(String(point.value), point.report)) }
        for difference in result.bestVersusBaseline + result.bestVersusRunnerUp where difference.figure == "revenue_per_1000_requests" {
            let interval = difference.interval.map { String(format: "[%+.4f, %+.4f]", $0.lower, $0.upper) } ?? "-"
            print("  best \(result.best.value): \(String(format: "%+.4f", difference.difference ?? .nan)) \(interval) over \(difference.a.map { String(format: "%.4f", $0) } ?? "-")")
        }
        exit(0)
    }
    let report = try await Simulation.run(configuration: configuration, market: market, placementID: placementID, options: options)
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let encoder = JSONEncoder()
    encoder.outputFormatting = printReport ? [.sortedKeys, .prettyPrinted] : [.sortedKeys]
    let json = try encoder.encode(report)
    // FNV-1a of the JSON: equal digests mean byte-identical reports.
    let digest = json.reduce(UInt64(0xCBF2_9CE4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    print("\(placementID): \(options.auctions) auctions, jobs \(options.jobs), concurrency \(options.concurrency), shard \(options.shardSize): \(String(format: "%.2f", seconds)) s, \(String(format: "%.0f", Double(options.auctions) / seconds)) auctions/s, \(String(format: "%.2f", seconds * 1e6 / Double(options.auctions))) µs/auction")
    print("fill \(report.fillRate), revenue/1000 \(report.revenuePer1000Requests), oracle ratio \(report.oracle.ratio ?? .nan), unbounded \(report.oracle.unboundedRatio ?? .nan), time to ad p50/p95/p99 \(report.timeToAd.p50 ?? -1)/\(report.timeToAd.p95 ?? -1)/\(report.timeToAd.p99 ?? -1) ms; report digest \(String(digest, radix: 16))")
    if printReport { print(String(decoding: json, as: UTF8.self)) }
} catch let error as ConfigurationError {
    FileHandle.standardError.write(Data("simulation-speed: \(error)\n".utf8))
    exit(65)
} catch {
    FileHandle.standardError.write(Data("simulation-speed: \(error)\n".utf8))
    exit(70)
}

import Foundation
import Mediation
import MediationLearning
import MediationSimulation

/// The learning loop (`mediate simulate --days`) on the shipped config and market: its speed
/// (14 days of all four learners on `home_banner`, 100,000 auctions a day, jobs 2: 5.6 million
/// learner auctions plus the limit's) and its figures against issue targets, on the stationary
/// market, with Nitx's prices halving on day 5, and with them falling to 0.58 on day 5 (where
/// a baseline's lag changes the line items' order, so that the learners' speed shows).
enum LearningBenchmark {
    static func run(quick: Bool) async -> BenchmarkResult {
        var result = BenchmarkResult(name: "learning", title: "Learned eCPMs in the simulated loop: home_banner, 14 days, static / auto-cpm / smoothing / bayes against the true-means limit")
        let auctions = quick ? 10_000 : 100_000
        let days = quick ? 7 : 14
        guard let (configuration, market) = ShippedSimulationFiles.load(into: &result) else { return result }
        let learners = ECPMLearners.all.compactMap(ECPMLearners.named)
        for (label, drifts) in [("stationary", [PriceDrift]()), ("nitx halves on day 5", [PriceDrift(network: "nitx", factor: 0.5, fromDay: 5)]),
                                ("nitx falls to 0.58 on day 5", [PriceDrift(network: "nitx", factor: 0.58, fromDay: 5)])] {
            let clock = ContinuousClock()
            let start = clock.now
            let run: LearningRun
            do {
                run = try await Simulation.learn(configuration: configuration, market: market, placementID: RevenueBenchmark.placementID, learners: learners,
                                                 learning: LearningOptions(days: days, drifts: drifts), options: SimulationOptions(auctions: auctions, seed: 1, jobs: 2))
            } catch {
                result.failures.append("learning run failed: \(error)")
                return result
            }
            let elapsed = clock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            result.figures.append(Figure(name: "\(label): \(days) days x \(auctions) auctions, 4 learners + limit, jobs 2: wall time", unit: "s", summary: Summary(single: seconds)))
            for summary in run.summaries {
                result.figures.append(Figure(name: "\(label): \(summary.learner): ratio to the limit over \(days) days", unit: "ratio", summary: Summary(single: summary.ratioToLimit ?? 0)))
            }
            let bayes = run.summary("bayes")
            let lowest = bayes?.minimumDailyRatioFromDay3 ?? 0
            for baseline in ["auto-cpm", "smoothing"] {
                if let difference = run.difference("bayes", minus: baseline) {
                    let interval = difference.interval.map { String(format: "%+.6f to %+.6f", $0.lower, $0.upper) } ?? "-"
                    result.notes.append("\(label): bayes - \(baseline) = \(String(format: "%+.6f", difference.difference ?? 0)) per 1000 requests (95 %: \(interval))")
                    if !quick {
                        result.targets.append(TargetCheck(target: "\(label): bayes beats \(baseline) over 14 days, paired interval above 0", measured: String(format: "%+.6f (%@)", difference.difference ?? 0, interval), met: (difference.interval?.lower ?? 0) > 0))
                    }
                }
            }
            guard !quick else { continue }
            if drifts.isEmpty {
                result.targets.append(TargetCheck(target: "14-day run of 4 learners on home_banner < 180 s, jobs 2", measured: String(format: "%.1f s", seconds), met: seconds < 180))
                result.targets.append(TargetCheck(target: "stationary: bayes >= 99 % of the limit every day from day 3", measured: String(format: "lowest %.4f", lowest), met: lowest >= 0.99))
                result.targets.append(TargetCheck(target: "stationary: bayes >= 98.5 % of the limit over 14 days", measured: String(format: "%.4f", bayes?.ratioToLimit ?? 0), met: (bayes?.ratioToLimit ?? 0) >= 0.985))
            } else {
                let day7 = run.daily.first { $0.day == 7 }?.learners.first { $0.learner == "bayes" }?.ratioToLimit ?? 0
                let autoDay7 = run.daily.first { $0.day == 7 }?.learners.first { $0.learner == "auto-cpm" }?.ratioToLimit ?? 0
                result.targets.append(TargetCheck(target: "drift: bayes back to >= 98 % of the limit by day 7 (auto-cpm shown)", measured: String(format: "bayes %.4f, auto-cpm %.4f", day7, autoDay7), met: day7 >= 0.98))
            }
        }
        // Exploration: its cost on the shipped market, its benefit where a price hides.
        let hidden: Market
        do {
            hidden = try Market.load(contentsOf: URL(fileURLWithPath: "Config/market-hidden-demand.json"))
        } catch {
            result.failures.append("Config/market-hidden-demand.json: \(error)")
            return result
        }
        for (label, exploreMarket) in [("shipped market", market), ("market-hidden-demand.json", hidden)] {
            let run: LearningRun
            do {
                run = try await Simulation.learn(configuration: configuration, market: exploreMarket, placementID: RevenueBenchmark.placementID, learners: [BayesianLearner(), ThompsonLearner()],
                                                 learning: LearningOptions(days: days), options: SimulationOptions(auctions: auctions, seed: 1, jobs: 2))
            } catch {
                result.failures.append("exploration run failed: \(error)")
                return result
            }
            guard let difference = run.difference("thompson", minus: "bayes"), let change = difference.difference, let bayes = run.summary("bayes") else { continue }
            let relative = change / bayes.revenuePer1000Requests
            let interval = difference.interval.map { String(format: "%+.6f to %+.6f", $0.lower, $0.upper) } ?? "-"
            result.figures.append(Figure(name: "\(label): thompson - bayes, revenue / 1000 requests over \(days) days", unit: "USD", summary: Summary(single: change)))
            result.notes.append("\(label): thompson - bayes = \(String(format: "%+.6f", change)) per 1000 requests (95 %: \(interval)), \(String(format: "%+.2f", relative * 100)) %; ratios to the limit \(String(format: "%.4f", bayes.ratioToLimit ?? 0)) and \(String(format: "%.4f", run.summary("thompson")?.ratioToLimit ?? 0))")
            guard !quick else { continue }
            if exploreMarket == market {
                result.targets.append(TargetCheck(target: "exploration costs at most 0.3 % on the stationary shipped market", measured: String(format: "%+.3f %%", relative * 100), met: relative >= -0.003))
            } else {
                result.targets.append(TargetCheck(target: "exploration pays where a price hides (interval above 0)", measured: String(format: "%+.6f (%@)", change, interval), met: (difference.interval?.lower ?? 0) > 0))
            }
        }
        return result
    }
}

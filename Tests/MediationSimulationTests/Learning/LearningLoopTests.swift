import Foundation
import Mediation
import MediationLearning
@testable import MediationSimulation
import Testing

/// The learning loop of `mediate simulate --days` on markets whose every draw is fixed, so each
/// day's figures are worked out by hand.
@Suite("Learning loop")
struct LearningLoopTests {
    /// `neta` is configured at 1.20 but pays 0.60; `netb` at 0.80 pays 0.90; both always fill,
    /// in 100 ms and 50 ms. The engine shows neta (1.20 > 0.80) and earns 0.60 per impression;
    /// priced at the true means it would show netb and earn 0.90.
    static let configuration = SimulationFixture.configuration(sources: [.fixedPrice("neta", eCPM: 1.20), .fixedPrice("netb", eCPM: 0.80)])
    static let market = Market(networks: [
        SimulationFixture.fixed("neta", price: 0.6, latencyMilliseconds: 100),
        SimulationFixture.fixed("netb", price: 0.9, latencyMilliseconds: 50),
    ])

    static func run(_ learners: [String], days: Int, auctions: Int = 1000, drifts: [PriceDrift] = [], market: Market = LearningLoopTests.market, jobs: Int = 1) async throws -> LearningRun {
        try await Simulation.learn(
            configuration: configuration, market: market, placementID: "level_end",
            learners: learners.compactMap(ECPMLearners.named),
            learning: LearningOptions(days: days, drifts: drifts),
            options: SimulationOptions(auctions: auctions, seed: 3, jobs: jobs, shardSize: 250)
        )
    }

    @Test("day 1 runs the manual prices; bayes learns neta's price and shows netb from day 2; static never does")
    func learnsFromTheReports() async throws {
        let run = try await Self.run(["static", "bayes"], days: 3)
        #expect(run.daily.map(\.limitRevenuePer1000Requests) == [0.9, 0.9, 0.9])
        let day1 = run.daily[0]
        #expect(day1.learners.map(\.revenuePer1000Requests) == [0.6, 0.6])
        // End of day 1, bayes: neta 1000 impressions, 0.60 USD; netb none (kept at 0.80).
        // Its eCPM 0.60 over 1000 impressions against the weak prior of 1.2 (an independent
        // implementation of the estimator gives 0.600075), within the cap (0.60 to 1.80): neta
        // is priced 0.6001 < 0.80 and netb wins from day 2.
        let bayes = day1.learners[1]
        #expect(bayes.prices.map(\.impressions) == [1000, 0])
        #expect(abs(bayes.prices[0].revenueUSD - 0.6) < 1e-12)
        #expect(abs(bayes.prices[0].learned - 0.6000750093749995) < 1e-12)
        #expect(bayes.prices[1].learned == 0.8)
        #expect(bayes.prices.map(\.trueMean) == [0.6, 0.9])
        #expect(run.daily[1].learners[1].revenuePer1000Requests == 0.9)
        #expect(run.daily[1].learners[1].ratioToLimit == 1)
        #expect(run.daily[2].learners[0].ratioToLimit.map { abs($0 - 2.0 / 3) < 1e-12 } == true)
        // Over 3 days: static 0.6, bayes (0.6 + 0.9 + 0.9) / 3 = 0.8; every auction differs by
        // exactly the same amount on days 2 and 3, so the interval is of the day-1 zeros and them.
        #expect(run.summary("static")?.ratioToLimit.map { abs($0 - 2.0 / 3) < 1e-12 } == true)
        #expect(run.summary("bayes").map { abs($0.revenuePer1000Requests - 0.8) < 1e-12 } == true)
        #expect(run.summary("bayes")?.minimumDailyRatioFromDay3 == 1)
        let gain = try #require(run.difference("bayes", minus: "static"))
        #expect(gain.difference.map { abs($0 - 0.2) < 1e-12 } == true)
        #expect(gain.isSignificant)
        #expect(run.difference("static", minus: "bayes")?.difference.map { abs($0 + 0.2) < 1e-12 } == true)
    }

    @Test("the limit against each learner: the same paired differences, turned round (what any learner could gain over it)")
    func limitAgainstEachLearner() async throws {
        let run = try await Self.run(["static", "bayes"], days: 3)
        // The limit earns 0.9 every day; static 0.6 every day; bayes 0.6, then 0.9 (above).
        let overStatic = try #require(run.difference(LearnerDifference.limit, minus: "static"))
        #expect(overStatic.difference.map { abs($0 - 0.3) < 1e-12 } == true)
        #expect(overStatic.a == 0.6 && overStatic.b == 0.9)
        // Every auction differs by exactly 0.3: the interval is that point.
        let interval = try #require(overStatic.interval)
        #expect(abs(interval.lower - 0.3) < 1e-12 && abs(interval.upper - 0.3) < 1e-12)
        let overBayes = try #require(run.difference(LearnerDifference.limit, minus: "bayes"))
        #expect(overBayes.difference.map { abs($0 - 0.1) < 1e-12 } == true)
        // The same interval as bayes − limit, turned round, and as the ratio's.
        let ratio = try #require(run.summary("bayes")?.ratioToLimitInterval)
        let turned = try #require(overBayes.interval)
        #expect(abs(turned.lower - (1 - ratio.upper) * 0.9) < 1e-12)
        #expect(abs(turned.upper - (1 - ratio.lower) * 0.9) < 1e-12)
        #expect(overBayes.isSignificant)
        // Listed after the learners' own pairs, one per learner.
        #expect(run.differences.map { "\($0.b) - \($0.a)" } == ["bayes - static", "limit - static", "limit - bayes"])
    }

    @Test("a drift changes the market's prices from its day on, and the limit follows it")
    func drift() async throws {
        let drifts = [try PriceDrift(parsing: "netb:0.5@2")]
        let run = try await Self.run(["auto-cpm"], days: 2, drifts: drifts)
        #expect(run.daily[0].learners[0].prices.map(\.trueMean) == [0.6, 0.9])
        #expect(run.daily[1].learners[0].prices.map(\.trueMean) == [0.6, 0.45])
        // Day 2's limit: neta at 0.60 beats netb at 0.45.
        #expect(run.daily[1].limitRevenuePer1000Requests == 0.6)
        let drifted = Self.market.drifted(by: drifts, onDay: 1)
        #expect(drifted == Self.market)
        #expect(Self.market.drifted(by: drifts, onDay: 9).network("netb")?.behaviour.price?.median == 0.45)
    }

    @Test("a drift's description writes its factor in plain decimals, never in exponent form nor with a .0")
    func driftDescription() throws {
        #expect(PriceDrift(network: "nitx", factor: 0.5, fromDay: 5).description == "nitx:0.5@5")
        #expect(PriceDrift(network: "nitx", factor: 1000, fromDay: 3).description == "nitx:1000@3")
        #expect(PriceDrift(network: "nitx", factor: 0.00001, fromDay: 2).description == "nitx:0.00001@2")
        #expect(try PriceDrift(parsing: "nitx:0.00001@2").description == "nitx:0.00001@2")
        // Read as plain decimals only: no exponent, no hexadecimal, no sign.
        for text in ["nitx:1e-5@2", "nitx:0x10@2", "nitx:+2@2", "nitx:2@0x2"] {
            #expect(throws: SimulationError.self, "\(text)") { try PriceDrift(parsing: text) }
        }
        #expect(PriceDrift(network: "nitx", factor: 1.0 / 3, fromDay: 2).description == "nitx:0.333333333@2")
    }

    @Test("line items sharing an ad unit learn from its summed row, as mediate optimize does")
    func sharedAdUnitIsPooled() async throws {
        let configuration = SimulationFixture.configuration(sources: [
            .fixedPrice("neta_hi", network: "neta", adUnitID: "shared", eCPM: 1.20),
            .fixedPrice("neta_lo", network: "neta", adUnitID: "shared", eCPM: 1.00),
            .fixedPrice("netb", adUnitID: "b", eCPM: 0.80),
        ])
        let run = try await Simulation.learn(
            configuration: configuration, market: Self.market, placementID: "level_end",
            learners: [BayesianLearner()], learning: LearningOptions(days: 2),
            options: SimulationOptions(auctions: 1000, seed: 3, shardSize: 250)
        )
        // Day 1: neta_hi (1.20) wins every auction, 1000 impressions paying 0.60 USD; neta_lo
        // wins none of its own, but its ad unit's row is the same.
        let day1 = run.daily[0].learners[0]
        #expect(day1.prices.map(\.impressions) == [1000, 0, 0])
        let report = "day,network,ad_unit_id,impressions,revenue,currency\n\(run.daily[0].date),neta,shared,1000,0.6,USD\n"
        let assembly = try ReportAssembly(reports: [("r.csv", Array(report.utf8))], configuration: configuration)
        let optimized = BayesianECPM().estimate(assembly.inputs, asOf: try #require(UTCDay(run.daily[0].date)))
        #expect(optimized.map(\.lineItemID) == ["neta_hi", "neta_lo", "netb"])
        for index in 0..<2 {
            #expect(abs(day1.prices[index].learned - optimized[index].newECPM) < 1e-9, "\(day1.prices[index].lineItemID)")
        }
        // Both are learned below netb's 0.80: netb, which pays 0.90, is shown on day 2 (neta_lo
        // kept at 1.00 would have won again at 0.60).
        #expect(day1.prices[1].learned < 0.8)
        #expect(run.daily[1].learners[0].revenuePer1000Requests == 0.9)
    }

    @Test("a drift or a run that cannot be says what is wrong")
    func invalid() async throws {
        #expect(throws: SimulationError.self) { try PriceDrift(parsing: "nitx0.5@5") }
        #expect(throws: SimulationError.self) { try PriceDrift(parsing: "nitx:-1@5") }
        #expect(throws: SimulationError.self) { try PriceDrift(parsing: "nitx:0.5@0") }
        #expect(throws: SimulationError.self) { try PriceDrift(parsing: ":0.5@2") }
        #expect(try PriceDrift(parsing: "nitx:0.5@5") == PriceDrift(network: "nitx", factor: 0.5, fromDay: 5))
        await #expect(throws: SimulationError.self) { _ = try await Self.run([], days: 2) }
        await #expect(throws: SimulationError.self) { _ = try await Self.run(["bayes"], days: 0) }
        await #expect(throws: SimulationError.self) { _ = try await Self.run(["bayes"], days: 2, drifts: [PriceDrift(network: "nope", factor: 2, fromDay: 1)]) }
    }

    @Test("the same inputs give the same run, whatever the jobs")
    func determinism() async throws {
        let configuration = SimulationFixture.configuration(sources: SimulationFixture.scenarioSources)
        func run(_ jobs: Int) async throws -> Data {
            let result = try await Simulation.learn(
                configuration: configuration, market: SimulationFixture.randomMarket, placementID: "level_end",
                learners: ECPMLearners.names.compactMap(ECPMLearners.named),
                learning: LearningOptions(days: 3, drifts: [PriceDrift(network: "neta", factor: 0.5, fromDay: 2)]),
                options: SimulationOptions(auctions: 600, seed: 11, jobs: jobs, shardSize: 150)
            )
            return try SimulationFixture.json(result)
        }
        let one = try await run(1)
        #expect(one == (try await run(2)))
        #expect(one == (try await run(1)))
    }
}

/// Exploration measured on fixed draws: an under-priced line item that never wins at its price.
@Suite("Exploration in simulation")
struct ExplorationSimulationTests {
    /// `top` is configured at 1.00 and pays 1.00 (its `ecpm_sd` 0: it never moves); `hidden` is
    /// configured at 0.80 but pays 1.30. Both always fill: at their prices `hidden` never wins.
    static func configuration(exploring: Bool) -> MediationConfiguration {
        var top = LineItem.fixedPrice("top", eCPM: 1.0)
        top.eCPMSD = 0
        var configuration = SimulationFixture.configuration(sources: [top, .fixedPrice("hidden", eCPM: 0.8)])
        if exploring { configuration.placements[0].exploration = .thompson }
        return configuration
    }

    static let market = Market(networks: [
        SimulationFixture.fixed("top", price: 1.0, latencyMilliseconds: 100),
        SimulationFixture.fixed("hidden", price: 1.3, latencyMilliseconds: 100),
    ])

    @Test("exploring, the hidden line item wins when its draw 0.80 + 0.24·z beats 1.00: P(z > 0.833) = 20.2 %")
    func explores() async throws {
        let options = SimulationOptions(auctions: 4000, seed: 5, shardSize: 1000)
        let off = try await Simulation.run(configuration: Self.configuration(exploring: false), market: Self.market, placementID: "level_end", options: options)
        #expect(off.lineItem("hidden")?.wins == 0)
        let on = try await Simulation.run(configuration: Self.configuration(exploring: true), market: Self.market, placementID: "level_end", options: options)
        let share = Double(on.lineItem("hidden")?.wins ?? 0) / 4000
        // 4000 auctions: the share's standard error is 0.0064; 4 of them either side.
        #expect(abs(share - 0.2023) < 0.026)
        // The same inputs, the same run, whatever the jobs.
        var two = options
        two.jobs = 2
        let again = try await Simulation.run(configuration: Self.configuration(exploring: true), market: Self.market, placementID: "level_end", options: two)
        #expect(try SimulationFixture.json(again) == SimulationFixture.json(on))
    }

    @Test("a configuration that explores: only the exploring learner does; the limit and the others value at their prices")
    func configurationExploringAlready() async throws {
        let run = try await Simulation.learn(
            configuration: Self.configuration(exploring: true), market: Self.market, placementID: "level_end",
            learners: [BayesianLearner()],
            learning: LearningOptions(days: 2),
            options: SimulationOptions(auctions: 1000, seed: 5, shardSize: 500)
        )
        #expect(run.daily.allSatisfy { $0.limitRevenuePer1000Requests == 1.3 })
        #expect(run.daily.allSatisfy { $0.learners[0].revenuePer1000Requests == 1.0 })
    }

    @Test("drifts that take a price beyond the market's maximum, and outages, are refused before any auction")
    func refusedMarkets() async throws {
        let drifts = Array(repeating: PriceDrift(network: "hidden", factor: 1000, fromDay: 1), count: 3)
        await #expect(throws: SimulationError.self) {
            _ = try await Simulation.learn(configuration: Self.configuration(exploring: false), market: Self.market, placementID: "level_end",
                                           learners: [BayesianLearner()], learning: LearningOptions(days: 2, drifts: drifts), options: SimulationOptions(auctions: 10))
        }
        var outage = Self.market
        outage.networks[0].outages = [Outage(start: .seconds(0), end: .seconds(60), kind: .hang)]
        await #expect(throws: SimulationError.self) {
            _ = try await Simulation.learn(configuration: Self.configuration(exploring: false), market: outage, placementID: "level_end",
                                           learners: [BayesianLearner()], learning: LearningOptions(days: 1), options: SimulationOptions(auctions: 10))
        }
    }

    @Test("in the loop, bayes never learns the hidden price; thompson learns it and reaches the limit")
    func pays() async throws {
        let run = try await Simulation.learn(
            configuration: Self.configuration(exploring: false), market: Self.market, placementID: "level_end",
            learners: [BayesianLearner(), ThompsonLearner()],
            learning: LearningOptions(days: 4),
            options: SimulationOptions(auctions: 2000, seed: 5, shardSize: 500)
        )
        // The limit shows hidden at 1.30 in every auction.
        #expect(run.daily.allSatisfy { $0.limitRevenuePer1000Requests == 1.3 })
        // bayes: hidden never wins, so it stays at 0.80 and top keeps every impression.
        #expect(run.daily.allSatisfy { $0.learners[0].revenuePer1000Requests == 1.0 })
        #expect(run.daily.last?.learners[0].prices.first { $0.lineItemID == "hidden" }?.learned == 0.8)
        // thompson: hidden wins some of day 1's auctions, is learned (capped at +50 %: 1.20 > 1.00),
        // and, its interval now honest about day 1's few impressions (a wider ecpm_sd than the
        // old 500-impression prior gave), wins all but a few auctions from day 2 on.
        let hidden = try #require(run.daily[0].learners[1].prices.first { $0.lineItemID == "hidden" })
        #expect(hidden.impressions > 0)
        #expect(abs(hidden.learned - 1.2) < 1e-12)
        #expect(run.daily.dropFirst().allSatisfy { ($0.learners[1].ratioToLimit ?? 0) > 0.97 })
        #expect(try #require(run.difference("thompson", minus: "bayes")).isSignificant)
    }
}

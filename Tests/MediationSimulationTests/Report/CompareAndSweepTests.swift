import Mediation
import MediationSimulation
import Testing

@Suite("Compare and sweep")
struct CompareAndSweepTests {
    /// Identical configurations on the same draws: every difference is exactly 0 with a
    /// zero-width interval, paired and batch means alike.
    @Test func identicalConfigurationsDifferByNothing() async throws {
        let configuration = SimulationFixture.configuration(sources: SimulationFixture.scenarioSources, deadline: .milliseconds(800))
        let comparison = try await Simulation.compare(configuration, configuration, market: SimulationFixture.randomMarket, placementID: "level_end", options: SimulationOptions(auctions: 4000, seed: 17, jobs: 2, shardSize: 1000))
        #expect(comparison.a == comparison.b)
        #expect(comparison.differences.map(\.figure) == ["fill_rate", "revenue_per_1000_requests", "known_revenue_per_1000_requests", "mean_auction_ms", "mean_winning_ecpm", "oracle_ratio", "unbounded_oracle_ratio"])
        for difference in comparison.differences {
            #expect(difference.difference == 0, "\(difference.figure)")
            #expect(difference.interval == ConfidenceInterval(lower: 0, upper: 0), "\(difference.figure)")
            #expect(difference.interval?.width == 0)
            #expect(!difference.isSignificant)
        }
    }

    /// The mis-ordered pair of `ExactFiguresTests`, with NetA's configured eCPM lowered under
    /// NetB's (0.70 < 0.80): B waits for NetB and earns its 1.50 instead of NetA's 1.00, on
    /// every auction, so the paired difference is exactly +0.50 per 1000 requests with a
    /// zero-width interval; the time to ad goes from 50 to 80 ms.
    @Test func aChangeThatPaysIsMeasuredExactly() async throws {
        let market = Market(networks: [
            SimulationFixture.fixed("neta", price: 1.00, latencyMilliseconds: 50),
            SimulationFixture.fixed("netb", price: 1.50, latencyMilliseconds: 80),
        ])
        let a = SimulationFixture.configuration(sources: [.fixedPrice("neta", eCPM: 1.20), .fixedPrice("netb", eCPM: 0.80)])
        let b = SimulationFixture.configuration(sources: [.fixedPrice("neta", eCPM: 0.70), .fixedPrice("netb", eCPM: 0.80)])
        let comparison = try await Simulation.compare(a, b, market: market, placementID: "level_end", options: SimulationOptions(auctions: 100, seed: 1))
        let revenue = try #require(comparison.difference("revenue_per_1000_requests"))
        #expect(revenue.a == 1.0 && revenue.b == 1.5 && revenue.difference == 0.5)
        #expect(revenue.interval == ConfidenceInterval(lower: 0.5, upper: 0.5))
        #expect(revenue.isSignificant)
        let known = try #require(comparison.difference("known_revenue_per_1000_requests"))
        #expect(known.difference == -0.4)
        let time = try #require(comparison.difference("mean_auction_ms"))
        #expect(time.difference == 30)
        let oracle = try #require(comparison.difference("oracle_ratio"))
        #expect(oracle.a == 1.0 / 1.5 && oracle.b == 1 && oracle.method == .batchMeans)
        #expect(comparison.b.oracle.ratio == 1)
    }

    /// A noisy change: the interval is not empty, and contains the difference.
    @Test func aNoisyChangeHasAnInterval() async throws {
        let a = SimulationFixture.configuration(sources: SimulationFixture.scenarioSources, deadline: .milliseconds(1000))
        let b = SimulationFixture.configuration(sources: SimulationFixture.scenarioSources, deadline: .milliseconds(300))
        let comparison = try await Simulation.compare(a, b, market: SimulationFixture.randomMarket, placementID: "level_end", options: SimulationOptions(auctions: 3000, seed: 4))
        for difference in comparison.differences {
            let interval = try #require(difference.interval, "\(difference.figure)")
            let value = try #require(difference.difference)
            #expect(interval.contains(value))
            #expect(interval.width > 0, "\(difference.figure)")
        }
        // A shorter deadline ends auctions sooner and cannot find more in time.
        #expect(try #require(comparison.difference("mean_auction_ms")?.difference) < 0)
        #expect(comparison.b.oracle.revenueUSD <= comparison.a.oracle.revenueUSD)
    }

    /// ecpm[neta]=0.5:1.5:0.5 over the mis-ordered pair: at 0.50 NetA no longer beats NetB's
    /// 0.80, the engine waits for NetB and earns its 1.50; at 1.00 and 1.50 NetA wins with 1.00.
    /// The best value is 0.50, +0.50 over the baseline (1.20) and over the runner-up (1.00, the
    /// first of the two equals), exactly.
    @Test func eCPMSweepFindsTheBestValue() async throws {
        let market = Market(networks: [
            SimulationFixture.fixed("neta", price: 1.00, latencyMilliseconds: 50),
            SimulationFixture.fixed("netb", price: 1.50, latencyMilliseconds: 80),
        ])
        let configuration = SimulationFixture.configuration(sources: [.fixedPrice("neta", eCPM: 1.20), .fixedPrice("netb", eCPM: 0.80)])
        let sweep = try SweepSpecification(parsing: "ecpm[neta]=0.5:1.5:0.5")
        #expect(sweep.values == [0.5, 1.0, 1.5])
        let result = try await Simulation.sweep(sweep, configuration: configuration, market: market, placementID: "level_end", options: SimulationOptions(auctions: 100, seed: 8))
        #expect(result.parameter == "ecpm[neta]")
        #expect(result.points.map(\.value) == [0.5, 1.0, 1.5])
        #expect(result.points.map(\.report.revenuePer1000Requests) == [1.5, 1.0, 1.0])
        #expect(result.baseline.revenuePer1000Requests == 1.0)
        #expect(result.bestIndex == 0 && result.best.value == 0.5)
        let overBaseline = try #require(result.bestVersusBaseline.first { $0.figure == "revenue_per_1000_requests" })
        #expect(overBaseline.difference == 0.5 && overBaseline.interval == ConfidenceInterval(lower: 0.5, upper: 0.5))
        let overRunnerUp = try #require(result.bestVersusRunnerUp.first { $0.figure == "revenue_per_1000_requests" })
        #expect(overRunnerUp.a == 1.0 && overRunnerUp.difference == 0.5)
    }

    /// floor= and deadline_ms= sweeps apply to the placement.
    @Test func floorAndDeadlineSweeps() async throws {
        let market = Market(networks: [
            SimulationFixture.fixed("bid", price: 2.00, latencyMilliseconds: 400),
            SimulationFixture.fixed("neta", price: 1.00, latencyMilliseconds: 50),
            SimulationFixture.fixed("netb", price: 0.90, latencyMilliseconds: 80),
        ])
        let configuration = SimulationFixture.configuration(sources: SimulationFixture.scenarioSources)
        // Deadline 300: the bid (at 400 ms) is cut, NetA wins with 1.00; from 401 it is in time.
        let deadlines = try await Simulation.sweep(try SweepSpecification(parsing: "deadline_ms=300,401"), configuration: configuration, market: market, placementID: "level_end", options: SimulationOptions(auctions: 50, seed: 1))
        #expect(deadlines.points.map(\.report.revenuePer1000Requests) == [1.0, 2.0])
        #expect(deadlines.points.map(\.report.timeToAd.p50) == [300, 400])
        #expect(deadlines.best.value == 401)
        // Floor 1.50: NetA (1.20) and NetB (0.80) are under it and never asked; the bid wins.
        // Floor 2.50: the bid is rejected too: no fill.
        #expect(try SweepSpecification(parsing: "floor=0,1.5,2.5") == SweepSpecification(parameter: .floor, values: [0, 1.5, 2.5]))
        let floors = try await Simulation.sweep(parameter: .floor, values: [0, 1.5, 2.5], configuration: configuration, market: market, placementID: "level_end", options: SimulationOptions(auctions: 50, seed: 1))
        #expect(floors.points.map(\.report.revenuePer1000Requests) == [2.0, 2.0, 0])
        #expect(floors.points[1].report.lineItem("neta")?.notAsked == 50)
        #expect(floors.points[2].report.fillRate == 0)
        #expect(floors.bestIndex == 0)
    }

    @Test(arguments: [
        ("floor", "expected PARAMETER=VALUES"),
        ("ceiling=1", "unknown parameter"),
        ("floor=1:0:0.1", "TO must not be less than FROM"),
        ("floor=0:1:0", "the step must be positive"),
        ("floor=0:1:-0.5", "the step must be positive"),
        // A positive step that rounds to 0 millionths is too small, not "not positive".
        ("floor=0:1000000000:0.000000001", "the step must be at least 0.000001 (sweep values are exact to the millionth)"),
        ("floor=1:2:0.0000004", "the step must be at least 0.000001"),
        ("floor=0:1000:0.001", "at most 1000 values"),
        ("ecpm[]=1", "unknown parameter"),
        ("deadline_ms=a,b", "is not a number"),
        // A number out of the readable range says so, not that it is no number.
        ("floor=1e308", "\"1e308\" is not a number from -1000000000000 to 1000000000000"),
        // Plain decimals only, as every number on the command line.
        ("floor=0x10", "\"0x10\" is not a number"),
        ("floor=1e2", "\"1e2\" is not a number"),
        ("floor=0:1e13:1", "FROM:TO:STEP must be three numbers from -1000000000000 to 1000000000000"),
    ])
    func malformedSweepsAreRejected(text: String, message: String) {
        let error = #expect(throws: SimulationError.self) {
            _ = try SweepSpecification(parsing: text)
        }
        #expect(error?.code == .invalidSweep)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test("an eCPM that rounds to 0 millionths is refused with the range, not as 'not a positive number'")
    func tinyECPMSweepSaysTheRange() async throws {
        let configuration = SimulationFixture.configuration(sources: SimulationFixture.scenarioSources)
        let error = await #expect(throws: SimulationError.self) {
            _ = try await Simulation.sweep(try SweepSpecification(parsing: "ecpm[neta]=0.0000000001,1"), configuration: configuration, market: SimulationFixture.randomMarket, placementID: "level_end", options: SimulationOptions(auctions: 10))
        }
        #expect(error?.message.contains("an eCPM must be from 0.000001 to 1000000 USD CPM (sweep values are rounded to millionths)") == true, "\(error?.message ?? "")")
    }

    @Test func sweepValuesThatDoNotApplyAreRejected() async throws {
        let configuration = SimulationFixture.configuration(sources: SimulationFixture.scenarioSources)
        for text in ["ecpm[bid]=1", "ecpm[nope]=1", "deadline_ms=3001", "deadline_ms=10.5", "floor=-1"] {
            await #expect(throws: SimulationError.self, "\(text)") {
                _ = try await Simulation.sweep(try SweepSpecification(parsing: text), configuration: configuration, market: SimulationFixture.randomMarket, placementID: "level_end", options: SimulationOptions(auctions: 10))
            }
        }
    }
}

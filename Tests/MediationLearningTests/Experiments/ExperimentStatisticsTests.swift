import Foundation
import Testing
@testable import MediationLearning

/// The experiment report's statistics on fixed data. Every expected value was computed apart
/// from this code, in Python 3.11 with numpy 1.26 and scipy 1.17 (`numpy.var(ddof=1)`,
/// `scipy.stats.norm.ppf`, `scipy.stats.chisquare`, `scipy.stats.chi2.sf`,
/// `numpy.percentile(method="inverted_cdf")`), the confidence sequence by its formula in
/// `docs/experiments.md` typed in again there.
@Suite("Experiment statistics")
struct ExperimentStatisticsTests {
    static let control = [0, 0.5, 1.0, 2.0, 0, 3.0, 0.25, 10.0]
    static let treatment = [0, 0.75, 1.5, 2.5, 0.1, 3.0, 0.5, 12.0, 1.0]

    static func moments(_ values: [Double]) -> ExperimentStatistics.Moments {
        var moments = ExperimentStatistics.Moments()
        for value in values { moments.add(value) }
        return moments
    }

    @Test("the relative difference, its delta-method error, the read-once and always-valid intervals")
    func difference() throws {
        let difference = try #require(ExperimentStatistics.difference(control: Self.moments(Self.control), treatment: Self.moments(Self.treatment)))
        #expect(abs(difference.relative - 0.1330016583747926) < 1e-12)
        #expect(abs(difference.standardError - 0.8782624754499) < 1e-12)
        #expect(abs(difference.naive.lowerBound - -1.5883611624800047) < 1e-9)
        #expect(abs(difference.naive.upperBound - 1.85436447922959) < 1e-9)
        // scipy: half-width 58.573736377554454 at N = 17 users, tuned for 100,000.
        #expect(abs(difference.sequential.upperBound - difference.relative - 58.573736377554454) < 1e-9)
        #expect(abs(difference.relative - difference.sequential.lowerBound - 58.573736377554454) < 1e-9)
    }

    @Test("the confidence sequence at 1,000,000 users for a unit deviation of 1 is 0.0032417 wide each side")
    func confidenceSequence() {
        let half = ExperimentStatistics.confidenceSequenceHalfWidth(standardError: 1 / 1_000_000.0.squareRoot(), users: 1_000_000)
        #expect(abs(half - 0.0032417231454054374) < 1e-15)
        // Wider than the read-once interval (1.96 / 1000), as an interval valid at every read must be.
        #expect(half > 1.959964 / 1000)
    }

    @Test("the split check: chi-square and its p-value for 2 and 3 variants")
    func sampleRatio() {
        let two = ExperimentStatistics.sampleRatio(observed: [50_412, 49_102], weights: [5000, 5000])
        #expect(abs(two.chiSquare - 17.244809775508973) < 1e-9)
        #expect(abs(two.p - 3.2859396312454355e-05) < 1e-12)
        let three = ExperimentStatistics.sampleRatio(observed: [3300, 3400, 3300], weights: [2500, 5000, 2500])
        #expect(abs(three.chiSquare - 1024) < 1e-9)
        #expect(abs(three.p / 4.377491037053125e-223 - 1) < 1e-9)
        #expect(abs(ExperimentStatistics.chiSquareSurvival(3.5, degreesOfFreedom: 4) - 0.477878344488724) < 1e-13)
        #expect(abs(ExperimentStatistics.chiSquareSurvival(30, degreesOfFreedom: 2) - 3.0590232050182594e-07) < 1e-19)
    }

    @Test("the normal quantile to 1e-12")
    func quantile() {
        #expect(abs(ExperimentStatistics.normalQuantile(0.975) - 1.959963984540054) < 1e-12)
        #expect(abs(ExperimentStatistics.normalQuantile(0.8) - 0.8416212335729143) < 1e-12)
        #expect(abs(ExperimentStatistics.normalQuantile(1e-5) - -4.264890793922825) < 1e-12)
    }

    @Test("the winsorizing cap is the nearest-rank 99.9th percentile")
    func cap() {
        // 1,500 values 1…1500 shuffled: rank ceil(1500 · 0.999) = 1499 (numpy inverted_cdf: 1499).
        var generator = SystemRandomNumberGenerator()
        let values = (1...1500).map(Double.init).shuffled(using: &generator)
        #expect(ExperimentStatistics.nearestRank(values, permille: 999) == 1499)
        // 2,000 values: rank 1998 exactly (numpy's floating 0.999 · 2000 rounds up to 1999).
        #expect(ExperimentStatistics.nearestRank((1...2000).map(Double.init), permille: 999) == 1998)
        #expect(ExperimentStatistics.nearestRank([7], permille: 999) == 7)
        #expect(ExperimentStatistics.nearestRank([], permille: 999) == nil)
    }

    @Test("users needed: the least N whose always-valid interval plus 0.84 errors is within the effect")
    func usersNeeded() throws {
        // Python: bisection over the same inequality gives 648,592 for a 2 % effect at unit
        // deviation 4 (and 9,153 for 20 %).
        let needed = try #require(ExperimentStatistics.usersNeeded(effect: 0.02, unitDeviation: 4))
        #expect(needed == 648_592)
        #expect(ExperimentStatistics.usersNeeded(effect: 0.2, unitDeviation: 4) == 9_153)
    }
}

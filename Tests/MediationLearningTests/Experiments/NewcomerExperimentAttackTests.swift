import Foundation
import Testing
@testable import MediationLearning

/// A newcomer's attacks on the experiment report's figures (`docs/experiments.md`, "The
/// statistics").
@Suite("newcomer attacks: experiment report statistics")
struct NewcomerExperimentAttackTests {
    static let design = ExperimentDesign(id: "x", variants: [.init(id: "A", weightBP: 5000), .init(id: "B", weightBP: 5000)])

    /// Units 1…n in variant `variant` with the given revenues.
    static func users(_ revenues: [Double], variant: UInt16, from first: UInt64) -> [UInt64: ExperimentUsers.User] {
        var users: [UInt64: ExperimentUsers.User] = [:]
        for (offset, revenue) in revenues.enumerated() {
            users[first + UInt64(offset)] = ExperimentUsers.User(variant: variant, requests: 3, impressions: revenue > 0 ? 1 : 0, revenue: revenue)
        }
        return users
    }

    @Test("an early read where no user of B has earned yet is not a verdict: 10 users a variant, 2 of A with revenue, none of B")
    func treatmentWithoutRevenueYet() {
        // An A/A experiment on its first morning: revenue is sparse, so one variant often has no
        // user with revenue yet. The delta method's error is then 0 (B's variance is 0 and its
        // mean 0 removes control's term): a zero-width "always-valid" interval at 20 users.
        let control = Self.users([0, 0, 0, 0, 0, 0, 0, 0, 0.012, 0.030], variant: 0, from: 1)
        let treatment = Self.users(Array(repeating: 0, count: 10), variant: 1, from: 100)
        let report = ExperimentReport(design: Self.design, users: control.merging(treatment) { a, _ in a }, asOf: nil)
        let comparison = report.comparisons.first
        #expect(comparison?.verdict.hasPrefix("B earns") == false, "verdict: \(comparison?.verdict ?? "none")")
        if let interval = comparison?.difference?.sequential {
            // Whatever it says, 20 users cannot pin the difference to a point.
            #expect(interval.upperBound - interval.lowerBound > 0.5, "interval \(interval)")
        }
    }
}

/// The two rules that answer it: a group without spread gets the pooled variance, and no
/// verdict comes before 150 users a variant.
@Suite("experiment report: no verdict from a group without spread or a handful of users")
struct ExperimentEarlyReadTests {
    @Test("a group whose values are all 0 is given both groups' pooled variance: exact standard error")
    func pooledVarianceForAGroupWithoutSpread() throws {
        var control = ExperimentStatistics.Moments(), treatment = ExperimentStatistics.Moments()
        for value in [0.0, 0.0, 1.0, 3.0] { control.add(value) }
        for _ in 0..<4 { treatment.add(0) }
        let difference = try #require(ExperimentStatistics.difference(control: control, treatment: treatment))
        // Pooled: 8 values, sum 4, sum of squares 10: (10 − 16/8) / 7 = 8/7. Control's mean 1,
        // treatment's 0: the error is √((8/7) / 4).
        #expect(difference.relative == -1)
        #expect(abs(difference.standardError - (8.0 / 7.0 / 4.0).squareRoot()) < 1e-12)
    }

    @Test("a variant earning nothing at 3,000 users a variant is named, with an interval of some width")
    func aBrokenVariantIsStillFound() throws {
        let control = NewcomerExperimentAttackTests.users((0..<3000).map { $0 % 4 == 0 ? 0.02 : 0 }, variant: 0, from: 1)
        let treatment = NewcomerExperimentAttackTests.users(Array(repeating: 0, count: 3000), variant: 1, from: 10_000)
        let report = ExperimentReport(design: NewcomerExperimentAttackTests.design, users: control.merging(treatment) { a, _ in a }, asOf: nil)
        let comparison = try #require(report.comparisons.first)
        #expect(comparison.verdict.hasPrefix("B earns −100.0 % per user"), "\(comparison.verdict)")
        let interval = try #require(comparison.difference?.sequential)
        #expect(interval.upperBound - interval.lowerBound > 0.01)
    }

    @Test("below 150 users in a variant the figures are printed and the verdict waits")
    func minimumSample() throws {
        let control = NewcomerExperimentAttackTests.users((0..<149).map { $0 % 2 == 0 ? 1.0 : 0.9 }, variant: 0, from: 1)
        let treatment = NewcomerExperimentAttackTests.users((0..<151).map { $0 % 2 == 0 ? 2.0 : 1.9 }, variant: 1, from: 1000)
        let report = ExperimentReport(design: NewcomerExperimentAttackTests.design, users: control.merging(treatment) { a, _ in a }, asOf: nil)
        let comparison = try #require(report.comparisons.first)
        #expect(comparison.verdict.hasPrefix("not enough data: fewer than 150 users in a variant (149 so far); so far B +"), "\(comparison.verdict)")
    }
}

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
        let comparison = try? #require(report.comparisons.first)
        #expect(comparison?.verdict.hasPrefix("B earns") == false, "verdict: \(comparison?.verdict ?? "none")")
        if let interval = comparison?.difference?.sequential {
            // Whatever it says, 20 users cannot pin the difference to a point.
            #expect(interval.upperBound - interval.lowerBound > 0.5, "interval \(interval)")
        }
    }
}

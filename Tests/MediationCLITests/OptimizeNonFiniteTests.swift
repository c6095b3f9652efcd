import Foundation
import MediationLearning
import Testing
@testable import MediationCLI

/// `mediate optimize` never prints nor writes a figure that is not finite: an estimate with one
/// is an error naming its line item and field, before the table, `--json` or `--write`.
@Suite("mediate optimize: no figure that is not finite")
struct OptimizeNonFiniteTests {
    @Test("an estimate with a figure that is not finite (the line item's or a country's) is named by its line item and --json field")
    func nonFiniteFigureIsNamed() throws {
        let day = try #require(UTCDay("2026-03-10"))
        let input = BayesianECPM.Input(placementID: "home", lineItemID: "home_nitx", network: "nitx", configuredECPM: 1, observations: [
            BayesianECPM.Observation(day: day, impressions: 1000, revenueUSD: 1.2, country: "US"),
            BayesianECPM.Observation(day: day, impressions: 1000, revenueUSD: 0.8, country: "IN"),
        ])
        let estimate = try #require(BayesianECPM().estimate([input], asOf: day).first)
        try #require(estimate.countries.count == 2)
        #expect(OptimizeCommand.nonFiniteFigure(in: [estimate]) == nil)
        let fields: [(WritableKeyPath<BayesianECPM.Estimate, Double>, String)] = [
            (\.configuredECPM, "configured_ecpm"), (\.pooledECPM, "pooled_ecpm"), (\.mean, "learned_ecpm"), (\.standardDeviation, "ecpm_sd"),
            (\.lower, "interval_90[0]"), (\.upper, "interval_90[1]"), (\.effectiveImpressions, "effective_impressions"), (\.newECPM, "new_ecpm"),
            (\.countries[1].mean, "countries[1] (\(estimate.countries[1].country)).learned_ecpm"), (\.countries[0].standardDeviation, "countries[0] (\(estimate.countries[0].country)).ecpm_sd"),
            (\.countries[1].lower, "countries[1] (\(estimate.countries[1].country)).interval_90[0]"), (\.countries[1].upper, "countries[1] (\(estimate.countries[1].country)).interval_90[1]"),
            (\.countries[0].shrinkage, "countries[0] (\(estimate.countries[0].country)).shrinkage"), (\.countries[0].effectiveImpressions, "countries[0] (\(estimate.countries[0].country)).effective_impressions"),
        ]
        for (field, name) in fields {
            for value in [Double.nan, .infinity] {
                var broken = estimate
                broken[keyPath: field] = value
                #expect(OptimizeCommand.nonFiniteFigure(in: [estimate, broken]) == "line item \"home_nitx\" of placement \"home\": \(name) is \(value), not a finite number")
            }
        }
    }
}

@testable import MediationCLI
@testable import MediationSimulation
import Testing

/// The simulation's health events lines (R24): a line item paused on its own is named.
@Suite("mediate simulate: health events")
struct SimulationHealthTextTests {
    @Test("a network's pause prints as before; a line item's names it after its network, and its JSON figure carries line_item")
    func lineItemEvents() throws {
        var totals = RunTotals(sourceCount: 0, batchCount: 1)
        for event in [
            HealthEventRecord(network: "nitx", lineItem: nil, paused: true, cause: "failures", atMilliseconds: 603_200, retryAtMilliseconds: 629_637, failures: 7, outcomes: 10, shard: 0),
            HealthEventRecord(network: "nitx", lineItem: "level_end_nitx", paused: true, cause: "failures", atMilliseconds: 700_000, retryAtMilliseconds: 727_000, failures: 7, outcomes: 7, shard: 0),
            HealthEventRecord(network: "nitx", lineItem: "level_end_nitx", paused: false, cause: "", atMilliseconds: 730_000, retryAtMilliseconds: 0, failures: 0, outcomes: 0, shard: 0),
        ] {
            totals.add(event)
        }
        var report = SimulationReport(placementID: "level_end", seed: 1, totals: totals, models: [])
        report.rate = 10
        let lines = SimulationText.healthEvents(report)
        #expect(lines.contains("  10:03.200  nitx paused (failures, 7 failures of 10), retry at 10:29.637"), "\(lines)")
        #expect(lines.contains("  11:40.000  nitx line item level_end_nitx paused (failures, 7 failures of 7), retry at 12:07.000"), "\(lines)")
        #expect(lines.contains("  12:10.000  nitx line item level_end_nitx resumed"), "\(lines)")
        #expect(report.health.events.map(\.lineItem) == [nil, "level_end_nitx", "level_end_nitx"])
    }
}

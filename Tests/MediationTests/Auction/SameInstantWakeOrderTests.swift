import Foundation
import MediationTestKit
import Testing
@testable import Mediation

/// Auctions whose deadlines fall at the same instant end in the order they started: the shared
/// timer wakes them in the order they were scheduled, not in a dictionary's order (which
/// differs between processes, so network health, which counts their verdicts in that order,
/// gave different figures from one run of a simulation to the next).
@Suite("Same-instant wake-ups")
struct SameInstantWakeOrderTests {
    @Test func auctionsDueAtOneInstantEndInTheOrderTheyStarted() async throws {
        let clock = ManualClock()
        let silent = ScriptedAdapter(network: "silent", pricing: .fixedPrice, clock: clock, script: [.never])
        var networks = PrebuiltNetworks()
        networks.add("silent", pricing: .fixedPrice, adapter: silent, health: .disabled)
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, deadline: .milliseconds(500), sources: [.fixedPrice("silent_1", network: "silent", eCPM: 1)])
        let engine = try MediationEngine(configuration: networks.configuration(placements: [placement]), registry: networks.registry, environment: MediationEnvironment(clock: clock))
        let ended = Locked<[Int]>([])
        let count = 64
        for index in 0..<count {
            clock.startTask {
                _ = await engine.runAuction(placementID: "p")
                ended.withLock { $0.append(index) }
            }
        }
        await clock.runUntilIdle()
        await clock.advance(by: .seconds(1))
        await clock.runUntilIdle()
        #expect(ended.withLock { $0 } == Array(0..<count))
    }
}

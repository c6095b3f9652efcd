import Foundation
@testable import Mediation
import MediationTestKit
import Testing

/// Engine rules R22 and R18: a one-shot auction's winner holds the configuration its auction ran
/// under for as long as the caller holds it, so a swap that removes (or changes) the winner's
/// network shuts its adapter down only once the caller has dropped the winner; exactly once,
/// shutdown included.
@Suite("One-shot winner holds its configuration")
struct OneShotWinnerHoldTests {
    /// Version 1: `neta` alone, answering `result`.
    private static func v1(result: String = "fill") -> MediationConfiguration {
        MediationConfiguration(networks: [SwapHarness.network("neta", result: result)], placements: [levelEnd(["neta"])], version: 1)
    }

    /// Version 2: `netb` alone (`neta` removed).
    private static let withoutNeta = MediationConfiguration(networks: [SwapHarness.network("netb")], placements: [levelEnd(["netb"])], version: 2)

    private static func levelEnd(_ networks: [String]) -> MediationConfiguration.Placement {
        MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: networks.map { LineItem.fixedPrice("\($0)_le", network: $0, eCPM: 1.0) })
    }

    /// Runs one one-shot auction of `level_end` to its end (the task, which keeps its result,
    /// is gone when this returns).
    private static func oneShot(on engine: MediationEngine, clock: ManualClock) async throws -> MediationEngine.AuctionOutcome {
        let task = clock.startTask { await engine.runAuction(placementID: "level_end") }
        await clock.advance(to: clock.now + .seconds(1))
        return try #require(await task.value)
    }

    /// How many times `adapter` was shut down.
    private static func shutdowns(_ adapter: ScriptedAdapter) -> Int {
        adapter.lifeCycleCalls.filter { $0 == .shutdown }.count
    }

    @Test("a removed network's adapter is shut down once, after the caller drops the winner (every copy of it), not before")
    func shutDownAfterTheWinnerIsDropped() async throws {
        let harness = try SwapHarness(Self.v1())
        try await harness.clock.perform {
            let neta = try #require(harness.adapters(of: "neta").first)
            do {
                let copy: MediationEngine.AuctionOutcome.Winner
                do {
                    let outcome = try await Self.oneShot(on: harness.engine, clock: harness.clock)
                    let winner = try #require(outcome.winner)
                    copy = winner
                    try await harness.apply(Self.withoutNeta, version: 2)
                    await harness.clock.runUntilIdle()
                    #expect(Self.shutdowns(neta) == 0, "shut down under the caller's unshown ad")
                    // The host casts the ad to its network's type to show it.
                    try #require(winner.ad as? ScriptedAd).recordImpression()
                }
                await harness.clock.runUntilIdle()
                #expect(Self.shutdowns(neta) == 0, "a copy of the winner still holds it")
                #expect(copy.lineItem.id == "neta_le")
            }
            await harness.clock.runUntilIdle()
            #expect(Self.shutdowns(neta) == 1)
            await harness.shutdown()
            #expect(Self.shutdowns(neta) == 1)
            #expect(Self.shutdowns(try #require(harness.adapters(of: "netb").first)) == 1)
            let counts = harness.expectEveryAdOnce()
            #expect(counts.shown == 1 && counts.released == 0)
        }
    }

    @Test("a one-shot auction without a winner ends its use at once: the swap shuts the removed network down while the caller still holds the outcome")
    func noFillHoldsNothing() async throws {
        let harness = try SwapHarness(Self.v1(result: "no_fill"))
        try await harness.clock.perform {
            let neta = try #require(harness.adapters(of: "neta").first)
            let outcome = try await Self.oneShot(on: harness.engine, clock: harness.clock)
            #expect(outcome.winner == nil)
            try await harness.apply(Self.withoutNeta, version: 2)
            await harness.clock.runUntilIdle()
            #expect(Self.shutdowns(neta) == 1)
            withExtendedLifetime(outcome) {}
            await harness.shutdown()
            #expect(Self.shutdowns(neta) == 1)
        }
    }

    @Test("winners held past shutdown: their adapters are shut down once, by shutdown; dropping them later (the removed network's last user while the engine lives, another after it is gone) does nothing more")
    func winnersOutliveShutdownAndTheEngine() async throws {
        let clock = ManualClock()
        let factory = SwapFactory(kind: "swap.fixed", pricing: .fixedPrice, clock: clock)
        try await clock.perform {
            weak var gone: MediationEngine?
            var last: MediationEngine.AuctionOutcome.Winner?
            do {
                let engine = try MediationEngine(configuration: Self.v1(), registry: NetworkRegistry([factory]), environment: MediationEnvironment(clock: clock))
                gone = engine
                var first = try await Self.oneShot(on: engine, clock: clock).winner // neta's, under v1
                try await SwapHarness.apply(Self.withoutNeta, version: 2, to: engine, clock: clock)
                #expect(factory.adapters.map(Self.shutdowns) == [0, 0])
                last = try await Self.oneShot(on: engine, clock: clock).winner // netb's, under v2
                #expect(last?.lineItem.id == "netb_le")
                let shutdown = clock.startTask { await engine.shutdown() }
                await clock.runUntilIdle()
                await shutdown.value
                #expect(factory.adapters.map(Self.shutdowns) == [1, 1])
                first?.ad.releaseResources()
                first = nil
                await clock.runUntilIdle()
                #expect(factory.adapters.map(Self.shutdowns) == [1, 1], "dropped after shutdown")
            }
            await clock.runUntilIdle()
            #expect(gone == nil, "a winner's hold keeps the engine alive")
            last?.ad.releaseResources()
            last = nil
            await clock.runUntilIdle()
            #expect(factory.adapters.map(Self.shutdowns) == [1, 1], "dropped after the engine is gone")
            #expect(factory.adapters.flatMap(\.ads).map(\.releaseCount) == [1, 1])
        }
    }

    @Test("a swap that keeps the winner's network does not shut its adapter down, held winner or dropped; shutdown does, once")
    func keptNetworkIsNotShutDown() async throws {
        let harness = try SwapHarness(Self.v1())
        let withNetb = MediationConfiguration(networks: [SwapHarness.network("neta"), SwapHarness.network("netb")], placements: [Self.levelEnd(["neta", "netb"])], version: 2)
        try await harness.clock.perform {
            let neta = try #require(harness.adapters(of: "neta").first)
            do {
                let outcome = try await Self.oneShot(on: harness.engine, clock: harness.clock)
                try await harness.apply(withNetb, version: 2)
                await harness.clock.runUntilIdle()
                outcome.winner?.ad.releaseResources()
            }
            await harness.clock.runUntilIdle()
            #expect(harness.adapters(of: "neta").count == 1)
            #expect(neta.lifeCycleCalls.isEmpty)
            await harness.shutdown()
            #expect(Self.shutdowns(neta) == 1)
            harness.expectEveryAdOnce()
        }
    }

    @Test("winners held across three swaps that each change their network, dropped in any order (one by one, or all at once from other tasks): each adapter is shut down once, only when its last winner is dropped", arguments: [[0, 1, 2], [2, 1, 0], [1, 2, 0], [1, 0, 2]], [false, true])
    func manyWinnersAcrossSwaps(order: [Int], concurrently: Bool) async throws {
        let harness = try SwapHarness(Self.v1())
        try await harness.clock.perform {
            var winners: [MediationEngine.AuctionOutcome.Winner?] = []
            // neta under v1, v2 and v3 (each changes it: a new adapter), then v4 removes it.
            for version in 1...3 {
                if version > 1 {
                    let changed = MediationConfiguration(networks: [SwapHarness.network("neta", delayMS: 100 + version)], placements: [Self.levelEnd(["neta"])], version: version)
                    try await harness.apply(changed, version: version)
                }
                winners.append(try await Self.oneShot(on: harness.engine, clock: harness.clock).winner)
            }
            try await harness.apply(Self.withoutNeta, version: 4)
            await harness.clock.runUntilIdle()
            let adapters = harness.adapters(of: "neta")
            #expect(adapters.count == 3)
            #expect(adapters.map(Self.shutdowns) == [0, 0, 0])
            if concurrently {
                var taken: [MediationEngine.AuctionOutcome.Winner] = []
                for index in order { if let winner = winners[index] { taken.append(winner) } }
                winners = []
                await withTaskGroup(of: Void.self) { group in
                    for winner in taken {
                        group.addTask { winner.ad.releaseResources() }
                    }
                    taken = []
                }
                await harness.clock.runUntilIdle()
            } else {
                for (dropped, index) in order.enumerated() {
                    winners[index]?.ad.releaseResources()
                    winners[index] = nil
                    await harness.clock.runUntilIdle()
                    let expected = adapters.indices.map { order[...dropped].contains($0) ? 1 : 0 }
                    #expect(adapters.map(Self.shutdowns) == expected, "after dropping \(order[...dropped])")
                }
            }
            #expect(adapters.map(Self.shutdowns) == [1, 1, 1])
            await harness.shutdown()
            #expect(adapters.map(Self.shutdowns) == [1, 1, 1])
            #expect(Self.shutdowns(try #require(harness.adapters(of: "netb").first)) == 1)
            let counts = harness.expectEveryAdOnce()
            #expect(counts.released == 3)
        }
    }
}

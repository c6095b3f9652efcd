import Foundation
@testable import Mediation
import MediationTestKit
import Testing

/// Engine rule R22: a configuration is applied whole, between auctions. An auction that started
/// finishes under its configuration; each placement's next auction uses the new one; a
/// placement's current ad stays until its normal refresh or expiry; a removed placement's ads
/// are released once and its views told; networks added, removed and changed get their
/// adapters built and shut down once nothing uses them. Every ad is shown or released once.
@Suite("Configuration swap")
struct ConfigurationSwapTests {
    private static func levelEnd(_ sources: [LineItem], mode: MediationConfiguration.Placement.AuctionMode = .parallel) -> MediationConfiguration.Placement {
        MediationConfiguration.Placement(id: "level_end", format: .interstitial, mode: mode, sources: sources)
    }

    private static func banner(refreshSeconds: Int, sources: [LineItem]) -> MediationConfiguration.Placement {
        MediationConfiguration.Placement(id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxWidth: 390, maxHeight: 90), refreshSeconds: refreshSeconds, sources: sources)
    }

    @Test("a one-shot auction running during a swap finishes under its configuration; the next runs the new one")
    func runningOneShotAuction() async throws {
        let v1 = MediationConfiguration(networks: [SwapHarness.network("neta")], placements: [Self.levelEnd([.fixedPrice("neta_le", network: "neta", eCPM: 1.2)])], version: 1)
        let v2 = MediationConfiguration(
            networks: [SwapHarness.network("neta"), SwapHarness.network("netb", delayMS: 10)],
            placements: [Self.levelEnd([.fixedPrice("neta_le", network: "neta", eCPM: 2.0), .fixedPrice("netb_le", network: "netb", eCPM: 3.0)])],
            version: 2
        )
        let harness = try SwapHarness(v1)
        let engine = harness.engine
        try await harness.clock.perform {
            let first = harness.clock.startTask { await engine.runAuction(placementID: "level_end") }
            await harness.clock.advance(to: at(0.05))
            try await harness.apply(v2, version: 2)
            #expect(engine.configurationVersion == 2)
            await harness.clock.advance(to: at(1))
            let outcome = try #require(await first.value)
            #expect(outcome.trace.configVersion == 1)
            #expect(outcome.trace.sources.map(\.lineItemID) == ["neta_le"])
            #expect(outcome.winner?.eCPM == 1.2)
            outcome.winner?.ad.releaseResources()

            let second = harness.clock.startTask { await engine.runAuction(placementID: "level_end") }
            await harness.clock.advance(to: at(2))
            let next = try #require(await second.value)
            #expect(next.trace.configVersion == 2)
            #expect(next.winner?.lineItem.id == "netb_le" && next.winner?.eCPM == 3.0)
            next.winner?.ad.releaseResources()
            #expect(harness.auctionVersions == [1, 2])
            // neta's configuration did not change: its one adapter stays, and is not shut down.
            #expect(harness.adapters(of: "neta").count == 1)
            #expect(harness.adapters(of: "neta")[0].lifeCycleCalls.isEmpty)
            await harness.shutdown()
            harness.expectEveryAdOnce()
        }
    }

    @Test("a swap during a waterfall: the tiers go on under the old configuration; a removed network's and a changed network's old adapters are shut down once, after their last use")
    func swapDuringAWaterfall() async throws {
        let v1 = MediationConfiguration(
            networks: [SwapHarness.network("netp", result: "no_fill"), SwapHarness.network("neta"), SwapHarness.network("netb", delayMS: 50)],
            placements: [Self.levelEnd([.fixedPrice("premium", network: "netp", eCPM: 3.0), .fixedPrice("neta_le", network: "neta", eCPM: 1.2), .fixedPrice("netb_le", network: "netb", eCPM: 0.8)], mode: .waterfall)],
            version: 1
        )
        // v2 removes netp and changes neta (a new adapter answers after 30 ms); netb is kept.
        let v2 = MediationConfiguration(
            networks: [SwapHarness.network("neta", delayMS: 30), SwapHarness.network("netb", delayMS: 50)],
            placements: [Self.levelEnd([.fixedPrice("neta_le", network: "neta", eCPM: 1.5), .fixedPrice("netb_le", network: "netb", eCPM: 0.8)], mode: .waterfall)],
            version: 2
        )
        let harness = try SwapHarness(v1)
        try await harness.clock.perform {
            let placement = try #require(harness.engine.placement("level_end"))
            let load = harness.clock.startTask { await placement.load() }
            await harness.clock.advance(to: at(0.05)) // tier 1 (netp) outstanding
            try await harness.apply(v2, version: 2)
            await harness.clock.advance(to: at(1))
            let first = try #require(await load.value.ad)
            // Tier 1 answered no fill at 100 ms; tier 2 (the old neta adapter) was asked then.
            #expect(first.lineItem.id == "neta_le" && first.eCPM == 1.2)
            let trace = try #require(harness.recorder.traces.first)
            #expect(trace.configVersion == 1)
            #expect(trace.sources.map(\.lineItemID) == ["premium", "neta_le", "netb_le"])
            let oldNetA = harness.adapters(of: "neta")[0], newNetA = harness.adapters(of: "neta")[1]
            let netp = harness.adapters(of: "netp")[0]
            #expect(oldNetA.requestCount == 1 && newNetA.requestCount == 0)
            // The old neta's ad is current: its adapter and the old configuration's are alive.
            #expect(oldNetA.lifeCycleCalls.isEmpty && netp.lifeCycleCalls.isEmpty)

            #expect(await placement.reportShown(first.ad) == .impression(MediationEvent.Impression(ad: try #require(harness.recorder.impressions.first?.ad))))
            let second = harness.clock.startTask { await placement.load() } // a shown interstitial is used up
            await harness.clock.advance(to: at(2))
            let next = try #require(await second.value.ad)
            #expect(next.lineItem.id == "neta_le" && next.eCPM == 1.5)
            #expect(harness.recorder.traces.last?.configVersion == 2)
            #expect(newNetA.requestCount == 1 && oldNetA.requestCount == 1)
            // Nothing uses the old configuration now: its removed and changed adapters are shut
            // down, once; the kept netb's is not.
            await harness.clock.runUntilIdle()
            #expect(oldNetA.lifeCycleCalls == [.shutdown])
            #expect(netp.lifeCycleCalls == [.shutdown])
            #expect(harness.adapters(of: "netb").count == 1 && harness.adapters(of: "netb")[0].lifeCycleCalls.isEmpty)
            await harness.shutdown()
            #expect(oldNetA.lifeCycleCalls == [.shutdown] && netp.lifeCycleCalls == [.shutdown])
            #expect(newNetA.lifeCycleCalls == [.shutdown])
            let counts = harness.expectEveryAdOnce()
            #expect(counts.shown == 1 && counts.released == 1)
        }
    }

    @Test("a swap during a watch's refresh: the refresh runs under the old configuration, the current ad stays to its normal refresh, the next runs the new one")
    func swapDuringARefresh() async throws {
        let v1 = MediationConfiguration(networks: [SwapHarness.network("neta")], placements: [Self.banner(refreshSeconds: 30, sources: [.fixedPrice("neta_home", network: "neta", eCPM: 1.2)])], version: 1)
        let v2 = MediationConfiguration(networks: [SwapHarness.network("neta")], placements: [Self.banner(refreshSeconds: 60, sources: [.fixedPrice("neta_home", network: "neta", eCPM: 2.0)])], version: 2)
        let harness = try SwapHarness(v1)
        try await harness.clock.perform {
            let placement = try #require(harness.engine.placement("home_banner"))
            let renderer = harness.renderEachNewAd(of: placement)
            defer { renderer.cancel() }
            _ = await placement.attachView(visible: true)
            await harness.clock.advance(to: at(30.15)) // the refresh auction started at 30.100
            try await harness.apply(v2, version: 2)
            #expect(placement.configuration.refreshSeconds == 60)
            await harness.clock.advance(to: at(200))
            // Auctions: 0 (v1), the refresh at 30.1 (v1, started before the swap), then the
            // new count of 60 s from its ad at 30.2: 90.2 (v2), 150.3 (v2).
            #expect(harness.recorder.instants("auction_started") == [at(0), at(30.1), at(90.2), at(150.3)])
            #expect(harness.auctionVersions == [1, 1, 2, 2])
            #expect(harness.recorder.impressions.map(\.ad.configVersion) == [1, 1, 2, 2])
            #expect(harness.recorder.impressions.map(\.eCPM) == [1.2, 1.2, 2.0, 2.0])
            #expect(harness.recorder.traces.map(\.configVersion) == [1, 1, 2, 2])
            await placement.destroy()
            await harness.shutdown()
            let counts = harness.expectEveryAdOnce()
            #expect(counts.shown == 4 && counts.released == 0)
        }
    }

    @Test("an unshown current ad stays across a swap until its refresh; then it is released once")
    func currentAdStaysUntilItsRefresh() async throws {
        let v1 = MediationConfiguration(networks: [SwapHarness.network("neta")], placements: [Self.banner(refreshSeconds: 30, sources: [.fixedPrice("neta_home", network: "neta", eCPM: 1.2)])], version: 1)
        let v2 = MediationConfiguration(networks: v1.networks, placements: [Self.banner(refreshSeconds: 30, sources: [.fixedPrice("neta_home", network: "neta", eCPM: 2.5)])], version: 2)
        let harness = try SwapHarness(v1)
        try await harness.clock.perform {
            let placement = try #require(harness.engine.placement("home_banner"))
            _ = await placement.attachView(visible: true) // visible, never rendered: the ad stays unshown
            await harness.clock.advance(to: at(10))
            let held = try #require(await placement.currentAd)
            try await harness.apply(v2, version: 2)
            #expect(await placement.currentAd?.ad === held.ad)
            #expect(await placement.nextRefreshDue == at(30.1))
            await harness.clock.advance(to: at(30.2))
            #expect(await placement.currentAd?.eCPM == 2.5)
            #expect(try #require(held.ad as? ScriptedAd).releaseCount == 1)
            await harness.shutdown()
            harness.expectEveryAdOnce()
        }
    }

    @Test("a removed placement's ads are released once, a running auction's included, and its views told; a placement whose format changed gets a new controller")
    func removedPlacements() async throws {
        let interstitial = Self.levelEnd([.fixedPrice("neta_le", network: "neta", eCPM: 1.2)])
        let rewardedSources: [LineItem] = [.fixedPrice("neta_rw", network: "neta", eCPM: 4.0)]
        let v1 = MediationConfiguration(
            networks: [SwapHarness.network("neta")],
            placements: [interstitial, MediationConfiguration.Placement(id: "bonus", format: .rewarded, sources: rewardedSources), MediationConfiguration.Placement(id: "chest", format: .rewarded, sources: rewardedSources)],
            version: 1
        )
        let v2 = MediationConfiguration(
            networks: [SwapHarness.network("neta")],
            placements: [MediationConfiguration.Placement(id: "level_end", format: .rewarded, sources: [.fixedPrice("neta_le", network: "neta", eCPM: 1.2)]), MediationConfiguration.Placement(id: "bonus", format: .rewarded, sources: rewardedSources)],
            version: 2
        )
        let harness = try SwapHarness(v1)
        try await harness.clock.perform {
            let levelEnd = try #require(harness.engine.placement("level_end"))
            let chest = try #require(harness.engine.placement("chest"))
            let bonus = try #require(harness.engine.placement("bonus"))
            let loaded = harness.clock.startTask { await levelEnd.load() }
            await harness.clock.advance(to: at(0.5))
            #expect(await loaded.value.ad != nil)
            let running = harness.clock.startTask { await chest.load() } // its auction is running at the swap
            await harness.clock.advance(to: at(0.55))
            try await harness.apply(v2, version: 2)
            guard case .destroyed = await running.value else {
                Issue.record("the removed placement's running load was not ended as destroyed")
                return
            }
            #expect(await levelEnd.destroyed)
            #expect(await chest.destroyed)
            #expect(!(await bonus.destroyed))
            let removed = harness.recorder.events(named: "placement_removed").map(\.placementID)
            #expect(removed == ["chest", "level_end"])
            #expect(harness.recorder.events(named: "placement_removed").allSatisfy { $0.configVersion == 2 })
            #expect(harness.engine.placement("chest") == nil)
            let replaced = try #require(harness.engine.placement("level_end"))
            #expect(replaced !== levelEnd && replaced.configuration.format == .rewarded)
            #expect(harness.engine.placement("bonus") === bonus)
            await harness.clock.advance(to: at(2))
            await harness.shutdown()
            let counts = harness.expectEveryAdOnce()
            #expect(counts.released == 2) // level_end's loaded ad and chest's late winner
        }
    }

    @Test("a configuration that cannot be built is refused with its JSON path; nothing changes; adapters built for it are shut down")
    func refusedBuild() async throws {
        let v1 = MediationConfiguration(networks: [SwapHarness.network("neta")], placements: [Self.levelEnd([.fixedPrice("neta_le", network: "neta", eCPM: 1.2)])], version: 1)
        let v2 = MediationConfiguration(
            networks: [SwapHarness.network("neta"), SwapHarness.network("netb"), SwapHarness.network("netc", extra: ["fail": .bool(true)])],
            placements: [Self.levelEnd([.fixedPrice("neta_le", network: "neta", eCPM: 1.2)])],
            version: 2
        )
        let harness = try SwapHarness(v1)
        try await harness.clock.perform {
            let placement = try #require(harness.engine.placement("level_end"))
            do {
                try await harness.apply(v2, version: 2)
                Issue.record("an unbuildable configuration was applied")
            } catch {
                #expect((error as? ConfigurationError)?.path == "networks.netc.options.fail")
            }
            await harness.clock.runUntilIdle()
            #expect(harness.engine.configurationVersion == 1)
            #expect(harness.engine.configuration.networks.map(\.id) == ["neta"])
            #expect(harness.engine.placement("level_end") === placement)
            #expect(harness.adapters(of: "netb").map(\.lifeCycleCalls) == [[.shutdown]])
            #expect(harness.adapters(of: "neta").count == 1)
            let unknown = MediationConfiguration(networks: [MediationConfiguration.Network(id: "neta", adapter: "nobody")], placements: v1.placements, version: 3)
            do {
                try await harness.apply(unknown, version: 3)
                Issue.record("an unknown network kind was applied")
            } catch {
                #expect((error as? ConfigurationError)?.code == .unknownAdapter)
            }
            #expect(harness.engine.configurationVersion == 1)
            await harness.shutdown()
        }
    }

    @Test("after shutdown a swap is refused; shutdown reaches every adapter once, retired ones included")
    func shutdownAndRetiredAdapters() async throws {
        let v1 = MediationConfiguration(networks: [SwapHarness.network("neta"), SwapHarness.network("netb")], placements: [Self.levelEnd([.fixedPrice("neta_le", network: "neta", eCPM: 1.2), .fixedPrice("netb_le", network: "netb", eCPM: 0.8)])], version: 1)
        let v2 = MediationConfiguration(networks: [SwapHarness.network("netb")], placements: [Self.levelEnd([.fixedPrice("netb_le", network: "netb", eCPM: 0.8)])], version: 2)
        let harness = try SwapHarness(v1)
        try await harness.clock.perform {
            let placement = try #require(harness.engine.placement("level_end"))
            let loaded = harness.clock.startTask { await placement.load() }
            await harness.clock.advance(to: at(1))
            #expect(await loaded.value.ad?.lineItem.id == "neta_le") // neta's ad is current
            try await harness.apply(v2, version: 2)
            let neta = harness.adapters(of: "neta")[0]
            #expect(neta.lifeCycleCalls.isEmpty) // its ad is still current
            await harness.shutdown()
            #expect(neta.lifeCycleCalls == [.shutdown])
            #expect(harness.adapters(of: "netb")[0].lifeCycleCalls == [.shutdown])
            do {
                try await harness.apply(v1, version: 3)
                Issue.record("a swap after shutdown was applied")
            } catch {}
            harness.expectEveryAdOnce()
        }
    }
}

import Foundation
@testable import Mediation
import MediationTestKit
import Testing

/// A fixed-price network kind whose factory runs a hook while it builds an adapter: the host's
/// call that lands while a configuration swap is being built.
private final class HookedFactory: NetworkAdapterFactory {
    let kind = "hooked.fixed"
    let pricing = LineItem.Pricing.fixedPrice
    private let clock: ManualClock
    private let state = Locked<(hook: (@Sendable () -> Void)?, built: [ScriptedAdapter])>((nil, []))

    init(clock: ManualClock) {
        self.clock = clock
    }

    func setHook(_ hook: (@Sendable () -> Void)?) {
        state.withLock { $0.hook = hook }
    }

    var adapters: [ScriptedAdapter] { state.withLock { $0.built } }

    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        let adapter = ScriptedAdapter(network: network.id, pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)])
        let hook = state.withLock { state in
            state.built.append(adapter)
            return state.hook
        }
        hook?()
        return adapter
    }
}

/// Red-team swaps (engine rule R22 with R18 and R20): a consent withdrawal that lands while a
/// new configuration is being built, swaps back and forth inside one waterfall, and a swap
/// racing shutdown. Every ad is shown or released once; every adapter hears the host's latest
/// signals and is shut down at most once.
@Suite("Red team: configuration swaps")
struct RedTeamSwapTests {
    private static func configuration(_ networks: [String: Double], mode: MediationConfiguration.Placement.AuctionMode = .parallel, version: Int) -> MediationConfiguration {
        let ids = networks.keys.sorted()
        return MediationConfiguration(
            networks: ids.map { MediationConfiguration.Network(id: $0, adapter: "hooked.fixed", options: ["v": .number(Double(version))]) },
            placements: [MediationConfiguration.Placement(id: "level_end", format: .interstitial, mode: mode, sources: ids.map { LineItem.fixedPrice("\($0)_le", network: $0, eCPM: networks[$0] ?? 1) })],
            version: version
        )
    }

    @Test("a consent withdrawal that lands while a new configuration is built reaches the adapters it builds")
    func withdrawalDuringTheBuild() async throws {
        let clock = ManualClock()
        let factory = HookedFactory(clock: clock)
        let engine = try MediationEngine(configuration: Self.configuration(["neta": 1.0], version: 1), registry: NetworkRegistry([factory]), environment: MediationEnvironment(clock: clock))
        let withdrawn = RequestTemplate(privacy: AdRequest.Privacy(userConsent: false))
        factory.setHook { [weak engine] in engine?.updateRequestTemplate(withdrawn) }
        await clock.perform {
            let task = clock.startTask { () -> ConfigurationError? in
                do throws(ConfigurationError) {
                    try await engine.apply(Self.configuration(["neta": 2.0], version: 2), version: 2, source: .remote)
                    return nil
                } catch {
                    return error
                }
            }
            await clock.runUntilIdle()
            #expect(await task.value == nil)
            factory.setHook(nil)
            #expect(engine.configurationVersion == 2)
            let built = factory.adapters
            #expect(built.count == 2)
            // The old adapter heard it (it was current); so must the new one, which was built
            // from the signals before the withdrawal and is the one that runs from now on.
            #expect(built[0].templates.last?.privacy.userConsent == false)
            #expect(built[1].templates.last?.privacy.userConsent == false, "the new adapter never heard the withdrawal")
            let task2 = clock.startTask { await engine.shutdown() }
            await clock.runUntilIdle()
            await task2.value
        }
    }

    @Test("three swaps inside one waterfall (v1, v2, v3 = v1's content again): the waterfall ends under v1, every ad once, every adapter shut down once")
    func backAndForthInsideAWaterfall() async throws {
        let clock = ManualClock()
        let factory = HookedFactory(clock: clock)
        let v1 = Self.configuration(["neta": 3.0, "netb": 2.0, "netc": 1.0], mode: .waterfall, version: 1)
        let engine = try MediationEngine(configuration: v1, registry: NetworkRegistry([factory]), environment: MediationEnvironment(clock: clock))
        try await clock.perform {
            let placement = try #require(engine.placement("level_end"))
            let load = clock.startTask { await placement.load() }
            for (step, next) in [Self.configuration(["netb": 2.0], mode: .waterfall, version: 2), Self.configuration(["neta": 3.0, "netb": 2.0, "netc": 1.0], mode: .waterfall, version: 3)].enumerated() {
                await clock.advance(to: .origin + .milliseconds(Int64(30 + 30 * step)))
                let apply = clock.startTask { () -> ConfigurationError? in
                    do throws(ConfigurationError) {
                        try await engine.apply(next, version: next.version, source: .remote)
                        return nil
                    } catch {
                        return error
                    }
                }
                await clock.runUntilIdle()
                #expect(await apply.value == nil)
            }
            await clock.advance(to: .origin + .seconds(2))
            let first = try #require(await load.value.ad)
            #expect(first.lineItem.id == "neta_le")
            _ = await placement.reportShown(first.ad) // a shown interstitial is used up
            let second = clock.startTask { await placement.load() }
            await clock.advance(to: .origin + .seconds(4))
            _ = try #require(await second.value.ad) // left unshown: shutdown releases it
            let shutdown = clock.startTask { await engine.shutdown() }
            await clock.runUntilIdle()
            await shutdown.value
            for adapter in factory.adapters {
                #expect(adapter.lifeCycleCalls.filter { $0 == .shutdown }.count == 1, "\(adapter.network)")
                for ad in adapter.ads {
                    #expect(ad.releaseCount + ad.impressionCount == 1, "ad \(ad.id): \(ad.releaseCount) releases, \(ad.impressionCount) impressions")
                }
            }
        }
    }

    @Test("a swap racing shutdown: every adapter, old and new, is shut down exactly once; no ad is lost")
    func swapRacingShutdown() async throws {
        let clock = ManualClock()
        let factory = HookedFactory(clock: clock)
        let engine = try MediationEngine(configuration: Self.configuration(["neta": 1.0], version: 1), registry: NetworkRegistry([factory]), environment: MediationEnvironment(clock: clock))
        await clock.perform {
            let auction = clock.startTask { await engine.runAuction(placementID: "level_end") }
            await clock.advance(to: .origin + .milliseconds(50))
            let apply = clock.startTask { () -> ConfigurationError? in
                do throws(ConfigurationError) {
                    try await engine.apply(Self.configuration(["netb": 2.0], version: 2), version: 2, source: .remote)
                    return nil
                } catch {
                    return error
                }
            }
            let shutdown = clock.startTask { await engine.shutdown() }
            await clock.advance(to: .origin + .seconds(1))
            await clock.runUntilIdle()
            _ = await apply.value
            await shutdown.value
            (await auction.value)?.winner?.ad.releaseResources()
            await clock.runUntilIdle()
            for adapter in factory.adapters {
                #expect(adapter.lifeCycleCalls.filter { $0 == .shutdown }.count == 1, "\(adapter.network): \(adapter.lifeCycleCalls)")
                for ad in adapter.ads {
                    #expect(ad.releaseCount + ad.impressionCount == 1, "ad \(ad.id)")
                }
            }
        }
    }

    @Test("a one-shot winner the caller still holds keeps its network's adapter alive across a swap that removes the network (its impression must still count)")
    func oneShotWinnerHeldAcrossASwap() async throws {
        let clock = ManualClock()
        let factory = HookedFactory(clock: clock)
        let engine = try MediationEngine(configuration: Self.configuration(["neta": 1.0], version: 1), registry: NetworkRegistry([factory]), environment: MediationEnvironment(clock: clock))
        try await clock.perform {
            let auction = clock.startTask { await engine.runAuction(placementID: "level_end") }
            await clock.advance(to: .origin + .seconds(1))
            let winner = try #require(await auction.value?.winner)
            let apply = clock.startTask { () -> ConfigurationError? in
                do throws(ConfigurationError) {
                    try await engine.apply(Self.configuration(["netb": 2.0], version: 2), version: 2, source: .remote)
                    return nil
                } catch {
                    return error
                }
            }
            await clock.runUntilIdle()
            #expect(await apply.value == nil)
            let neta = try #require(factory.adapters.first)
            // The winner holds the snapshot its auction ran under until the caller drops it: the
            // adapter is not shut down under an unshown ad (a real network sends nothing after
            // shutdown, R18, so its impression would be lost).
            #expect(!neta.lifeCycleCalls.contains(.shutdown))
            winner.ad.releaseResources()
            let shutdown = clock.startTask { await engine.shutdown() }
            await clock.runUntilIdle()
            await shutdown.value
            #expect(neta.lifeCycleCalls.filter { $0 == .shutdown }.count == 1)
            #expect(neta.ads.allSatisfy { $0.releaseCount == 1 })
        }
    }
}

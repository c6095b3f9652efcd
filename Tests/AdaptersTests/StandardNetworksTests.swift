import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// The standard networks built through ``MediationEngine`` with `NetworkRegistry.standard` and
/// the shipped `Config/mediation.json`.
@Suite("Standard networks")
struct StandardNetworksTests {
    private func shippedConfiguration() throws -> MediationConfiguration {
        try MediationConfiguration(contentsOf: RepositoryFiles.shippedConfiguration, registry: NetworkRegistry.standard)
    }

    @Test func theStandardRegistryHasTheFourKinds() {
        #expect(standardNetworks.map(\.kind) == ["fallback", "elo", "nitx", "qartvelo"])
        #expect(NetworkRegistry.standard.kinds == ["elo", "fallback", "nitx", "qartvelo"])
        #expect(NetworkRegistry.standard.pricing(forKind: "elo") == .bidder)
        for kind in ["fallback", "nitx", "qartvelo"] {
            #expect(NetworkRegistry.standard.pricing(forKind: kind) == .fixedPrice, "\(kind)")
        }
    }

    @Test func theShippedConfigHasTheFourPlacements() throws {
        let configuration = try shippedConfiguration()
        #expect(configuration.placements.map(\.id) == ["home_banner", "feed_inline", "chat_strip", "level_end"])
        let home = try #require(configuration.placement("home_banner"))
        #expect(home.format == .banner && home.bannerSizing == .anchored && home.slot.maxHeight == 90)
        let feed = try #require(configuration.placement("feed_inline"))
        #expect(feed.format == .banner && feed.bannerSizing == .inline && feed.slot.maxHeight == 250)
        let strip = try #require(configuration.placement("chat_strip"))
        #expect(strip.format == .native && strip.slot.maxHeight == 100)
        #expect(configuration.placement("level_end")?.format == .interstitial)
        for placement in configuration.placements {
            #expect(placement.sources.count >= 3, "\(placement.id) has a real auction")
            let fixedPrice = placement.sources.filter { $0.pricing == .fixedPrice }
            #expect(Set(fixedPrice.compactMap(\.eCPM)).count == fixedPrice.count, "\(placement.id) eCPMs differ")
        }
    }

    /// Building an engine (as `mediate validate` does) asks no network anything: Nitx loads its
    /// source config with its first ad request, Elo and Qartvelo send only ad requests.
    @Test func buildingTheEngineSendsNothing() async throws {
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let configuration = try ConfigurationLoader(registry: .standard).load(json: """
        {
          "networks": {
            "elo": { "adapter": "elo", "credentials": { "publisher_id": "p" }, "endpoint": "\(WireRecorder.eloEndpoint)" },
            "nitx": { "adapter": "nitx", "credentials": { "source_code": "SDK-AM-DEMOI" }, "endpoint": "\(WireRecorder.nitxEndpoint)" },
            "qartvelo": { "adapter": "qartvelo", "credentials": { "app_id": "qv" }, "endpoint": "\(WireRecorder.qartveloEndpoint)" }
          },
          "placements": { "home_banner": { "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 }, "sources": [
            { "id": "e", "network": "elo", "ad_unit_id": "e" },
            { "id": "n", "network": "nitx", "ad_unit_id": "SLOT-N", "ecpm": 1.0 },
            { "id": "q", "network": "qartvelo", "ad_unit_id": "q", "ecpm": 1.0 } ] } }
        }
        """)
        let engine = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: clock, transport: wire))
        await clock.advance(by: .seconds(10))
        #expect(wire.requests.isEmpty)
        _ = try await engine.runAuction(placementID: "home_banner", on: clock)
        // The first auction: Nitx's source config, then each network's ad request.
        #expect(wire.requests.first { $0.url.host == NitxAdapterFactory.sandboxHost }?.url.path == "/api/ad-mobiles/show/SDK-AM-DEMOI")
        await clock.perform { await engine.shutdown() }
    }

    @Test func theEngineBuildsTheShippedConfigWithTheStandardRegistry() async throws {
        let clock = ManualClock(start: .origin + .seconds(5))
        let shipped = try shippedConfiguration()
        let engine = try MediationEngine(contentsOf: RepositoryFiles.shippedConfiguration, registry: .standard, environment: MediationEnvironment(clock: clock, seed: 3))
        #expect(engine.configuration == shipped)
        for placement in engine.configuration.placements {
            let controller = try #require(engine.placement(placement.id))
            #expect(controller.configuration == placement)
            #expect(engine.placement(placement.id) === controller, "one controller per placement")
        }
        #expect(engine.placement("nope") == nil)
        #expect(await engine.runAuction(placementID: "nope") == nil)
        await engine.shutdown()
    }

    @Test func buildsOneAdapterPerNetworkAndAnAuctionPerPlacement() async throws {
        let configuration = try shippedConfiguration()
        let clock = ManualClock(start: .origin + .seconds(5))
        let recorder = NetworkRecorder()
        let engine = try MediationEngine(
            configuration: configuration,
            registry: recorder.wrapping(.standard),
            environment: MediationEnvironment(clock: clock, seed: 3),
            hostContext: { _ in AdRequest.Context(screenName: "Chat") }
        )
        #expect(recorder.builtNetworks == configuration.networks.map(\.id))
        #expect(recorder.loads.isEmpty, "building asks no network anything")
        for placement in configuration.placements {
            let start = clock.now
            let asked = recorder.loads.count
            let outcome = try await engine.runAuction(placementID: placement.id, on: clock)
            // The auction's sources are the placement's line items, in config order.
            #expect(outcome.trace.placementID == placement.id)
            #expect(outcome.trace.mode == placement.mode)
            #expect(outcome.trace.sources.map(\.lineItemID) == placement.sources.map(\.id))
            #expect(outcome.trace.sources.map(\.network) == placement.sources.map(\.network))
            #expect(outcome.trace.sources.map(\.pricing) == placement.sources.map(\.pricing))
            // Each request went to the line item's own network's adapter, built from the
            // placement and the host's context.
            let loads = Array(recorder.loads.dropFirst(asked))
            #expect(!loads.isEmpty)
            for load in loads {
                let lineItem = try #require(placement.sources.first { $0.adUnitID == load.request.adUnitID }, "\(load.request.adUnitID)")
                #expect(load.network == lineItem.network)
                let request = load.request
                #expect(request.placementID == placement.id)
                #expect(request.format == placement.format)
                #expect(request.bannerSizing == placement.bannerSizing)
                #expect(request.slot == placement.slot)
                #expect(request.context.screenName == "Chat")
                let auctionDeadline = start + placement.deadline
                // R3a: the earliest of the line item's and the network's timeout_ms (from when
                // the source is asked) and the deadline.
                let networkTimeout = configuration.network(lineItem.network)?.timeout
                let limits = [lineItem.timeout, networkTimeout].compactMap { $0.map { load.askedAt + $0 } }
                let answerBy = ([auctionDeadline] + limits).min() ?? auctionDeadline
                #expect(request.deadline == answerBy, "\(lineItem.id)")
            }
            outcome.winner?.ad.releaseResources() // the winner belongs to the caller
        }
        #expect(recorder.builtNetworks == configuration.networks.map(\.id), "no adapter is built per auction")
        await engine.shutdown()
    }

    @Test func aFactoryErrorNamesTheNetworkPath() throws {
        let configuration = MediationConfiguration(
            networks: [MediationConfiguration.Network(id: "admob", adapter: "fallback", options: ["fill_rate": .number(2)])],
            placements: []
        )
        let error = #expect(throws: ConfigurationError.self) {
            _ = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: ManualClock()))
        }
        #expect(error?.path == "networks.admob.options.fill_rate")
        #expect(error?.code == .invalidValue)
    }

    @Test func aKindMissingFromTheRegistryNamesTheAdapterPath() {
        let configuration = MediationConfiguration(networks: [MediationConfiguration.Network(id: "x", adapter: "fallback")], placements: [])
        #expect(throws: ConfigurationError(code: .unknownAdapter, path: "networks.x.adapter", message: "no network kind \"fallback\" is registered; known kinds: ")) {
            _ = try MediationEngine(configuration: configuration, registry: NetworkRegistry(), environment: MediationEnvironment(clock: ManualClock()))
        }
    }

    @Test func aKindMissingFromTheRegistryFailsTheLoaderToo() {
        let json = #"{ "networks": { "x": { "adapter": "acme", "endpoint": "sandbox" } }, "placements": {} }"#
        let error = #expect(throws: ConfigurationError.self) {
            _ = try MediationConfiguration(json: json, registry: .standard)
        }
        #expect(error?.code == .unknownAdapter)
        #expect(error?.path == "networks.x.adapter")
    }
}

/// The fallback network through the engine's auction, on a manual clock.
@Suite("Fallback line items in an auction")
struct FallbackAuctionTests {
    private static let config = """
    {
      "networks": {
        "slow_empty": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 0, "latency_ms": 100 } },
        "quick_full": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1, "latency_ms": 50 } }
      },
      "placements": {
        "level_end": {
          "format": "interstitial", "mode": "waterfall",
          "sources": [
            { "id": "premium", "network": "slow_empty", "ad_unit_id": "p", "ecpm": 6.5 },
            { "id": "standard", "network": "quick_full", "ad_unit_id": "s", "ecpm": 4.0 },
            { "id": "backfill", "network": "quick_full", "ad_unit_id": "b", "ecpm": 1.5 }
          ]
        },
        "home_banner": {
          "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 },
          "sources": [
            { "id": "premium", "network": "slow_empty", "ad_unit_id": "p", "ecpm": 1.8 },
            { "id": "standard", "network": "quick_full", "ad_unit_id": "s", "ecpm": 1.1 },
            { "id": "backfill", "network": "quick_full", "ad_unit_id": "b", "ecpm": 0.35 }
          ]
        }
      }
    }
    """

    private func run(_ placementID: String, until end: Duration) async throws -> MediationEngine.AuctionOutcome {
        let configuration = try MediationConfiguration(json: Self.config, registry: .standard)
        let clock = ManualClock()
        let engine = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: clock, seed: 1))
        let task = clock.startTask { await engine.runAuction(placementID: placementID) }
        #expect(await clock.settle { clock.sleeperCount > 0 }, "the sources are waiting for their latency")
        await clock.advance(by: end)
        return try #require(await task.value)
    }

    @Test func waterfallFillsFromTheSecondTierAt150ms() async throws {
        let outcome = try await run("level_end", until: .milliseconds(300))
        #expect(outcome.winner?.lineItem.id == "standard")
        #expect(outcome.winner?.eCPM == 4.0)
        #expect(outcome.winner?.ad.size == AdSize(width: 390, height: 844))
        #expect(outcome.trace.endedAtMilliseconds == 150)
        #expect(outcome.trace.source("premium")?.outcome == .noFill(FallbackAdapter.noFillReason))
        #expect(outcome.trace.source("premium")?.latencyMilliseconds == 100)
        #expect(outcome.trace.source("standard")?.startOffsetMilliseconds == 100)
        #expect(outcome.trace.source("standard")?.outcome == .won)
        #expect(outcome.trace.source("backfill")?.startOffsetMilliseconds == nil)
    }

    @Test func parallelWaitsForTheHigherSourceThenReleasesTheLoser() async throws {
        let outcome = try await run("home_banner", until: .milliseconds(300))
        #expect(outcome.winner?.lineItem.id == "standard")
        #expect(outcome.winner?.ad.size == AdSize(width: 390, height: 60)) // anchored adaptive, 390 pt wide
        #expect(outcome.trace.endedAtMilliseconds == 100)
        #expect(outcome.trace.source("backfill")?.outcome == .lost(.lostToHigherBid))
        #expect(outcome.trace.source("backfill")?.adReleased == true)
        #expect((outcome.winner?.ad as? FallbackAd)?.isReleased == false)
    }
}

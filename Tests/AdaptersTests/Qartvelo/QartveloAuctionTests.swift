import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Qartvelo inside the engine's auction: a fixed-price source whose failures let the next
/// source fill.
@Suite("Qartvelo in an auction")
struct QartveloAuctionTests {
    static let placement = MediationConfiguration.Placement(
        id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxWidth: 390, maxHeight: 90),
        sources: [.fixedPrice("qartvelo", eCPM: 2.0), .fixedPrice("backfill", eCPM: 0.5)]
    )

    static func run(qartvelo options: QartveloOptions) async throws -> (MediationEngine.AuctionOutcome, ScriptedAdapter) {
        let clock = ManualClock()
        let backfill = ScriptedAdapter(network: "backfill", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)], ads: .init(size: AdSize(width: 320, height: 50)))
        let qartvelo = QartveloAnswerCountingAdapter(QartveloFixtures.sandboxAdapter(options: options, clock: clock))
        var networks = PrebuiltNetworks()
        networks.add("qartvelo", pricing: QartveloAdapterFactory().pricing, adapter: qartvelo)
        networks.add("backfill", pricing: .fixedPrice, adapter: backfill)
        let engine = try MediationEngine(configuration: networks.configuration(placements: [placement]), registry: networks.registry, environment: MediationEnvironment(clock: clock))
        let task = clock.startTask { await engine.runAuction(placementID: "home_banner") }
        // Qartvelo's sandbox answers at 0 ms of virtual time, before time moves.
        #expect(await clock.settle { backfill.requestCount == 1 && qartvelo.answers == 1 })
        await clock.advance(to: .origin + .seconds(1))
        return (try #require(await task.value), backfill)
    }

    @Test func bundleOf2MBPlusOneByteFailsAndTheNextSourceWins() async throws {
        let (outcome, backfill) = try await Self.run(qartvelo: QartveloOptions(sandboxHTML5: true, sandboxHTML5BundleBytes: 2 * 1024 * 1024 + 1))
        guard case .error(let error) = outcome.trace.source("qartvelo")?.outcome else {
            Issue.record("expected an error, got \(String(describing: outcome.trace.source("qartvelo")?.outcome))")
            return
        }
        #expect(error.kind == .creative)
        #expect(error.code == QartveloErrorCode.bundleTooLarge.rawValue)
        #expect(outcome.winner?.lineItem.id == "backfill")
        #expect(outcome.winner?.eCPM == 0.5)
        #expect(try #require(backfill.ads.first).releaseCount == 0)
    }

    @Test func bundleOfExactly2MBWinsAtItsConfiguredECPM() async throws {
        let (outcome, backfill) = try await Self.run(qartvelo: QartveloOptions(sandboxHTML5: true, sandboxHTML5BundleBytes: 2 * 1024 * 1024))
        #expect(outcome.winner?.lineItem.id == "qartvelo")
        #expect(outcome.winner?.eCPM == 2.0)
        let ad = try #require(outcome.winner?.ad as? QartveloBannerAd)
        #expect(ad.size == AdSize(width: 390, height: 60))
        #expect(ad.serverRefreshSeconds == 60)
        // The backfill could no longer win: cancelled, and its ad (it still came, at 100 ms)
        // released once.
        #expect(outcome.trace.source("backfill")?.outcome == .cancelled(couldNotBeat: 2.0))
        #expect(backfill.ads.count == 1)
        #expect(backfill.ads.allSatisfy { $0.releaseCount == 1 })
    }
}

/// "A Qartvelo banner, or your own AdMob banner when Qartvelo Ads has nothing to show": in the
/// engine's parallel auction both are asked at once, so what decides is the eCPM (R5), never the
/// order of the sources; the fallback fills when Qartvelo has nothing.
@Suite("Qartvelo and the fallback in a parallel auction")
struct QartveloFallbackAuctionTests {
    static func run(qartveloFirst: Bool, qartveloECPM: Double, fallbackECPM: Double, qartveloFills: Bool = true) async throws -> MediationEngine.AuctionOutcome {
        let clock = ManualClock()
        let transport = SandboxTransport(servers: [QartveloSandboxServer.host: QartveloSandboxServer(creatives: qartveloFills ? QartveloCreativeArtwork.uploadSizes : [])], clock: clock)
        let qartvelo = #"{ "id": "qv", "network": "qartvelo", "ad_unit_id": "qv-home", "ecpm": \#(qartveloECPM) }"#
        let fallback = #"{ "id": "admob", "network": "admob", "ad_unit_id": "admob-home", "ecpm": \#(fallbackECPM) }"#
        let sources = qartveloFirst ? "\(qartvelo), \(fallback)" : "\(fallback), \(qartvelo)"
        let configuration = try ConfigurationLoader(registry: .standard).load(json: """
        {
          "networks": {
            "qartvelo": { "adapter": "qartvelo", "credentials": { "app_id": "qv-app" }, "endpoint": "https://\(QartveloSandboxServer.host)" },
            "admob": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1.0, "latency_ms": 50 } }
          },
          "placements": { "home": { "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 }, "mode": "parallel", "sources": [ \(sources) ] } }
        }
        """)
        let engine = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: clock, transport: transport))
        let outcome = try await engine.runAuction(placementID: "home", on: clock)
        outcome.winner?.ad.releaseResources()
        return outcome
    }

    @Test(arguments: [true, false], [(2.0, 1.0), (1.0, 2.0)] as [(Double, Double)])
    func theHigherECPMWinsWhateverTheOrder(qartveloFirst: Bool, prices: (qartvelo: Double, fallback: Double)) async throws {
        let outcome = try await Self.run(qartveloFirst: qartveloFirst, qartveloECPM: prices.qartvelo, fallbackECPM: prices.fallback)
        let expected = prices.qartvelo > prices.fallback ? "qv" : "admob"
        #expect(outcome.winner?.lineItem.id == expected)
        #expect(outcome.winner?.eCPM == max(prices.qartvelo, prices.fallback))
        // Both were asked at once, at the start, whatever their order.
        #expect(outcome.trace.sources.map(\.startOffsetMilliseconds) == [0, 0])
    }

    @Test(arguments: [true, false])
    func theFallbackFillsWhenQartveloHasNothingWhateverTheOrder(qartveloFirst: Bool) async throws {
        let outcome = try await Self.run(qartveloFirst: qartveloFirst, qartveloECPM: 2.0, fallbackECPM: 1.0, qartveloFills: false)
        #expect(outcome.winner?.lineItem.id == "admob")
        #expect(outcome.trace.source("qv")?.outcome.status == "no_fill")
    }
}

/// Forwards to an adapter and counts its answers, so a test can check one came.
final class QartveloAnswerCountingAdapter: AdNetworkAdapter {
    private let inner: any AdNetworkAdapter
    private let count = Locked(0)

    init(_ inner: any AdNetworkAdapter) {
        self.inner = inner
    }

    var answers: Int { count.withLock { $0 } }

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        let result = await inner.loadAd(for: request)
        count.withLock { $0 += 1 }
        return result
    }
}

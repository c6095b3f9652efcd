import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Qartvelo inside the engine's auction: a fixed-price source whose failures let the next
/// source fill.
@Suite("Qartvelo in an auction")
struct QartveloAuctionTests {
    static let placement = PlacementConfiguration(
        id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxWidth: 390, maxHeight: 90),
        sources: [.fixedPrice("qartvelo", eCPM: 2.0), .fixedPrice("backfill", eCPM: 0.5)]
    )

    static func run(qartvelo options: QartveloOptions) async throws -> (AuctionOutcome, ScriptedAdapter) {
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
        #expect(error.code == QartveloErrorCode.bundleTooLarge)
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

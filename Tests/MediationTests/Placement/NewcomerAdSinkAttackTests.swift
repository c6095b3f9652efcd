import Mediation
import MediationTestKit
import Testing

/// A newcomer's attack: a network's ad that "answers twice" through its event sink (fails its
/// render twice, then says it is ready) must still be released exactly once (R7, R12a).
@Suite("Newcomer attacks: an ad that reports through its sink more than once")
struct NewcomerAdSinkAttackTests {
    final class NoisyAd: LoadedAd, @unchecked Sendable {
        let id: String, network: String, format: AdFormat = .banner, size = AdSize(width: 320, height: 50)
        var creativeID: String { id }
        private let lock = Locked(0)
        var releaseCount: Int { lock.withLock { $0 } }
        init(id: String, network: String) { (self.id, self.network) = (id, network) }
        func releaseResources() { lock.withLock { $0 += 1 } }
        func attach(_ events: AdEventSink) {
            let error = AdLoadResult.Error(kind: .server, message: "creative failed")
            events.renderFailed(error)
            events.renderFailed(error)
            events.impressionReady()
        }
    }

    final class NoisyAdapter: AdNetworkAdapter, @unchecked Sendable {
        let network: String
        private let made = Locked<[NoisyAd]>([])
        var ads: [NoisyAd] { made.withLock { $0 } }
        init(network: String) { self.network = network }
        func loadAd(for request: AdRequest) async -> AdLoadResult {
            let ad = NoisyAd(id: "\(network)-\(made.withLock { $0.count })", network: network)
            made.withLock { $0.append(ad) }
            return .fill(ad)
        }
    }

    @Test("renderFailed twice then impressionReady from attach: the ad is released once, and the placement moves on")
    func doubleRenderFailure() async throws {
        let clock = ManualClock()
        let noisy = NoisyAdapter(network: "noisy")
        let backup = ScriptedAdapter(network: "backup", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(10), .fill)])
        var networks = PrebuiltNetworks()
        networks.add("noisy", pricing: .fixedPrice, adapter: noisy)
        networks.add("backup", pricing: .fixedPrice, adapter: backup)
        let placement = MediationConfiguration.Placement(id: "b", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxHeight: 90), refreshSeconds: 30, sources: [
            .fixedPrice("noisy_li", network: "noisy", eCPM: 2),
            .fixedPrice("backup_li", network: "backup", eCPM: 1),
        ])
        let engine = try MediationEngine(configuration: networks.configuration(placements: [placement]), registry: networks.registry, environment: MediationEnvironment(clock: clock))
        await clock.perform {
            guard let banner = engine.placement("b") else { return }
            _ = await banner.attachView(visible: true)
            await clock.advance(to: .origin + .seconds(100))
            await engine.shutdown()
            await clock.advance(to: .origin + .seconds(200))
        }
        #expect(!noisy.ads.isEmpty)
        for ad in noisy.ads {
            #expect(ad.releaseCount == 1, "\(ad.id) released \(ad.releaseCount) times")
        }
    }
}

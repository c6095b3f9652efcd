import Foundation
import Mediation

/// The per-auction cost of caps (`docs/caps.md`): the check before each auction
/// (``CapKeeper/cappedSources(of:at:horizon:)``, as a placement runs it) with 10 caps active on
/// every line item of a 4-source placement, against the same check when no cap exists anywhere
/// (the early exit). The rings hold recorded impressions, so every rule reads real instants.
enum CapsCheckBenchmark {
    /// Ten rules bind each line item: the app's 2 (40 a day, pacing 30 s), the placement's 3
    /// (20 a day, 4 an hour, pacing 600 s), its network's 2 (10 an hour, 1 a minute) and its
    /// own 3 (3 per 2 h, 2 a session, pacing 1,200 s).
    static func configuration(capped: Bool) -> (MediationConfiguration, MediationConfiguration.Placement) {
        func window(_ impressions: Int, _ seconds: Int) -> MediationConfiguration.Cap { .init(impressions: impressions, window: .seconds(seconds)) }
        var networks: [MediationConfiguration.Network] = []
        var lineItems: [LineItem] = []
        for index in 0..<4 {
            var network = MediationConfiguration.Network(id: "net\(index)", adapter: "bench")
            var lineItem = LineItem.fixedPrice("li\(index)", network: network.id, eCPM: 1 + Double(index))
            if capped {
                network.caps = .init(caps: [window(10, 3600), window(1, 60)])
                lineItem.caps = .init(caps: [window(3, 7200), .init(impressions: 2, window: .session)], pacingSeconds: 1200)
            }
            networks.append(network)
            lineItems.append(lineItem)
        }
        var placement = MediationConfiguration.Placement(id: "bench", format: .interstitial, sources: lineItems)
        var configuration = MediationConfiguration(networks: networks, placements: [])
        if capped {
            placement.caps = .init(caps: [window(20, 86_400), window(4, 3600)], pacingSeconds: 600)
            configuration.app = .init(caps: .init(caps: [window(40, 86_400)], pacingSeconds: 30))
        }
        configuration.placements = [placement]
        return (configuration, placement)
    }

    /// The cost of one check in microseconds, per batch of `batch` checks over `samples`
    /// batches: with 10 caps active (after one impression of each line item, an hour apart)
    /// and with none.
    static func microsecondsPerCheck(samples: Int, batch: Int) -> (active: Summary, none: Summary) {
        (measure(capped: true, samples: samples, batch: batch), measure(capped: false, samples: samples, batch: batch))
    }

    private static func measure(capped: Bool, samples: Int, batch: Int) -> Summary {
        let (configuration, placement) = configuration(capped: capped)
        let origin = MediationInstant.origin
        let keeper = CapKeeper(configuration: configuration, at: origin, store: MemoryStateStore(), wallClock: { Date(timeIntervalSince1970: 1_796_000_000) }, logger: SilentLogger())
        for (index, lineItem) in placement.sources.enumerated() {
            let at = origin + .seconds(3600 * index)
            _ = keeper.admitShow(placement: placement, lineItem: lineItem, at: at) { true }
            keeper.dismissed(placementID: placement.id, at: at + .seconds(10))
        }
        let clock = ContinuousClock()
        var checksum = 0
        var perCheck: [Double] = []
        let horizon = placement.format.defaultTimeToLive
        for sample in 0..<samples {
            let start = clock.now
            for index in 0..<batch {
                let now = origin + .seconds(4 * 3600) + .milliseconds(sample &* batch &+ index)
                if keeper.hasRules { checksum &+= keeper.cappedSources(of: placement, at: now, horizon: horizon).count }
            }
            let elapsed = clock.now - start
            let (seconds, attoseconds) = elapsed.components
            perCheck.append((Double(seconds) * 1e6 + Double(attoseconds) / 1e12) / Double(batch))
        }
        if checksum == 42 { print("") } // keeps the work from being optimised away
        return Summary(perCheck)
    }
}

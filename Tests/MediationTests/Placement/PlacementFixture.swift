import Mediation
import MediationTestKit
import Testing

/// Seconds from the origin with millisecond precision: `at(20.1)` is 20.100 s.
func at(_ seconds: Double) -> MediationInstant {
    .origin + .milliseconds(Int64((seconds * 1000).rounded()))
}

/// Milliseconds as a `Duration`.
func ms(_ value: Int64) -> Duration { .milliseconds(value) }

/// The engine-rules scenario setup: sources `Bid` (bidder, floor 0.50), `NetA` (fixed 1.20),
/// `NetB` (fixed 0.80), each with a scripted adapter on one manual clock. Unless told, NetA
/// fills at 100 ms and the others answer no fill at 50 ms (scenarios 7 to 11).
final class PlacementFixture: Sendable {
    static let defaultBid: [ScriptedAnswer] = [.after(ms(50), .noFill)]
    static let defaultNetA: [ScriptedAnswer] = [.after(ms(100), .fill)]
    static let defaultNetB: [ScriptedAnswer] = [.after(ms(50), .noFill)]

    let clock = ManualClock()
    let recorder = EventRecorder()
    let logger = RecordingLogger()
    let bid: ScriptedAdapter
    let netA: ScriptedAdapter
    let netB: ScriptedAdapter
    let engine: MediationEngine
    let placementID: String

    /// The three sources in config order.
    static let sources: [LineItem] = [
        .bidder("bid", floor: 0.50),
        .fixedPrice("neta", eCPM: 1.20),
        .fixedPrice("netb", eCPM: 0.80),
    ]

    /// `home_banner`: an anchored banner with the three sources.
    static func homeBanner(refreshSeconds: Int?) -> MediationConfiguration.Placement {
        MediationConfiguration.Placement(id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxWidth: 390, maxHeight: 90), refreshSeconds: refreshSeconds, sources: sources)
    }

    /// `level_end`: an interstitial with the three sources.
    static let levelEnd = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: sources)

    init(
        placement: MediationConfiguration.Placement,
        bid: [ScriptedAnswer] = PlacementFixture.defaultBid,
        netA: [ScriptedAnswer] = PlacementFixture.defaultNetA,
        netB: [ScriptedAnswer] = PlacementFixture.defaultNetB,
        netAAds: ScriptedAdapter.AdTemplate = .init(),
        hostContext: AdRequest.Context = AdRequest.Context(),
        requestTemplate: RequestTemplate = RequestTemplate()
    ) throws {
        self.bid = ScriptedAdapter(network: "bid", pricing: .bidder, clock: clock, script: bid)
        self.netA = ScriptedAdapter(network: "neta", pricing: .fixedPrice, clock: clock, script: netA, ads: netAAds)
        self.netB = ScriptedAdapter(network: "netb", pricing: .fixedPrice, clock: clock, script: netB)
        placementID = placement.id
        var networks = PrebuiltNetworks()
        networks.add("bid", pricing: .bidder, adapter: self.bid)
        networks.add("neta", pricing: .fixedPrice, adapter: self.netA)
        networks.add("netb", pricing: .fixedPrice, adapter: self.netB)
        engine = try MediationEngine(
            configuration: networks.configuration(placements: [placement]),
            registry: networks.registry,
            environment: MediationEnvironment(clock: clock, logger: logger, requestTemplate: requestTemplate),
            hostContext: { _ in hostContext },
            onEvent: recorder.handler
        )
    }

    /// The placement's controller.
    var placement: Placement {
        get throws { try #require(engine.placement(placementID)) }
    }

    /// Requests made by all three adapters.
    var requestCount: Int { bid.requestCount + netA.requestCount + netB.requestCount }

    /// When auctions started.
    var auctionStarts: [MediationInstant] { recorder.instants("auction_started") }

    /// Renders every new ad of the placement as soon as it becomes current (the scenarios'
    /// "a visible banner's new ad is rendered as soon as it becomes current"). The renderer is
    /// a task on the clock, so it runs before time moves on.
    func renderEachNewAd() throws -> Task<Void, Never> {
        let placement = try self.placement
        let stream = engine.events()
        return clock.startTask {
            for await event in stream {
                guard case .adLoaded(let ad, _, _) = event else { continue }
                if ad.placementID == placement.id, let current = await placement.currentAd?.ad, current.id == ad.adID {
                    _ = await placement.reportShown(current)
                }
            }
        }
    }

    /// Starts `load()` on the placement as a task on the clock, and returns once the work due
    /// now has run (the auction, if any, has asked its sources).
    /// - Parameter joining: the load joins a running auction (no new request).
    func startLoad(joining: Bool = false) async throws -> Task<Placement.LoadResult, Never> {
        let placement = try self.placement
        let requestsBefore = requestCount
        let task = clock.startTask { await placement.load() }
        await clock.runUntilIdle()
        if joining { #expect(requestCount == requestsBefore) }
        return task
    }

    /// Advances the clock to `target`, waking each sleeper at its own instant; the renderer
    /// shows each new ad at the instant it became current.
    func advance(to target: MediationInstant) async {
        await clock.advance(to: target)
    }
}

import Mediation
import MediationTestSupport
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
    /// Whether ``renderEachNewAd()`` runs, and how many `ad_loaded` events it has handled.
    private let rendering = Locked((active: false, handled: 0))

    /// The three sources in config order.
    static let sources: [LineItem] = [
        .bidder("bid", floor: 0.50),
        .fixedPrice("neta", eCPM: 1.20),
        .fixedPrice("netb", eCPM: 0.80),
    ]

    /// `home_banner`: an anchored banner with the three sources.
    static func homeBanner(refreshSeconds: Int?) -> PlacementConfiguration {
        PlacementConfiguration(id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxWidth: 390, maxHeight: 90), refreshSeconds: refreshSeconds, sources: sources)
    }

    /// `level_end`: an interstitial with the three sources.
    static let levelEnd = PlacementConfiguration(id: "level_end", format: .interstitial, sources: sources)

    init(
        placement: PlacementConfiguration,
        bid: [ScriptedAnswer] = PlacementFixture.defaultBid,
        netA: [ScriptedAnswer] = PlacementFixture.defaultNetA,
        netB: [ScriptedAnswer] = PlacementFixture.defaultNetB,
        netAAds: ScriptedAdapter.AdTemplate = .init(),
        hostContext: HostContext = HostContext(),
        requestTemplate: RequestTemplate = RequestTemplate()
    ) {
        self.bid = ScriptedAdapter(network: "bid", pricing: .bidder, clock: clock, script: bid)
        self.netA = ScriptedAdapter(network: "neta", pricing: .fixedPrice, clock: clock, script: netA, ads: netAAds)
        self.netB = ScriptedAdapter(network: "netb", pricing: .fixedPrice, clock: clock, script: netB)
        placementID = placement.id
        let configuration = MediationConfiguration(
            networks: [
                NetworkConfiguration(id: "bid", adapter: "scripted"),
                NetworkConfiguration(id: "neta", adapter: "scripted"),
                NetworkConfiguration(id: "netb", adapter: "scripted"),
            ],
            placements: [placement]
        )
        engine = MediationEngine(
            configuration: configuration,
            adapters: ["bid": self.bid, "neta": self.netA, "netb": self.netB],
            clock: clock,
            logger: logger,
            requestTemplate: requestTemplate,
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
    /// "a visible banner's new ad is rendered as soon as it becomes current").
    func renderEachNewAd() throws -> Task<Void, Never> {
        let placement = try self.placement
        let stream = engine.events()
        let rendering = self.rendering
        rendering.withLock { $0.active = true }
        return Task {
            for await event in stream {
                guard case .adLoaded(let ad, _, _) = event else { continue }
                if ad.placementID == placement.id, let current = await placement.currentAd?.ad, current.id == ad.adID {
                    _ = await placement.reportShown(current)
                }
                rendering.withLock { $0.handled += 1 }
            }
        }
    }

    /// Whether the renderer (if any) has handled every `ad_loaded` event so far.
    private var rendered: Bool {
        let state = rendering.withLock { $0 }
        return !state.active || state.handled == recorder.count("ad_loaded")
    }

    /// Starts `load()` on the placement in a task, and returns once the load has reached the
    /// clock: it made a request, or it finished (a fresh ad, or destroyed). Advancing the clock
    /// before that could jump past an auction that has not started yet.
    /// - Parameter joining: the load joins a running auction (no new request): just let it run.
    func startLoad(joining: Bool = false) async throws -> Task<PlacementLoadResult, Never> {
        let placement = try self.placement
        let requestsBefore = requestCount
        let finished = Locked(false)
        let task = Task {
            let result = await placement.load()
            finished.withLock { $0 = true }
            return result
        }
        if joining {
            await clock.settle()
        } else {
            await clock.settle { self.requestCount > requestsBefore || finished.withLock { $0 } }
        }
        return task
    }

    /// Advances the clock to `target` one wake-up at a time, letting the renderer show each new
    /// ad at the instant it became current before time moves on.
    func advance(to target: MediationInstant) async {
        while true {
            await clock.settle { self.rendered }
            guard let next = clock.nextDeadline, next <= target else { break }
            await clock.advance(to: next)
        }
        await clock.advance(to: target)
        await clock.settle { self.rendered }
    }
}

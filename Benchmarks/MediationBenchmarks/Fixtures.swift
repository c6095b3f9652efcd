import Mediation
import MediationTestKit

/// Counts every benchmark ad's life: loaded, shown, released (and releases of shown ads or
/// second releases, which must stay zero).
final class AdLedger: Sendable {
    struct Counts: Equatable {
        var loaded = 0
        var shown = 0
        var released = 0
        var releasedTwice = 0
        var releasedAfterShown = 0
        var shownTwice = 0
    }

    private let counts = Locked(Counts())

    var snapshot: Counts { counts.withLock { $0 } }

    func recordLoad() { counts.withLock { $0.loaded += 1 } }
    func recordShown(first: Bool, released: Bool) {
        counts.withLock {
            if first { $0.shown += 1 } else { $0.shownTwice += 1 }
            if released { $0.releasedAfterShown += 1 }
        }
    }
    func recordRelease(first: Bool, shown: Bool) {
        counts.withLock {
            if first { $0.released += 1 } else { $0.releasedTwice += 1 }
            if shown { $0.releasedAfterShown += 1 }
        }
    }

    /// The accounting rule: every loaded ad was shown or released, exactly once, never both.
    /// Ads still held (`outstanding`, e.g. placements' current unshown ads) are counted apart.
    func violations(outstanding: Int = 0) -> [String] {
        let counts = snapshot
        var problems: [String] = []
        if counts.shown + counts.released + outstanding != counts.loaded {
            problems.append("loaded \(counts.loaded) != shown \(counts.shown) + released \(counts.released) + still held \(outstanding) (unaccounted: \(counts.loaded - counts.shown - counts.released - outstanding))")
        }
        if counts.releasedTwice > 0 { problems.append("\(counts.releasedTwice) ads released more than once") }
        if counts.releasedAfterShown > 0 { problems.append("\(counts.releasedAfterShown) shown ads also released") }
        if counts.shownTwice > 0 { problems.append("\(counts.shownTwice) ads shown more than once") }
        return problems
    }
}

/// A benchmark ad that tracks its own life: counts its load, impression and release in an
/// ``AdLedger``, and flags a second release, a second impression, or a shown ad released.
final class BenchAd: LoadedAd {
    private struct State {
        var shown = false
        var released = false
    }

    let network: String
    let format: AdFormat
    let size: AdSize
    private let ledger: AdLedger
    private let state = Locked(State())

    init(network: String, format: AdFormat, size: AdSize = AdSize(width: 320, height: 50), ledger: AdLedger) {
        self.network = network
        self.id = network
        self.format = format
        self.size = size
        self.ledger = ledger
        ledger.recordLoad()
    }

    /// A stored id, as every real ad keeps the one its network gave it (the engine reads it
    /// into each trace line). Not unique: nothing here tells ads apart by id.
    let id: String
    var creativeID: String { network }

    func releaseResources() {
        let (first, shown) = state.withLock { state -> (Bool, Bool) in
            defer { state.released = true }
            return (!state.released, state.shown)
        }
        ledger.recordRelease(first: first, shown: shown)
    }

    func recordImpression() {
        let (first, released) = state.withLock { state -> (Bool, Bool) in
            defer { state.shown = true }
            return (!state.shown, state.released)
        }
        ledger.recordShown(first: first, released: released)
    }
}

/// A light benchmark ad for the throughput figures: counts its load and each release in an
/// ``AdLedger`` and holds no state of its own (no per-ad lock, so the floor stays a floor).
/// A second release shows up as more releases than loads.
final class CountingAd: LoadedAd {
    let network: String
    let format: AdFormat
    let size = AdSize(width: 320, height: 50)
    private let ledger: AdLedger

    init(network: String, format: AdFormat, ledger: AdLedger) {
        self.network = network
        self.id = network
        self.format = format
        self.ledger = ledger
        ledger.recordLoad()
    }

    /// A stored id, as every real ad keeps the one its network gave it.
    let id: String
    var creativeID: String { network }

    func releaseResources() {
        ledger.recordRelease(first: true, shown: false)
    }
}

/// A source that answers at once: a bid at `price` (bidders) or a fill (fixed price). It hears
/// its auction notices (the default of a third-party adapter) unless `hearsNotices` is `false`
/// (as the built-in networks' adapters).
struct InstantAdapter: AdNetworkAdapter {
    let network: String
    let pricing: LineItem.Pricing
    let price: Double
    let ledger: AdLedger
    var hearsNotices = true

    var receivesAuctionNotices: Bool { hearsNotices }

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        let ad = CountingAd(network: network, format: request.format, ledger: ledger)
        return pricing == .bidder ? .bid(ad, eCPM: price) : .fill(ad)
    }
}

/// A source that never answers within the auction and ignores cancellation: its calls are
/// parked until ``releaseAll()`` answers them (no fill), after the measurement.
final class HungAdapter: AdNetworkAdapter {
    let network = "hung"
    let pricing = LineItem.Pricing.fixedPrice
    private let parked = Locked<[CheckedContinuation<AdLoadResult, Never>]>([])

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        await withCheckedContinuation { continuation in
            parked.withLock { $0.append(continuation) }
        }
    }

    /// Answers every parked call with a no-fill; returns how many there were.
    @discardableResult
    func releaseAll() -> Int {
        let continuations = parked.withLock { parked in
            defer { parked.removeAll() }
            return parked
        }
        for continuation in continuations { continuation.resume(returning: .noFill(.noInventory)) }
        return continuations.count
    }
}

/// One placement of a ``MediationEngine`` built over adapters made beforehand: every
/// benchmark auction runs through the engine, the one way a host runs them.
struct BenchAuction: Sendable {
    /// The engine (its one placement is ``placementID``); `nil` if it could not be built.
    let engine: MediationEngine?
    /// The placement the auctions run for.
    let placementID: String
    /// The sources' adapters, in config order.
    let adapters: [any AdNetworkAdapter]
    /// The configured eCPM of each fixed-price source, `nil` for bidders.
    let fixedPrices: [Double?]
    /// Late answers the engine reported.
    let lateAnswers: Locked<Int>

    /// Builds the engine: each line item's network is its own id, served by its adapter, with
    /// network health (engine rule R24) as `health` says (default: on, as shipped).
    init(placement: MediationConfiguration.Placement, adapters: [any AdNetworkAdapter], clock: any MediationClock = SystemClock(), health: NetworkHealthSettings = .standard) {
        var networks = PrebuiltNetworks()
        for (lineItem, adapter) in zip(placement.sources, adapters) {
            networks.add(lineItem.network, pricing: lineItem.pricing, adapter: adapter, health: health)
        }
        let lateAnswers = Locked(0)
        engine = try? MediationEngine(
            configuration: networks.configuration(placements: [placement]),
            registry: networks.registry,
            environment: MediationEnvironment(clock: clock),
            onEvent: { event in
                if case .lateAnswer = event { lateAnswers.withLock { $0 += 1 } }
            }
        )
        placementID = placement.id
        self.adapters = adapters
        fixedPrices = placement.sources.map { $0.pricing == .fixedPrice ? $0.eCPM : nil }
        self.lateAnswers = lateAnswers
    }

    /// Runs one auction; `nil` only if the engine could not be built.
    func run() async -> MediationEngine.AuctionOutcome? {
        await engine?.runAuction(placementID: placementID)
    }
}

/// Builds `count` instant sources: even positions bid, odd positions fill at a fixed price;
/// prices rise with the position (1.00, 1.01, …), so the last one wins and every source must
/// answer before the outcome is decided.
func instantSources(count: Int, format: AdFormat, ledger: AdLedger, hearNotices: Bool = true) -> (lineItems: [LineItem], adapters: [any AdNetworkAdapter]) {
    var lineItems: [LineItem] = []
    var adapters: [any AdNetworkAdapter] = []
    for index in 0..<count {
        let price = 1.0 + Double(index) / 100
        let id = "src\(index)"
        let lineItem: LineItem = index % 2 == 0
            ? .bidder(id, adUnitID: "unit-\(index)")
            : .fixedPrice(id, adUnitID: "unit-\(index)", eCPM: price)
        lineItems.append(lineItem)
        adapters.append(InstantAdapter(network: id, pricing: lineItem.pricing, price: price, ledger: ledger, hearsNotices: hearNotices))
    }
    return (lineItems, adapters)
}

/// An auction over `count` instant sources on the system clock (3000 ms deadline), whose
/// adapters hear their notices unless `hearNotices` is `false`.
func instantAuction(count: Int, ledger: AdLedger, clock: any MediationClock = SystemClock(), hearNotices: Bool = true) -> BenchAuction {
    let (lineItems, adapters) = instantSources(count: count, format: .interstitial, ledger: ledger, hearNotices: hearNotices)
    let placement = MediationConfiguration.Placement(id: "bench_interstitial", format: .interstitial, sources: lineItems)
    return BenchAuction(placement: placement, adapters: adapters, clock: clock)
}

/// The request the bare race uses.
let benchRequest = AdRequest(placementID: "bench_interstitial", format: .interstitial)

/// The floor: a bare task-group race of the same closures, no engine. Every answer is
/// awaited (an outstanding bidder could always still win), the best eCPM is kept (ties to the
/// earlier answer), the others are released. `fixedPrices[i]` prices a fill from source `i`.
func bareRace(_ adapters: [any AdNetworkAdapter], fixedPrices: [Double?], request: AdRequest) async -> (any LoadedAd)? {
    await withTaskGroup(of: (Int, AdLoadResult).self) { group in
        for (index, adapter) in adapters.enumerated() {
            group.addTask { (index, await adapter.loadAd(for: request)) }
        }
        var best: (ad: any LoadedAd, price: Double)?
        for await (index, result) in group {
            let candidate: (any LoadedAd, Double)?
            switch result {
            case .bid(let ad, let price): candidate = (ad, price)
            case .fill(let ad): candidate = fixedPrices[index].map { (ad, $0) }
            case .noFill, .failure: candidate = nil
            }
            guard let (ad, price) = candidate else {
                result.ad?.releaseResources()
                continue
            }
            if let current = best, current.price >= price {
                ad.releaseResources()
            } else {
                best?.ad.releaseResources()
                best = (ad, price)
            }
        }
        return best?.ad
    }
}

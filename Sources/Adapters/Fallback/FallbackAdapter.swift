import Mediation

/// A stub of an AdMob-like network, meant as the last source of a waterfall: no HTTP, every
/// source fixed-price (its eCPM is the line item's), answers after a configured latency with a
/// fill at a configured rate. Everything random is drawn from a seeded generator (the engine's
/// seed, the `seed` option, the ad unit id and the request number), so runs repeat.
///
/// Per request, in order:
/// 1. Draw the fill, the latency (``FallbackOptions/latency`` plus up to
///    ``FallbackOptions/latencyJitter``) and the creative.
/// 2. Wait the latency on the injected clock. Cancellation answers at once with a
///    `cancelled` failure. The adapter keeps no timer of its own: the engine enforces the
///    source's one limit (the network's `timeout_ms` among them, R3a) and cancels it there.
/// 3. No fill: `.noFill(noFill)` (AdMob's "No fill", error code 3).
/// 4. Fill: an anchored banner has the anchored adaptive size (``AnchoredAdaptiveSizing``: the
///    slot's full width, `floor(width x 50 / 320)` pt high within 50...90 pt and 15% of the
///    screen), the size Qartvelo gives the same slot (Qartvelo document: the two networks'
///    heights match for the same width); an inline banner is an inline adaptive banner for the
///    same width and max height (``inlineAdaptiveSize(_:slot:screen:)``); any other ad is the
///    biggest (by area) of the format's sizes that fits the slot and the screen, or, when none
///    fits, the smallest (which the auction rejects with loss reason 203, R8).
package struct FallbackAdapter: AdNetworkAdapter {
    /// The network id as the config names it.
    public let network: String
    /// The options.
    public let options: FallbackOptions

    private let clock: any MediationClock
    private let seed: UInt64
    private let requestCounts = Locked<[String: UInt64]>([:])

    /// The no-fill reason: code `noFill`, "no ad to show" (AdMob error code 3, "No fill").
    package static let noFillReason = AdLoadResult.NoFillReason(code: "noFill", message: "no ad to show")

    /// Creates an adapter.
    /// - Parameters:
    ///   - network: the network id.
    ///   - options: fill rate, latency, seed, sizes.
    ///   - clock: the engine's clock, on which the latency passes.
    ///   - seed: the engine's seed.
    public init(network: String, options: FallbackOptions = FallbackOptions(), clock: any MediationClock, seed: UInt64) {
        self.network = network
        self.options = options
        self.clock = clock
        self.seed = seed
    }

    /// `false`: the fallback has no one to tell, so auctions build none for it.
    public var receivesAuctionNotices: Bool { false }

    /// Loads one ad (see the type's documentation for the steps).
    /// - Parameter request: the request; its ad unit id, format, slot and screen are used.
    /// - Returns: a fill, a no-fill, or a `cancelled` failure.
    public func loadAd(for request: AdRequest) async -> AdLoadResult {
        let number = requestCounts.withLock { counts -> UInt64 in
            counts[request.adUnitID, default: 0] += 1
            return counts[request.adUnitID, default: 1]
        }
        let unitHash = SeededRandom.stableHash(request.adUnitID)
        var random = SeededRandom(mixing: [seed, options.seed, unitHash, number])
        let fills = random.nextUnit() < options.fillRate
        let jitter = options.latencyJitter * random.nextUnit()
        let creative = Int(random.next() % UInt64(max(1, options.creatives))) + 1

        let latency = options.latency + jitter
        if latency > .zero {
            do {
                try await clock.sleep(until: clock.now + latency)
            } catch {
                return .failure(AdLoadResult.Error(kind: .cancelled, message: "request cancelled"))
            }
        }
        if Task.isCancelled {
            return .failure(AdLoadResult.Error(kind: .cancelled, message: "request cancelled"))
        }
        guard fills else { return .noFill(FallbackAdapter.noFillReason) }

        let size = FallbackAdapter.size(for: request, candidates: options.sizes(for: request.format))
        let unit = String(unitHash >> 32, radix: 16)
        let ad = FallbackAd(
            id: "\(network):\(request.adUnitID):\(number)",
            creativeID: "fallback-\(unit)-\(creative)",
            network: network,
            format: request.format,
            size: size
        )
        return .fill(ad)
    }

    /// The size of a fill for `request` (see the type's step 4).
    /// - Parameters:
    ///   - request: the request (format, banner sizing, slot, screen).
    ///   - candidates: the sizes the network serves for the format.
    /// - Returns: the size in points.
    package static func size(for request: AdRequest, candidates: [FallbackCreativeSize]) -> AdSize {
        guard request.format == .banner else { return chooseSize(candidates, slot: request.slot, screen: request.screen) }
        switch request.bannerSizing {
        case .anchored?:
            return AnchoredAdaptiveSizing.slotSize(for: request.slot, screen: request.screen)
        case .inline?:
            return inlineAdaptiveSize(candidates, slot: request.slot, screen: request.screen)
        case nil:
            return chooseSize(candidates, slot: request.slot, screen: request.screen)
        }
    }

    /// An inline adaptive banner for the slot's width and max height (Qartvelo document: the
    /// fallback of an inline banner is an inline adaptive banner for the same width and max
    /// height): as wide as the slot (its `maxWidth`, else the screen's width), and as tall as
    /// the tallest of `candidates` scaled to that width that stays within the max height (the
    /// slot's `maxHeight`, else 250 pt), in whole points; when every candidate is taller, the
    /// max height.
    /// - Parameters:
    ///   - candidates: the sizes the network serves for banners (their proportions).
    ///   - slot: the slot's bounds in points.
    ///   - screen: the screen.
    /// - Returns: the size in points.
    package static func inlineAdaptiveSize(_ candidates: [FallbackCreativeSize], slot: SlotSize, screen: AdRequest.Device.Screen) -> AdSize {
        let width = AnchoredAdaptiveSizing.slotWidth(for: slot, screen: screen)
        let maxHeight = slot.maxHeight ?? QartveloInlineSizing.defaultMaxHeight
        var best: Double?
        for candidate in candidates.map({ $0.resolved(on: screen) }) where candidate.width > 0 && candidate.height > 0 {
            let height = (candidate.height * width / candidate.width).rounded(.down)
            guard height.isFinite, height > 0, height <= maxHeight else { continue }
            best = max(best ?? 0, height)
        }
        return AdSize(width: width, height: best ?? maxHeight)
    }

    /// The biggest of `candidates` (by area, the first on ties) that fits both the slot and
    /// the screen; when none fits, the smallest.
    /// - Parameters:
    ///   - candidates: the sizes the network serves for the format.
    ///   - slot: the slot's bounds in points.
    ///   - screen: the screen, for `screen` sizes and as an outer bound.
    /// - Returns: the chosen size in points.
    package static func chooseSize(_ candidates: [FallbackCreativeSize], slot: SlotSize, screen: AdRequest.Device.Screen) -> AdSize {
        let sizes = candidates.map { $0.resolved(on: screen) }
        let bound = SlotSize(
            maxWidth: min(slot.maxWidth ?? .infinity, screen.width),
            maxHeight: min(slot.maxHeight ?? .infinity, screen.height)
        )
        let area = { (size: AdSize) in size.width * size.height }
        var best: AdSize?
        for size in sizes where bound.fits(size) {
            if let current = best, area(current) >= area(size) { continue }
            best = size
        }
        if let best { return best }
        var smallest: AdSize?
        for size in sizes {
            if let current = smallest, area(current) <= area(size) { continue }
            smallest = size
        }
        return smallest ?? AdSize(width: screen.width, height: screen.height)
    }
}

/// Builds ``FallbackAdapter``s from the configuration: kind `"fallback"`, fixed price.
/// The endpoint must be `"sandbox"` (the stub has no server); the only credential accepted is
/// `app_id` (kept for AdMob-like configs, unused).
package struct FallbackAdapterFactory: NetworkAdapterFactory {
    /// `"fallback"`.
    public var kind: String { "fallback" }
    /// Fixed price: each source needs an `ecpm`.
    public var pricing: LineItem.Pricing { .fixedPrice }

    /// Creates the factory.
    public init() {}

    /// Builds the adapter.
    /// - Throws: ``ConfigurationError`` for a URL endpoint, an unknown credential or
    ///   a bad option (the option rules are in ``FallbackOptions``).
    public func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        if case .url = network.endpoint {
            throw ConfigurationError(code: .invalidValue, path: network.path(of: "endpoint"), message: "the fallback network has no server; use \"sandbox\"")
        }
        _ = try NetworkSettings(network, kind: kind, credentials: ["app_id"], options: FallbackOptions.keys)
        let options = try FallbackOptions(parsing: network.options, networkID: network.id)
        return FallbackAdapter(network: network.id, options: options, clock: environment.clock, seed: environment.seed)
    }

    /// Whether `lineItem` can ever fill (engine rule R19): the fallback serves every format, in
    /// the sizes its `creative_sizes` (or the defaults) list for it; when none of them fits the
    /// slot, every fill would be rejected (203). A `"screen"` size is taken to fit (the screen
    /// is the host's). Options that cannot be parsed are reported by `makeAdapter`.
    /// - Returns: an `unfillable` error at the source's path, or valid.
    public func validate(_ lineItem: LineItem, in placement: MediationConfiguration.Placement, network: MediationConfiguration.Network) -> LineItem.Validation {
        guard let options = try? FallbackOptions(parsing: network.options, networkID: network.id) else { return .valid }
        let sizes = options.sizes(for: placement.format)
        let fits = sizes.contains { size in
            switch size {
            case .screen: true
            case .points(let points): placement.slot.fits(points)
            }
        }
        guard fits else {
            return .unfillable(at: placement.path(of: lineItem), "none of the fallback's \(placement.format) sizes (\(sizes.map(\.description).joined(separator: ", "))) fits the slot")
        }
        return .valid
    }
}

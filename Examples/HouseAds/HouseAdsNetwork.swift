// A third-party network, defined outside the Adapters library: the app's own house ads
// (cross-promotion), sold directly, so fixed-price. It shows what a host writes to add a
// network: its adapter, its ad, its factory, and one registration:
//
//     let registry = NetworkRegistry.standard.registering(HouseAdsFactory())
//
// It depends on the Mediation library alone, and is a library of its own (`HouseAds`) so that
// the example host and the tests both use this one file.

import Mediation

/// A house ad: the app promoting its own Pro plan. Holds nothing to release.
public final class HouseAd: LoadedAd {
    /// The ad's id, `<network>-<n>` (the n-th request).
    public let id: String
    /// The house creative's id.
    public let creativeID: String
    /// The network id it came from.
    public let network: String
    /// Its format, the request's.
    public let format: AdFormat
    /// Its size in points.
    public let size: AdSize

    init(id: String, creativeID: String, network: String, format: AdFormat, size: AdSize) {
        self.id = id
        self.creativeID = creativeID
        self.network = network
        self.format = format
        self.size = size
    }

    /// Nothing to release: the creative is the app's own.
    public func releaseResources() {}
}

/// Answers every request at once with the house creative, sized to the slot (the screen for
/// full-screen formats). A network of the host's own: no HTTP, nothing random. What each auction
/// decided for its request (its own outcome and the price it had to beat, nothing about the
/// other sources) goes to the factory's `onNotice`, where a host keeps its house-ads reporting.
public struct HouseAdsAdapter: AdNetworkAdapter {
    /// The network id of the config.
    public let network: String
    /// The house creative's id.
    public let creative: String
    private let counter = RequestCounter()
    private let onNotice: @Sendable (AuctionNotice) -> Void

    init(network: String, creative: String, onNotice: @escaping @Sendable (AuctionNotice) -> Void) {
        self.network = network
        self.creative = creative
        self.onNotice = onNotice
    }

    /// Fills at once with the house creative.
    public func loadAd(for request: AdRequest) async -> AdLoadResult {
        let number = await counter.next()
        let size: AdSize
        switch request.format {
        case .banner, .native:
            size = AdSize(width: min(request.slot.maxWidth ?? 320, request.screen.width), height: min(request.slot.maxHeight ?? 50, 50))
        case .interstitial, .appOpen, .rewarded:
            size = AdSize(width: request.screen.width, height: request.screen.height)
        }
        return .fill(HouseAd(id: "\(network)-\(number)", creativeID: creative, network: network, format: request.format, size: size))
    }
    /// Hands the auction's notice about this network's request to the reporting hook.
    public func auctionDidEnd(_ notice: AuctionNotice) {
        onNotice(notice)
    }

    /// What `mediate networks` shows for this network (the optional status hook).
    public func status(for template: RequestTemplate) async -> NetworkStatus {
        NetworkStatus(version: "1.0", mode: "in-process house creative \(creative), no HTTP", initialization: "ready", notes: ["sends nothing; no user data leaves the device"])
    }
}

/// Numbers the house ads.
actor RequestCounter {
    private var count = 0

    func next() -> Int {
        count += 1
        return count
    }
}

/// Builds ``HouseAdsAdapter`` from a config network with `"adapter": "house_ads"`: fixed-price,
/// the endpoint must be `sandbox` (there is no server), one option `creative` (a string).
public struct HouseAdsFactory: NetworkAdapterFactory {
    /// The config's `adapter` value, `"house_ads"`.
    public let kind = "house_ads"
    /// House ads are sold directly: fixed-price.
    public let pricing = LineItem.Pricing.fixedPrice
    private let onNotice: @Sendable (AuctionNotice) -> Void

    /// A factory whose adapters hand each auction notice to `onNotice` (by default, nowhere).
    /// - Parameter onNotice: called once per auction a house-ads line item was asked in, from
    ///   the engine's task; must return quickly.
    public init(onNotice: @escaping @Sendable (AuctionNotice) -> Void = { _ in }) {
        self.onNotice = onNotice
    }

    /// Builds the adapter of a `house_ads` network.
    /// - Throws: ``ConfigurationError`` for an unknown option or a `creative` that is not a
    ///   non-empty string, at its JSON path.
    public func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        let settings = try NetworkSettings(network, kind: kind, credentials: [], options: ["creative"])
        let creative = try settings.string("creative", nonEmpty: true) ?? "house-pro-upgrade"
        return HouseAdsAdapter(network: network.id, creative: creative, onNotice: onNotice)
    }
}

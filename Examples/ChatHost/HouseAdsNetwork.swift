// A third-party network, defined outside the Adapters library: the app's own house ads
// (cross-promotion), sold directly, so fixed-price. It shows what a host writes to add a
// network: its adapter, its ad, its factory, and one registration:
//
//     let registry = NetworkRegistry.standard.registering(HouseAdsFactory())
//
// It depends on the Mediation library alone.

import Mediation

/// A house ad: the app promoting its own Pro plan. Holds nothing to release.
final class HouseAd: LoadedAd {
    let id: String
    let creativeID: String
    let network: String
    let format: AdFormat
    let size: AdSize

    init(id: String, creativeID: String, network: String, format: AdFormat, size: AdSize) {
        self.id = id
        self.creativeID = creativeID
        self.network = network
        self.format = format
        self.size = size
    }

    func releaseResources() {}
}

/// Answers every request at once with the house creative, sized to the slot (the screen for
/// full-screen formats). A network of the host's own: no HTTP, nothing random.
struct HouseAdsAdapter: AdNetworkAdapter {
    let network: String
    let creative: String
    private let counter = RequestCounter()

    init(network: String, creative: String) {
        self.network = network
        self.creative = creative
    }

    func loadAd(for request: AdRequest) async -> AdLoadResult {
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
    /// What `mediate networks` shows for this network (the optional status hook).
    func status(for template: RequestTemplate) async -> NetworkStatus {
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
struct HouseAdsFactory: NetworkAdapterFactory {
    let kind = "house_ads"
    let pricing = AdSourcePricing.fixedPrice

    func makeAdapter(for network: NetworkConfiguration, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        for key in network.options.keys.sorted() where key != "creative" {
            throw ConfigurationError(code: .unknownKey, path: "networks.\(network.id).options.\(key)", message: "unknown option for house_ads; the only one is \"creative\"")
        }
        var creative = "house-pro-upgrade"
        if let value = network.options["creative"] {
            guard let text = value.stringValue, !text.isEmpty else {
                throw ConfigurationError(code: .wrongType, path: "networks.\(network.id).options.creative", message: "must be a non-empty string")
            }
            creative = text
        }
        return HouseAdsAdapter(network: network.id, creative: creative)
    }
}

import Adapters
import Foundation
import Mediation
import Testing
@testable import MediationCLI

// A third-party network as a host writes it, against the Mediation library alone: its ad, its
// adapter and its factory, registered once with `NetworkRegistry.standard.registering(_:)`.

/// A house ad (the app promoting itself); counts its releases, and the reads of its creative
/// after it was released (a host must not touch a released ad).
private final class HouseAd: LoadedAd {
    let id: String
    let network: String
    let format: AdFormat
    let size: AdSize
    private let campaign: String
    private let counts = Locked((releases: 0, readsAfterRelease: 0))

    init(id: String, creativeID: String, network: String, format: AdFormat, size: AdSize) {
        self.id = id
        self.campaign = creativeID
        self.network = network
        self.format = format
        self.size = size
    }

    var creativeID: String {
        counts.withLock { if $0.releases > 0 { $0.readsAfterRelease += 1 } }
        return campaign
    }

    func releaseResources() {
        counts.withLock { $0.releases += 1 }
    }

    var releaseCount: Int { counts.withLock { $0.releases } }
    var readsAfterRelease: Int { counts.withLock { $0.readsAfterRelease } }
}

/// Fills every request at once with the campaign's creative, sized to the slot; keeps its ads.
private struct HouseAdsAdapter: AdNetworkAdapter {
    let network: String
    let campaign: String
    private let ads = Locked<[HouseAd]>([])

    init(network: String, campaign: String) {
        self.network = network
        self.campaign = campaign
    }

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        let size = AdSize(width: min(request.slot.maxWidth ?? 320, request.screen.width), height: min(request.slot.maxHeight ?? 50, 50))
        let ad = ads.withLock { ads in
            let ad = HouseAd(id: "\(network)-\(ads.count + 1)", creativeID: campaign, network: network, format: request.format, size: size)
            ads.append(ad)
            return ad
        }
        return .fill(ad)
    }

    var loadedAds: [HouseAd] { ads.withLock { $0 } }
}

/// Kind `house_ads`, fixed price, one required option `campaign` (a non-empty string).
/// Keeps the adapters it built.
private final class HouseAdsFactory: NetworkAdapterFactory {
    let kind = "house_ads"
    let pricing = LineItem.Pricing.fixedPrice
    private let built = Locked<[HouseAdsAdapter]>([])

    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        for key in network.options.keys.sorted() where key != "campaign" {
            throw ConfigurationError(code: .unknownKey, path: "networks.\(network.id).options.\(key)", message: "unknown option for house_ads; the only one is \"campaign\"")
        }
        guard let campaign = network.options["campaign"]?.stringValue, !campaign.isEmpty else {
            throw ConfigurationError(code: .wrongType, path: "networks.\(network.id).options.campaign", message: "must be a non-empty string")
        }
        let adapter = HouseAdsAdapter(network: network.id, campaign: campaign)
        built.withLock { $0.append(adapter) }
        return adapter
    }

    var adapters: [HouseAdsAdapter] { built.withLock { $0 } }
}

@Suite("mediate with a host's own network kind")
struct ThirdPartyNetworkTests {
    /// A config whose `house` network is of the host's kind, next to a standard one.
    static let config = """
    {
      "networks": {
        "house": { "adapter": "house_ads", "endpoint": "sandbox", "options": { "campaign": "pro-upgrade" } },
        "backfill": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1, "latency_ms": 0 } }
      },
      "placements": {
        "chat_strip": {
          "format": "native", "slot": { "max_height": 100 },
          "sources": [
            { "id": "house_promo", "network": "house", "ad_unit_id": "promo", "ecpm": 5 },
            { "id": "backfill", "network": "backfill", "ad_unit_id": "b", "ecpm": 0.5 }
          ]
        }
      }
    }
    """

    /// Writes `text` as `house.json` in `workspace` and returns its absolute path.
    private func writeConfig(_ text: String = config, in workspace: Workspace) throws -> String {
        try workspace.write(text, to: "house.json")
        return workspace.directory.appendingPathComponent("house.json").path
    }

    @Test func validateAcceptsTheHostsKindAndTheStandardRegistryRejectsIt() async throws {
        let workspace = try Workspace()
        let path = try writeConfig(in: workspace)
        let factory = HouseAdsFactory()

        let withHouse = await workspace.run(["validate", "--config", path], registry: NetworkRegistry.standard.registering(factory))
        #expect(withHouse.code == .success, "\(withHouse.error)")
        #expect(withHouse.output == "\(path): valid (2 networks, 1 placement: chat_strip)\n")
        // The only line on standard error says which networks answer from their sandbox (R19).
        #expect(withHouse.error == "mediate: warning: sandbox endpoints: house, backfill answer from their in-process simulated servers, not real ad servers (sandbox_endpoint)\n")
        #expect(factory.adapters.count == 1)

        let standard = await workspace.run(["validate", "--config", path], registry: .standard)
        #expect(standard.code == .dataError)
        #expect(standard.code.rawValue == 65)
        #expect(standard.error.hasPrefix("mediate: invalid config \(path): networks.house.adapter: "), "\(standard.error)")
        #expect(standard.error.contains("house_ads"))
        #expect(standard.error.filter { $0 == "\n" }.count == 1)
        #expect(standard.output.isEmpty)
    }

    /// `Mediate.main` is what a host's own `mediate` calls; it writes to the process's real
    /// standard output and error, so only the exit statuses are checked here.
    @Test func mediateMainBuildsWithTheRegistryItIsGiven() async throws {
        let workspace = try Workspace()
        let path = try writeConfig(in: workspace)
        let factory = HouseAdsFactory()
        #expect(await Mediate.main(arguments: ["validate", "--config", path], registry: NetworkRegistry.standard.registering(factory)) == 0)
        #expect(factory.adapters.count == 1)
        #expect(await Mediate.main(arguments: ["validate", "--config", path], registry: .standard) == 65)
        extendLifetime(workspace) // its directory holds the config until here
    }

    @Test func theHostsNetworkTakesPartInTheOneShotAuction() async throws {
        let workspace = try Workspace()
        let path = try writeConfig(in: workspace)
        let factory = HouseAdsFactory()
        let result = await workspace.run(["--placement", "chat_strip", "--config", path, "--json"], registry: NetworkRegistry.standard.registering(factory))
        #expect(result.code == .success, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let winner = try #require(object["winner"] as? [String: Any], "\(result.output)")
        #expect(winner["network"] as? String == "house")
        #expect(winner["line_item"] as? String == "house_promo")
        #expect(winner["creative_id"] as? String == "pro-upgrade")
        #expect(winner["ecpm"] as? Double == 5)
        let adapter = try #require(factory.adapters.first)
        #expect(factory.adapters.count == 1)
        // The CLI never shows the winner, so it gives the ad back, once (R7), after reading it.
        #expect(adapter.loadedAds.map(\.releaseCount) == [1])
        #expect(adapter.loadedAds.map(\.readsAfterRelease) == [0], "the report read the winner after releasing it")
    }

    @Test func theHumanReportReadsTheWinnerBeforeItIsReleased() async throws {
        let workspace = try Workspace()
        let path = try writeConfig(in: workspace)
        let factory = HouseAdsFactory()
        let result = await workspace.run(["--placement", "chat_strip", "--config", path], registry: NetworkRegistry.standard.registering(factory))
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output.contains("Winner: house / house_promo, eCPM 5.00 USD, creative pro-upgrade"), "\(result.output)")
        let adapter = try #require(factory.adapters.first)
        #expect(adapter.loadedAds.map(\.releaseCount) == [1])
        #expect(adapter.loadedAds.map(\.readsAfterRelease) == [0], "the report read the winner after releasing it")
    }

    @Test func theHostsFactoryNamesThePathOfABadOption() async throws {
        let workspace = try Workspace()
        let path = try writeConfig(Self.config.replacingOccurrences(of: #""campaign": "pro-upgrade""#, with: #""campaign": 7"#), in: workspace)
        let factory = HouseAdsFactory()
        for arguments in [["validate", "--config", path], ["--placement", "chat_strip", "--config", path]] {
            let result = await workspace.run(arguments, registry: NetworkRegistry.standard.registering(factory))
            #expect(result.code == .dataError)
            #expect(result.error.hasPrefix("mediate: invalid config \(path): networks.house.options.campaign: must be a non-empty string"), "\(result.error)")
            #expect(result.output.isEmpty)
        }
        #expect(factory.adapters.isEmpty)
    }
}

/// One network of a built configuration: its configuration and the adapter its factory built.
/// A class, so that the engine can tell an adapter kept across a configuration change (the same
/// handle) from one built anew.
final class NetworkHandle: Sendable {
    let network: MediationConfiguration.Network
    let adapter: any AdNetworkAdapter

    init(network: MediationConfiguration.Network, adapter: any AdNetworkAdapter) {
        self.network = network
        self.adapter = adapter
    }
}

/// One placement's auction runner and configuration, built once per configuration, and the
/// generation of the snapshot it belongs to; with the experiments that name the placement and,
/// per variant that overrides it, the runner of the placement under that variant.
final class PlacementEntry: Sendable {
    let auction: Auction
    let configuration: MediationConfiguration.Placement
    /// The ``EngineSnapshot/generation`` that built it.
    let generation: UInt64
    /// The configuration's experiments that name this placement, in file order.
    let experiments: [MediationConfiguration.Experiment]
    /// Per ``ExperimentRuntime/variantKey(experimentID:variantID:)``, the runner of the placement
    /// under that variant (its override applied after the segment's).
    let variants: [String: PlacementEntry]

    init(auction: Auction, configuration: MediationConfiguration.Placement, generation: UInt64, experiments: [MediationConfiguration.Experiment] = [], variants: [String: PlacementEntry] = [:]) {
        self.auction = auction
        self.configuration = configuration
        self.generation = generation
        self.experiments = experiments
        self.variants = variants
    }
}

/// A configuration as the engine built it: one adapter per network (kept from the previous
/// snapshot when the network's configuration is unchanged), one auction runner per placement,
/// the warnings (R19). Immutable: a new configuration is a new snapshot (engine rule R22).
final class EngineSnapshot: Sendable {
    /// The configuration.
    let configuration: MediationConfiguration
    /// The `config_version` every auction under it runs as.
    let version: Int
    /// Where it came from.
    let source: MediationEngine.RemoteConfiguration.Update.Source
    /// Its number, from 1, one per configuration the engine built.
    let generation: UInt64
    /// The networks, in configuration order.
    let networks: [NetworkHandle]
    /// The placements' runners, by placement id.
    let entries: [String: PlacementEntry]
    /// What the configuration does that its author should know (R19).
    let warnings: [MediationConfiguration.Warning]
    /// The ids of the networks answered by their sandbox, in configuration order.
    let sandboxNetworks: [String]

    private init(configuration: MediationConfiguration, version: Int, source: MediationEngine.RemoteConfiguration.Update.Source, generation: UInt64, networks: [NetworkHandle], entries: [String: PlacementEntry], warnings: [MediationConfiguration.Warning], sandboxNetworks: [String]) {
        self.configuration = configuration
        self.version = version
        self.source = source
        self.generation = generation
        self.networks = networks
        self.entries = entries
        self.warnings = warnings
        self.sandboxNetworks = sandboxNetworks
    }

    /// The handle of network `id`.
    func network(_ id: String) -> NetworkHandle? {
        networks.first { $0.network.id == id }
    }

    /// Why a build failed, and the adapters it had built by then (nobody uses them: the caller
    /// shuts them down).
    struct BuildFailure: Error {
        var error: ConfigurationError
        var unusedAdapters: [any AdNetworkAdapter]
    }

    /// Builds `configuration`: an adapter per network by the factory its `adapter` kind names
    /// (reusing `previous`'s adapter of a network whose configuration is unchanged), then per
    /// line item its network's R19 check, then the placements' runners.
    /// - Parameters:
    ///   - configuration: the configuration.
    ///   - version: its `config_version`.
    ///   - source: where it came from.
    ///   - generation: the snapshot's number.
    ///   - registry: the network kinds.
    ///   - environment: what adapters are built with.
    ///   - previous: the snapshot in force, whose unchanged networks keep their adapters.
    ///   - health: the engine's network health, shared by every auction (R24).
    /// - Returns: the snapshot, or the first error (the JSON path) with the adapters built anew.
    static func build(
        _ configuration: MediationConfiguration,
        version: Int,
        source: MediationEngine.RemoteConfiguration.Update.Source,
        generation: UInt64,
        registry: NetworkRegistry,
        environment: MediationEnvironment,
        previous: EngineSnapshot?,
        health: NetworkHealthMonitor? = nil
    ) -> Result<EngineSnapshot, BuildFailure> {
        var built: [any AdNetworkAdapter] = []
        var networks: [NetworkHandle] = []
        var byNetwork: [String: (handle: NetworkHandle, factory: any NetworkAdapterFactory)] = [:]
        var warnings: [MediationConfiguration.Warning] = []
        var sandboxNetworks: [String] = []
        for network in configuration.networks {
            guard let factory = registry.factory(forKind: network.adapter) else {
                let known = registry.kinds.map { "\"\($0)\"" }.joined(separator: ", ")
                return .failure(BuildFailure(error: ConfigurationError(code: .unknownAdapter, path: network.path(of: "adapter"), message: "no network kind \(ConfigurationText.quoted(network.adapter)) is registered; known kinds: \(known)"), unusedAdapters: built))
            }
            let handle: NetworkHandle
            if let kept = previous?.network(network.id), kept.network == network {
                handle = kept
            } else {
                var adapter: any AdNetworkAdapter
                do {
                    adapter = try factory.makeAdapter(for: network, environment: environment)
                } catch {
                    return .failure(BuildFailure(error: error, unusedAdapters: built))
                }
                if let recorder = environment.exchangeRecorder {
                    // Debugging (`mediate --debug`): every loadAd call is recorded too.
                    adapter = RecordingAdapter(base: adapter, networkID: network.id, clock: environment.clock, recorder: recorder)
                }
                built.append(adapter)
                handle = NetworkHandle(network: network, adapter: adapter)
            }
            networks.append(handle)
            byNetwork[network.id] = (handle, factory)
            warnings += factory.warnings(for: network)
            if network.endpoint == .sandbox {
                sandboxNetworks.append(network.id)
                warnings.append(MediationConfiguration.Warning(code: .sandboxEndpoint, path: network.path(of: "endpoint"), message: "\"sandbox\": this network's in-process simulated server answers, not a real ad server"))
            }
        }
        var entries: [String: PlacementEntry] = [:]
        let lineItemHealth = configuration.networksWithLineItemHealth
        for placement in configuration.placements {
            warnings += SegmentReachability.warnings(for: placement)
            warnings += SegmentReachability.warnings(for: placement, in: configuration)
            var sources: [AuctionSource] = []
            sources.reserveCapacity(placement.sources.count)
            for (sourceIndex, lineItem) in placement.sources.enumerated() {
                guard let entry = byNetwork[lineItem.network] else {
                    return .failure(BuildFailure(error: ConfigurationError(code: .unknownNetwork, path: placement.path(ofSourceAt: sourceIndex) + ".network", message: "no network \(ConfigurationText.quoted(lineItem.network)) in this configuration"), unusedAdapters: built))
                }
                // R19: the network says whether this line item could ever fill its placement.
                let validation = entry.factory.validate(lineItem, in: placement, network: entry.handle.network)
                if let error = validation.errors.first { return .failure(BuildFailure(error: error, unusedAdapters: built)) }
                let servesInline = entry.factory.servesInlineBanners
                if !servesInline, let error = anchoredBannerNeverFits(lineItem, in: placement) { return .failure(BuildFailure(error: error, unusedAdapters: built)) }
                warnings += validation.warnings
                sources.append(AuctionSource(lineItem: lineItem, adapter: entry.handle.adapter, networkTimeout: entry.handle.network.timeout, usesSandbox: entry.handle.network.endpoint == .sandbox, servesInlineBanners: servesInline, health: entry.handle.network.health, lineItemHealth: lineItemHealth.contains(lineItem.network)))
            }
            var auction = Auction(placement: placement, sources: sources, clock: environment.clock, wallClock: { [wallClock = environment.wallClock] in WallClockTime(wallClock()) }, configVersion: version)
            auction.adapterWarnings = (environment.logger as? AttributingLogger)?.warnings
            auction.attributesSources = environment.exchangeRecorder != nil
            auction.health = health
            if let seed = environment.auctionIDSeed {
                // Distinct per placement and configuration, the same in every run.
                var hash: UInt64 = 0xCBF2_9CE4_8422_2325
                for byte in placement.id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
                auction.seedAuctionIDs(seed ^ hash ^ (UInt64(truncatingIfNeeded: version) << 32) ^ generation)
            }
            // Experiments: per variant that overrides this placement, the same runner (sharing its
            // timer and auction ids) with the variant's override applied after the segment's.
            let experiments = configuration.experiments.filter { experiment in experiment.variants.contains { $0.placements[placement.id] != nil } }
            var variants: [String: PlacementEntry] = [:]
            for experiment in experiments {
                for variant in experiment.variants {
                    guard let change = variant.placements[placement.id] else { continue }
                    var variantAuction = auction
                    variantAuction.variantOverride = change
                    variants[ExperimentRuntime.variantKey(experimentID: experiment.id, variantID: variant.id)] = PlacementEntry(auction: variantAuction, configuration: change.applied(to: placement), generation: generation)
                }
            }
            entries[placement.id] = PlacementEntry(auction: auction, configuration: placement, generation: generation, experiments: experiments, variants: variants)
        }
        return .success(EngineSnapshot(configuration: configuration, version: version, source: source, generation: generation, networks: networks, entries: entries, warnings: warnings, sandboxNetworks: sandboxNetworks))
    }
}

extension EngineSnapshot {
    /// R19 for a source whose network serves no inline banners: in an inline banner placement it
    /// is asked for its anchored adaptive banner, at least 50 pt high, which a max height under
    /// 50 pt can never take.
    /// - Returns: the `unfillable` error at the source's path, or `nil`.
    private static func anchoredBannerNeverFits(_ lineItem: LineItem, in placement: MediationConfiguration.Placement) -> ConfigurationError? {
        guard placement.format == .banner, placement.bannerSizing == .inline,
              let maxHeight = placement.slot.maxHeight, maxHeight + 0.5 < AnchoredAdaptiveSizing.minimumHeight else { return nil }
        return LineItem.Validation.unfillable(
            at: placement.path(of: lineItem),
            "network \(ConfigurationText.quoted(lineItem.network)) serves no inline banners: its anchored adaptive banner (at least \(Int(AnchoredAdaptiveSizing.minimumHeight)) pt high) never fits placement \(placement.id)'s max height of \(DisplayText.number(maxHeight)) pt"
        ).errors.first
    }
}

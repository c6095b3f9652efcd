import Mediation

/// The simulated stand-ins for a configuration's networks: one ``NetworkAdapterFactory`` per
/// configured network id, registered in place of the real kinds, so that the real
/// ``MediationEngine`` (its auction, its placements, its rules) runs against the market model.
///
/// Two things of the configuration are rewritten, neither of which the engine's rules read:
/// each network's `adapter` becomes `simulated.<network id>` (its own factory), and each line
/// item's `ad_unit_id` becomes `<placement id>/<line item id>`, so that the adapter knows which
/// line item a request is for even when two share an ad unit. Everything else (pricing, eCPMs,
/// floors, timeouts, deadlines, modes, currencies) is the configuration's own.
///
/// Each request's answer is drawn from the source's own random stream, keyed by the run's seed,
/// the auction's index and the line item id (``SplitMix64/forSource(seed:auction:lineItemKey:)``);
/// the auction's index travels in the request's host context (``context(forAuction:)``).
public struct SimulatedNetworks: Sendable {
    /// The host-context object type that carries the auction index.
    public static let auctionContextType = "mediation_simulation.auction"

    /// The configuration to build the engine from (rewritten as described above).
    public let configuration: MediationConfiguration
    /// The registry with one simulated kind per network.
    public let registry: NetworkRegistry
    /// The run's seed.
    public let seed: UInt64
    /// Whether the networks keep their health settings (`false`: health is off for all).
    public let health: Bool
    /// The simulated placements' sources, by placement id.
    let sourcesByPlacement: [String: [SourceModel]]
    /// In a market with countries, each auction's country draw and the request signals of each
    /// country (the default template with `device.country` set); `nil` for one country.
    let countrySignals: (draws: AuctionDraws, templates: [RequestTemplate])?

    /// Builds the simulated networks of `configuration`.
    /// - Parameters:
    ///   - configuration: the configuration, as loaded.
    ///   - market: how each network and line item answers.
    ///   - seed: the run's seed.
    ///   - placementIDs: the placements to simulate; their every line item must be in the
    ///     market. A request for another placement's line item fails with an error.
    ///   - health: `true` (the default) to keep each network's health settings (engine rule
    ///     R24: a failing network is paused, its health carried from one auction to the next of
    ///     one engine); `false` to turn health off for every network (the engine without it).
    /// - Throws: ``ConfigurationError`` with the market path of the first line item the market
    ///   does not describe (see ``Market/behaviour(of:)``). Overrides of line items the
    ///   configuration lacks are not looked for here: ``Market/check(against:placements:)`` does.
    public init(configuration: MediationConfiguration, market: Market, seed: UInt64, placements placementIDs: [String], health: Bool = true) throws(ConfigurationError) {
        try self.init(configuration: configuration, market: market, seed: seed, placements: placementIDs, recording: nil, health: health)
    }

    /// Builds the simulated networks; with a `recording` (a replay of one placement), each
    /// source answers auction `i` as recording `i` says when it holds an answer for it, and
    /// counts in `recording.counters` how many requests took a recorded answer and how many a
    /// market draw.
    init(configuration: MediationConfiguration, market: Market, seed: UInt64, placements placementIDs: [String], recording: ReplaySources?, health: Bool = true) throws(ConfigurationError) {
        var rewritten = configuration
        var sourcesByPlacement: [String: [SourceModel]] = [:]
        var sourcesByNetwork: [String: [String: SourceModel]] = [:]
        for placementIndex in rewritten.placements.indices {
            let placement = configuration.placements[placementIndex]
            for sourceIndex in placement.sources.indices {
                rewritten.placements[placementIndex].sources[sourceIndex].adUnitID = SimulatedNetworks.adUnitID(placement: placement.id, lineItem: placement.sources[sourceIndex].id)
            }
            guard placementIDs.contains(placement.id) else { continue }
            var models: [SourceModel] = []
            for (index, lineItem) in rewritten.placements[placementIndex].sources.enumerated() {
                var model = SourceModel(
                    index: index,
                    lineItem: lineItem,
                    behaviour: try market.behaviour(of: lineItem),
                    placement: placement,
                    networkTimeout: configuration.network(lineItem.network)?.timeout
                )
                model.outages = market.network(lineItem.network)?.outages ?? []
                model.tier = market.tierModel(of: lineItem)
                if let recording, recording.placementID == placement.id {
                    (model.recorded, model.recordedLines) = recording.answers(of: lineItem)
                }
                models.append(model)
                sourcesByNetwork[lineItem.network, default: [:]][lineItem.adUnitID] = model
            }
            sourcesByPlacement[placement.id] = models
        }
        var registry = NetworkRegistry()
        for index in rewritten.networks.indices {
            let network = configuration.networks[index]
            let kind = "simulated.\(network.id)"
            let pricing = configuration.placements.lazy.flatMap(\.sources).first { $0.network == network.id }?.pricing ?? .fixedPrice
            registry.register(SimulatedNetworkFactory(kind: kind, pricing: pricing, seed: seed, sources: sourcesByNetwork[network.id] ?? [:], counters: recording?.counters))
            // Network health (R24) as configured (or off): a shard's auctions run on one engine
            // and one clock's serial executor, so its health carries from one auction to the
            // next in the same order on every run.
            var simulated = MediationConfiguration.Network(id: network.id, adapter: kind, timeout: network.timeout, health: health ? network.health : .disabled)
            simulated.caps = network.caps // the engine's rules read them (`docs/caps.md`)
            rewritten.networks[index] = simulated
        }
        self.configuration = rewritten
        self.registry = registry
        self.seed = seed
        self.health = health
        self.sourcesByPlacement = sourcesByPlacement
        countrySignals = market.countries.map { countries in
            let templates = countries.countries.map { SimulatedNetworks.template(country: $0.code) }
            return (AuctionDraws(countries: countries), templates)
        }
    }

    /// The request signals of every auction of country `country` (ISO 3166-1 alpha-2, e.g.
    /// `"IN"`) in a market with countries: the default template (a phone, its OS and app
    /// versions, the default privacy flags) with the country as `device.country`. The one place
    /// they are made: the market's truth chooses each country's segment from the same signals.
    static func template(country: String) -> RequestTemplate {
        var template = RequestTemplate()
        template.device.country = country
        return template
    }

    /// The request signals of auction `index`: in a market with countries, the default template
    /// with the auction's country as `device.country` (so segments and networks see it);
    /// `nil` in a one-country market (the engine's own template).
    func signals(forAuction index: UInt64) -> RequestTemplate? {
        guard let countrySignals else { return nil }
        return countrySignals.templates[countrySignals.draws.draw(seed: seed, auction: index).country]
    }

    /// The host context of auction `index`: what ``MediationEngine/runAuction(placementID:context:)``
    /// (or the engine's host-context provider, for placements) must be given so that the
    /// simulated networks draw that auction's answers.
    /// - Parameter index: the auction's index in the run, from 0.
    /// - Returns: the context.
    public static func context(forAuction index: UInt64) -> AdRequest.Context {
        AdRequest.Context(contextObjects: [AdRequest.Context.Object(type: auctionContextType, description: String(index))])
    }

    /// What the simulated adapter of a line item answers in one auction: the draw it takes (the
    /// same function the adapter calls), for code that drives the simulated networks another
    /// way than the engine does (a benchmark's classic waterfall, say).
    /// - Parameters:
    ///   - placementID: a simulated placement.
    ///   - lineItemID: one of its line items.
    ///   - auction: the auction's index in the run.
    /// - Returns: the draw (answer, realised price in USD CPM micros, latency in whole
    ///   milliseconds), or `nil` for a line item not simulated here.
    public func answer(placementID: String, lineItemID: String, auction: UInt64) -> SourceDraw? {
        sourcesByPlacement[placementID]?.first { $0.lineItem.id == lineItemID }?.draw(seed: seed, auction: auction)
    }

    /// The host-context object type that carries a simulated user's value (users runs).
    static let userValueContextType = "mediation_simulation.user_value"

    /// The host context of auction `index` of a user whose value multiplies every price the
    /// networks answer (`docs/simulation.md`, "Users").
    static func context(forAuction index: UInt64, userValue: Double) -> AdRequest.Context {
        AdRequest.Context(contextObjects: [
            AdRequest.Context.Object(type: auctionContextType, description: String(index)),
            AdRequest.Context.Object(type: userValueContextType, description: String(userValue)),
        ])
    }

    /// The user value a request's context carries, if any.
    static func userValue(in context: AdRequest.Context) -> Double? {
        context.contextObjects.first { $0.type == userValueContextType }.flatMap { Double($0.description) }
    }

    /// The auction index a request's context carries, if any.
    static func auctionIndex(in context: AdRequest.Context) -> UInt64? {
        for object in context.contextObjects where object.type == auctionContextType {
            return UInt64(object.description)
        }
        return nil
    }

    /// The rewritten ad unit id of a line item.
    static func adUnitID(placement: String, lineItem: String) -> String {
        "\(placement)/\(lineItem)"
    }
}

/// The factory of one simulated network: hands out an adapter that answers from the market.
struct SimulatedNetworkFactory: NetworkAdapterFactory {
    let kind: String
    let pricing: LineItem.Pricing
    let seed: UInt64
    let sources: [String: SourceModel]
    let counters: ReplayCounters?

    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        SimulatedNetworkAdapter(network: network.id, clock: environment.clock, seed: seed, sources: sources, counters: counters)
    }
}

/// A simulated network's adapter: draws each request's answer from its source's random stream,
/// waits the drawn latency on the engine's clock, and answers a bid, a fill, a no-fill or an
/// error, or never answers. It honours cancellation at once (the engine has decided; an answer
/// then would only be released), so a cancelled request costs no further wake-up.
final class SimulatedNetworkAdapter: AdNetworkAdapter {
    /// One source as a request reads it: a reference, so a request retains one object instead
    /// of copying the model's fields, and the strings its ads carry made once.
    final class Source: Sendable {
        let model: SourceModel
        /// `<network>-<line item>`, every ad's creative id.
        let creativeID: String
        /// `<network>-`, the start of every ad's id.
        let idPrefix: String
        /// `-<line item>`, its end.
        let idSuffix: String

        init(model: SourceModel, network: String) {
            self.model = model
            creativeID = "\(network)-\(model.lineItem.id)"
            idPrefix = "\(network)-"
            idSuffix = "-\(model.lineItem.id)"
        }
    }

    let network: String
    private let clock: any MediationClock
    private let seed: UInt64
    private let sources: [String: Source]
    private let counters: ReplayCounters?

    init(network: String, clock: any MediationClock, seed: UInt64, sources: [String: SourceModel], counters: ReplayCounters?) {
        self.network = network
        self.clock = clock
        self.seed = seed
        self.sources = sources.mapValues { Source(model: $0, network: network) }
        self.counters = counters
    }

    /// `false`: as the networks it models (Elo, Nitx, Qartvelo, the fallback), it ignores notices, so auctions build none for it.
    var receivesAuctionNotices: Bool { false }

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        guard let entry = sources[request.adUnitID] else {
            return .failure(AdLoadResult.Error(kind: .configuration, code: 1, message: "the simulation has no market for ad unit \(request.adUnitID)"))
        }
        guard let auction = SimulatedNetworks.auctionIndex(in: request.context) else {
            return .failure(AdLoadResult.Error(kind: .configuration, code: 2, message: "the request carries no simulated auction index"))
        }
        let recorded = entry.model.recorded.isEmpty ? nil : entry.model.recorded[auction]
        if let counters {
            counters.count(recorded: recorded != nil, hasLine: auction <= UInt64(Int.max) && entry.model.recordedLines.contains(Int(auction)))
        }
        // An outage applies by the instant the request is made: the shard's clock reads the
        // run's virtual time (a timed run's shard starts it at its first auction's instant).
        var draw = recorded?.draw ?? entry.model.draw(seed: seed, auction: auction, at: clock.now.offset)
        if let value = SimulatedNetworks.userValue(in: request.context) {
            // A users run: the user's value multiplies the price (a bid, or a realised eCPM).
            draw.priceMicros = SourceDraw.micros(ofPrice: draw.price * value)
        }
        let latency = recorded?.latency ?? .milliseconds(draw.latencyMilliseconds)
        let start = clock.now
        if draw.answer == .never {
            // Waits past the request's limit, where the engine cancels it; should it not, the
            // answer then is late and changes nothing.
            try? await clock.sleep(until: max(request.deadline, start) + .seconds(1))
            return .failure(AdLoadResult.Error(kind: .cancelled, code: 3, message: "never answered"))
        }
        if latency > .zero {
            do {
                try await clock.sleep(until: start + latency)
            } catch {
                return .failure(AdLoadResult.Error(kind: .cancelled, code: 4, message: "cancelled"))
            }
        }
        switch draw.answer {
        case .never, .noFill:
            return .noFill(.noInventory)
        case .error:
            return .failure(AdLoadResult.Error(kind: .server, code: 500, message: "simulated error"))
        case .ad:
            let ad = SimulatedAd(network: network, source: entry, auction: auction, realisedPriceMicros: draw.priceMicros, request: request)
            switch entry.model.lineItem.pricing {
            case .bidder: return .bid(ad, eCPM: entry.model.bid(for: draw))
            case .fixedPrice: return .fill(ad)
            }
        }
    }
}

/// An ad of a simulated network: it knows the auction and line item it came from and the price
/// it actually earns when shown.
public final class SimulatedAd: LoadedAd {
    /// The network id.
    public let network: String
    /// The line item that brought it.
    public let lineItemID: String
    /// The auction's index in the run.
    public let auction: UInt64
    /// What one thousand impressions of it earn, USD micros: the bid for a bidder, the drawn
    /// realised eCPM for a fixed-price source.
    public let realisedPriceMicros: Int64
    /// The request's format.
    public let format: AdFormat
    /// 320 x 50 pt for banners, the screen for other formats, scaled down to fit the slot.
    public let size: AdSize

    /// `<network>-<auction>-<line item>`: unique in a run.
    public let id: String
    /// `<network>-<line item>`.
    public let creativeID: String

    init(network: String, source: SimulatedNetworkAdapter.Source, auction: UInt64, realisedPriceMicros: Int64, request: AdRequest) {
        self.network = network
        lineItemID = source.model.lineItem.id
        id = source.idPrefix + String(auction) + source.idSuffix
        creativeID = source.creativeID
        self.auction = auction
        self.realisedPriceMicros = realisedPriceMicros
        format = request.format
        let natural = request.format == .banner ? AdSize(width: 320, height: 50) : AdSize(width: request.screen.width, height: request.screen.height)
        size = SimulatedAd.fit(natural, in: request.slot)
    }

    /// Holds nothing: does nothing.
    public func releaseResources() {}

    private static func fit(_ size: AdSize, in slot: SlotSize) -> AdSize {
        var scale = 1.0
        if let maxWidth = slot.maxWidth, maxWidth > 0, size.width > maxWidth { scale = min(scale, maxWidth / size.width) }
        if let maxHeight = slot.maxHeight, maxHeight > 0, size.height > maxHeight { scale = min(scale, maxHeight / size.height) }
        return AdSize(width: size.width * scale, height: size.height * scale)
    }
}

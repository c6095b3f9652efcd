import Foundation
import Mediation
import MediationTestKit
import Testing
import Adapters

// A third-party network, defined entirely in this file the way a host would write one: its ad,
// its adapter and its factory, depending on the Mediation library alone, and registered next to
// the standard networks with one call:
//
//     let registry = NetworkRegistry.standard.registering(AcmeFactory())

/// An Acme ad. Counts its releases, so a test can assert "released exactly once" (R7).
final class AcmeAd: LoadedAd {
    let id: String
    let creativeID: String
    let network: String
    let format: AdFormat
    let size: AdSize
    private let releases = Locked(0)

    init(id: String, network: String, format: AdFormat, size: AdSize) {
        self.id = id
        self.creativeID = "acme-creative-7"
        self.network = network
        self.format = format
        self.size = size
    }

    /// How many times ``releaseResources()`` was called.
    var releaseCount: Int { releases.withLock { $0 } }

    func releaseResources() {
        releases.withLock { $0 += 1 }
    }
}

/// What every Acme adapter of one factory did: the requests, the ads and the engine's notices,
/// by network id.
final class AcmeLedger: Sendable {
    private struct State {
        var requests: [(network: String, adUnitID: String)] = []
        var ads: [AcmeAd] = []
        var notices: [String: [AuctionNotice]] = [:]
    }

    private let state = Locked(State())

    /// The ad unit ids asked, in order, as `network/ad_unit`.
    var requests: [String] { state.withLock { $0.requests.map { "\($0.network)/\($0.adUnitID)" } } }
    /// Every ad handed out, in order.
    var ads: [AcmeAd] { state.withLock { $0.ads } }

    /// The notices network `network` heard, in order.
    func notices(_ network: String) -> [AuctionNotice] {
        state.withLock { $0.notices[network] ?? [] }
    }

    fileprivate func recordRequest(_ network: String, _ request: AdRequest) -> Int {
        state.withLock { state in
            state.requests.append((network, request.adUnitID))
            return state.requests.count
        }
    }

    fileprivate func recordAd(_ ad: AcmeAd) {
        state.withLock { $0.ads.append(ad) }
    }

    fileprivate func recordNotice(_ network: String, _ notice: AuctionNotice) {
        state.withLock { $0.notices[network, default: []].append(notice) }
    }
}

/// The Acme exchange: a bidder that answers every request with a bid at its configured price,
/// after its configured latency on the engine's clock, and honours cancellation.
struct AcmeAdapter: AdNetworkAdapter {
    let network: String
    let bid: Double
    let latency: Duration
    let clock: any MediationClock
    let ledger: AcmeLedger

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        let number = ledger.recordRequest(network, request)
        if latency > .zero {
            do {
                try await clock.sleep(until: clock.now + latency)
            } catch {
                return .failure(AdLoadResult.Error(kind: .cancelled, message: "cancelled"))
            }
        }
        let size: AdSize
        switch request.format {
        case .banner, .native:
            size = AdSize(width: 320, height: min(request.slot.maxHeight ?? 50, 100))
        case .interstitial, .appOpen, .rewarded:
            size = AdSize(width: request.screen.width, height: request.screen.height)
        }
        let ad = AcmeAd(id: "\(network)-\(number)", network: network, format: request.format, size: size)
        ledger.recordAd(ad)
        return .bid(ad, eCPM: bid)
    }

    func auctionDidEnd(_ notice: AuctionNotice) {
        ledger.recordNotice(network, notice)
    }
}

/// Builds ``AcmeAdapter`` from a network with `"adapter": "acme"`: a bidder; credential
/// `account_id` (required); options `bid_ecpm` (a positive number, default 1) and `latency_ms`
/// (a whole number from 0 to 60000, default 0).
struct AcmeFactory: NetworkAdapterFactory {
    let kind = "acme"
    let pricing = LineItem.Pricing.bidder
    var ledger = AcmeLedger()

    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        let path = "networks.\(network.id)"
        for key in network.credentials.keys.sorted() where key != "account_id" {
            throw ConfigurationError(code: .unknownKey, path: "\(path).credentials.\(key)", message: "unknown credential for acme")
        }
        guard let account = network.credentials["account_id"], !account.isEmpty else {
            throw ConfigurationError(code: .missingField, path: "\(path).credentials.account_id", message: "required")
        }
        for key in network.options.keys.sorted() where !["bid_ecpm", "latency_ms"].contains(key) {
            throw ConfigurationError(code: .unknownKey, path: "\(path).options.\(key)", message: "unknown option for acme")
        }
        var bid = 1.0
        if let value = network.options["bid_ecpm"] {
            guard let number = value.doubleValue else {
                throw ConfigurationError(code: .wrongType, path: "\(path).options.bid_ecpm", message: "must be a number")
            }
            guard number.isFinite, number > 0 else {
                throw ConfigurationError(code: .invalidValue, path: "\(path).options.bid_ecpm", message: "must be positive")
            }
            bid = number
        }
        var latency = Duration.zero
        if let value = network.options["latency_ms"] {
            guard let millis = value.intValue, (0...60_000).contains(millis) else {
                throw ConfigurationError(code: .invalidValue, path: "\(path).options.latency_ms", message: "must be a whole number from 0 to 60000")
            }
            latency = .milliseconds(millis)
        }
        return AcmeAdapter(network: network.id, bid: bid, latency: latency, clock: environment.clock, ledger: ledger)
    }
}

@Suite("A third-party network next to the standard ones")
struct ThirdPartyNetworkTests {
    /// Acme twice (a premium and a remnant seat), Elo and the fallback on their sandboxes.
    static func json(acmeOptions: String = #"{ "bid_ecpm": 9.5, "latency_ms": 80 }"#) -> String {
        """
        {
          "networks": {
            "acme": { "adapter": "acme", "endpoint": "sandbox", "credentials": { "account_id": "acme-demo" }, "options": \(acmeOptions) },
            "acme_remnant": { "adapter": "acme", "endpoint": "sandbox", "credentials": { "account_id": "acme-demo" }, "options": { "bid_ecpm": 0.8, "latency_ms": 20 } },
            "elo": { "adapter": "elo", "credentials": { "publisher_id": "elo-pub-demo-0001" }, "endpoint": "sandbox" },
            "admob": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1, "latency_ms": 50 } }
          },
          "placements": {
            "chat_strip": {
              "format": "native", "slot": { "max_height": 100 }, "deadline_ms": 1500,
              "sources": [
                { "id": "chat_strip_elo", "network": "elo", "ad_unit_id": "elo-chat-strip" },
                { "id": "chat_strip_acme", "network": "acme", "ad_unit_id": "acme-chat-strip" },
                { "id": "chat_strip_acme_remnant", "network": "acme_remnant", "ad_unit_id": "acme-remnant-strip" },
                { "id": "chat_strip_admob", "network": "admob", "ad_unit_id": "ca-app-pub-1/1", "ecpm": 1.2 }
              ]
            },
            "level_end": {
              "format": "interstitial", "deadline_ms": 1000,
              "sources": [
                { "id": "level_end_acme_remnant", "network": "acme_remnant", "ad_unit_id": "acme-remnant-level" },
                { "id": "level_end_admob", "network": "admob", "ad_unit_id": "ca-app-pub-1/2", "ecpm": 1.2 }
              ]
            }
          }
        }
        """
    }

    static func engine(clock: ManualClock, ledger: AcmeLedger) throws -> MediationEngine {
        let registry = NetworkRegistry.standard.registering(AcmeFactory(ledger: ledger))
        let configuration = try MediationConfiguration(json: json(), registry: registry)
        return try MediationEngine(configuration: configuration, registry: registry, environment: MediationEnvironment(clock: clock, seed: 1))
    }

    @Test func oneRegistrationAddsTheKindAsABidder() throws {
        let registry = NetworkRegistry.standard.registering(AcmeFactory())
        #expect(registry.kinds == ["acme", "elo", "fallback", "nitx", "qartvelo"])
        #expect(registry.pricing(forKind: "acme") == .bidder)
        #expect(NetworkRegistry.standard.factory(forKind: "acme") == nil, "the standard registry is unchanged")
        let configuration = try MediationConfiguration(json: Self.json(), registry: registry)
        let acme = try #require(configuration.placement("chat_strip")?.sources.first { $0.network == "acme" })
        #expect(acme.pricing == .bidder)
        #expect(acme.eCPM == nil)
        // Without the registration the kind is unknown to the loader.
        let error = #expect(throws: ConfigurationError.self) { _ = try MediationConfiguration(json: Self.json(), registry: .standard) }
        #expect(error?.code == .unknownAdapter)
        #expect(error?.path == "networks.acme.adapter")
    }

    @Test func theThirdPartyBidWinsWithItsPriceNextToTheStandardNetworks() async throws {
        let clock = ManualClock()
        let ledger = AcmeLedger()
        let engine = try Self.engine(clock: clock, ledger: ledger)
        let outcome = try await engine.runAuction(placementID: "chat_strip", on: clock)

        // Acme bids 9.5 at 80 ms: the highest value, once every bidder has answered (R4).
        let winner = try #require(outcome.winner)
        #expect(winner.lineItem.id == "chat_strip_acme")
        #expect(winner.eCPM == 9.5)
        #expect(winner.ad.network == "acme")
        #expect(winner.arrivedAt == .origin + .milliseconds(80))
        #expect(outcome.trace.winner == "chat_strip_acme")
        #expect(outcome.trace.winningECPM == 9.5)
        #expect(outcome.trace.endedAtMilliseconds == 80)
        let acme = try #require(outcome.trace.source("chat_strip_acme"))
        #expect(acme.outcome == .won)
        #expect(acme.pricing == .bidder)
        #expect(acme.eCPM == 9.5)
        #expect(acme.latencyMilliseconds == 80)
        #expect(acme.adReleased == false)

        // The standard sources: Elo's sandbox bid (seed 1: 3.11 at 0 ms) and the fallback's
        // fill (1.20 at 50 ms) lost to the higher bid, as did Acme's remnant seat (0.80 at 20 ms).
        let elo = try #require(outcome.trace.source("chat_strip_elo"))
        #expect(elo.outcome == .lost(.lostToHigherBid))
        #expect(elo.pricing == .bidder)
        #expect(elo.eCPM == 3.11)
        #expect(elo.latencyMilliseconds == 0)
        let admob = try #require(outcome.trace.source("chat_strip_admob"))
        #expect(admob.outcome == .lost(.lostToHigherBid))
        #expect(admob.pricing == .fixedPrice)
        #expect(admob.eCPM == 1.2)
        #expect(admob.latencyMilliseconds == 50)
        let remnant = try #require(outcome.trace.source("chat_strip_acme_remnant"))
        #expect(remnant.outcome == .lost(.lostToHigherBid))
        #expect(remnant.eCPM == 0.8)

        // Every losing ad was released once; the winner's was not (it belongs to the caller).
        #expect(outcome.trace.sources.filter { $0.outcome != .won }.allSatisfy { $0.adReleased })
        #expect(outcome.trace.sources.filter { $0.outcome != .won }.count == 3)
        let ads = ledger.ads
        #expect(ads.map(\.network).sorted() == ["acme", "acme_remnant"])
        for ad in ads {
            #expect(ad.releaseCount == (ad.id == winner.ad.id ? 0 : 1), "\(ad.id)")
        }
        #expect(ledger.requests.sorted() == ["acme/acme-chat-strip", "acme_remnant/acme-remnant-strip"])

        // Nothing releases an ad twice afterwards.
        await clock.advance(by: .seconds(5))
        await engine.shutdown()
        for ad in ads {
            #expect(ad.releaseCount == (ad.id == winner.ad.id ? 0 : 1), "\(ad.id)")
        }
        winner.ad.releaseResources()
        #expect(ads.allSatisfy { $0.releaseCount == 1 })
    }

    @Test(arguments: [
        (#"{ "bid_ecpm": "high" }"#, "networks.acme.options.bid_ecpm", ConfigurationError.Code.wrongType),
        (#"{ "bid_ecpm": -1 }"#, "networks.acme.options.bid_ecpm", .invalidValue),
        (#"{ "latency_ms": 2.5 }"#, "networks.acme.options.latency_ms", .invalidValue),
        (#"{ "colour": "red" }"#, "networks.acme.options.colour", .unknownKey),
    ])
    func aBadOptionFailsTheEngineBuildWithItsPath(options: String, path: String, code: ConfigurationError.Code) throws {
        let ledger = AcmeLedger()
        let registry = NetworkRegistry.standard.registering(AcmeFactory(ledger: ledger))
        // The loader accepts any options object; the network's factory validates it.
        let configuration = try MediationConfiguration(json: Self.json(acmeOptions: options), registry: registry)
        let error = #expect(throws: ConfigurationError.self) {
            _ = try MediationEngine(configuration: configuration, registry: registry, environment: MediationEnvironment(clock: ManualClock()))
        }
        #expect(error?.path == path)
        #expect(error?.code == code)
        #expect(ledger.requests.isEmpty, "no network is asked anything when building fails")
    }

    @Test func theThirdPartyAdapterHearsWhatEachAuctionDecided() async throws {
        let clock = ManualClock()
        let ledger = AcmeLedger()
        let engine = try Self.engine(clock: clock, ledger: ledger)

        // Won: the notice carries its own value, which is also the winning one.
        let strip = try await engine.runAuction(placementID: "chat_strip", on: clock)
        let won = ledger.notices("acme")
        try #require(won.count == 1)
        #expect(won[0].outcome == .won)
        #expect(won[0].eCPM == 9.5)
        // The winner's price to beat: the highest value any other source brought.
        let others = strip.trace.sources.filter { $0.lineItemID != "chat_strip_acme" }.compactMap(\.eCPM)
        #expect(won[0].priceToBeat == others.max())
        #expect(won[0].auctionID == strip.trace.auctionID)
        #expect(won[0].placementID == "chat_strip")
        #expect(won[0].lineItemID == "chat_strip_acme")
        #expect(won[0].adUnitID == "acme-chat-strip")
        #expect(won[0].adID == strip.winner?.ad.id)
        strip.winner?.ad.releaseResources()

        // Lost, in another auction: the fallback's fixed 1.20 beats the remnant bid of 0.80;
        // the notice says 102 (lost to a higher bid) and the value it had to beat.
        let level = try await engine.runAuction(placementID: "level_end", on: clock)
        let winner = try #require(level.winner)
        #expect(winner.lineItem.id == "level_end_admob")
        let remnant = ledger.notices("acme_remnant")
        try #require(remnant.count == 2)  // one per auction it was asked in
        #expect(remnant[0].auctionID == strip.trace.auctionID)
        #expect(remnant[0].outcome == .lost(.lostToHigherBid))
        #expect(remnant[0].priceToBeat == 9.5)
        let lost = remnant[1]
        #expect(lost.auctionID == level.trace.auctionID)
        #expect(lost.placementID == "level_end")
        #expect(lost.lineItemID == "level_end_acme_remnant")
        #expect(lost.outcome == .lost(.lostToHigherBid))
        #expect(lost.outcome == .lost(SourceOutcome.LossReason(rawValue: 102)))
        #expect(lost.eCPM == 0.8)
        #expect(lost.priceToBeat == winner.eCPM)
        #expect(lost.priceToBeat == 1.2)
        #expect(lost.adID == ledger.ads.last?.id)
        #expect(ledger.notices("acme").count == 1, "acme was not asked for level_end")
        winner.ad.releaseResources()
        await engine.shutdown()
    }
}

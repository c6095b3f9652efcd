import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Elo adapter and factory")
struct EloAdapterTests {
    func adapter(_ transport: EloFakeTransport) -> EloAdapter {
        EloAdapter(client: EloFixtures.client(transport: transport))
    }

    @Test func eloIsABidder() {
        // The factory states the pricing, once for every Elo network.
        #expect(EloAdapterFactory().pricing == .bidder)
        #expect(EloAdapterFactory().kind == "elo")
        #expect(NetworkRegistry.standard.factory(forKind: "elo") is EloAdapterFactory)
        #expect(NetworkRegistry.standard.pricing(forKind: "elo") == .bidder)
        #expect(standardNetworks.contains { $0 is EloAdapterFactory })
    }

    @Test func fillIsABidAtTheServersPrice() async {
        let result = await adapter(EloFakeTransport(price: 3.1)).loadAd(for: EloFixtures.request())
        guard case .bid(let ad, let eCPM) = result else { Issue.record("expected a bid, got \(result)"); return }
        #expect(eCPM == 3.1)
        #expect(ad.network == "elo")
        #expect(ad is EloAd)
    }

    @Test func noFillKeepsTheSeedsReasonAsTheCode() async {
        let result = await adapter(EloFakeTransport { _ in .success(HTTP.Response(statusCode: 204)) }).loadAd(for: EloFixtures.request())
        guard case .noFill(let reason) = result else { Issue.record("expected no fill, got \(result)"); return }
        #expect(reason == AdLoadResult.NoFillReason(code: "noBids"))
    }

    @Test func decodingFailureIsAnInvalidResponse() async {
        let result = await adapter(EloFakeTransport { _ in .success(EloFixtures.json(200, "{")) }).loadAd(for: EloFixtures.request())
        guard case .failure(let error) = result else { Issue.record("expected a failure, got \(result)"); return }
        #expect(error.kind == .invalidResponse)
        #expect(error.code == 1)
    }

    @Test(arguments: [AdFormat.interstitial, .appOpen, .rewarded])
    func fullScreenFormatsAreUnsupportedWithoutARequest(format: AdFormat) async {
        let transport = EloFakeTransport()
        let result = await adapter(transport).loadAd(for: EloFixtures.request(format: format))
        guard case .failure(let error) = result else { Issue.record("expected a failure, got \(result)"); return }
        #expect(error.kind == .unsupported)
        #expect(error.code == 4)
        #expect(transport.requests.isEmpty)
    }

    @Test func bannerPlacementsGetABannerFormatAd() async {
        let result = await adapter(EloFakeTransport()).loadAd(for: EloFixtures.request(format: .banner, maxHeight: 90))
        #expect(result.ad?.format == .banner)
    }

    // MARK: Factory

    func make(_ network: MediationConfiguration.Network, environment: MediationEnvironment = MediationEnvironment(clock: ManualClock())) throws(ConfigurationError) -> any AdNetworkAdapter {
        try EloAdapterFactory().makeAdapter(for: network, environment: environment)
    }

    @Test(arguments: [
        ([:], [:], "networks.elo.credentials.publisher_id"),
        (["publisher_id": "  "], [:], "networks.elo.credentials.publisher_id"),
        (["publisher_id": "p", "api_key": "k"], [:], "networks.elo.credentials.api_key"),
        (["publisher_id": "p"], ["share_gps": .bool(true)], "networks.elo.options.share_gps"),
        (["publisher_id": "p"], ["share_geo": .string("true")], "networks.elo.options.share_geo"),
        (["publisher_id": "p"], ["coppa": .integer(1)], "networks.elo.options.coppa"),
        (["publisher_id": "p"], ["geo_precision": .number(2.5)], "networks.elo.options.geo_precision"),
        (["publisher_id": "p"], ["log_level": .string("loud")], "networks.elo.options.log_level"),
        (["publisher_id": "p"], ["sandbox_no_bid_rate": .number(1.5)], "networks.elo.options.sandbox_no_bid_rate"),
    ] as [([String: String], [String: JSONValue], String)])
    func badConfigurationNamesItsPath(credentials: [String: String], options: [String: JSONValue], path: String) {
        let network = MediationConfiguration.Network(id: "elo", adapter: "elo", credentials: credentials, options: options)
        let error = #expect(throws: ConfigurationError.self) { try make(network) }
        #expect(error?.path == path)
    }

    @Test func optionsReachTheClientConfiguration() async throws {
        let logger = RecordingLogger()
        let network = MediationConfiguration.Network(
            id: "elo",
            adapter: "elo",
            credentials: ["publisher_id": "pub-9", "ad_unit_id": "unit-9"],
            timeout: .milliseconds(1200),
            options: ["share_geo": .bool(false), "geo_precision": .integer(8), "coppa": .bool(true), "tfua": .bool(true), "log_level": .string("error")]
        )
        let adapter = try #require(try make(network, environment: MediationEnvironment(clock: ManualClock(), logger: logger)) as? EloAdapter)
        let configuration = try #require(await adapter.client.currentConfiguration)
        #expect(configuration.publisherID == "pub-9")
        #expect(configuration.adUnitID == "unit-9")
        #expect(configuration.shareGeoLocation == false)
        #expect(configuration.geoLocationPrecision == 6)
        #expect(configuration.coppa)
        #expect(configuration.tfua)
        #expect(configuration.logLevel == .error)
        #expect(configuration.requestTimeout == .milliseconds(1200))
        #expect(configuration.baseURL == EloSandboxServer.baseURL)
        #expect(logger.warnings == ["networks.elo.options.geo_precision 8 clamped to 6"])
    }

    @Test func nullGeoPrecisionKeepsFullPrecision() async throws {
        let network = MediationConfiguration.Network(id: "elo", adapter: "elo", credentials: ["publisher_id": "p"], options: ["geo_precision": .null])
        let adapter = try #require(try make(network) as? EloAdapter)
        #expect(await adapter.client.currentConfiguration?.geoLocationPrecision == nil)
    }

    @Test func urlEndpointUsesTheLiveTransportAndBaseURL() async throws {
        let transport = EloFakeTransport()
        let url = try #require(URL(string: "https://bid.elo.test/rtb"))
        let network = MediationConfiguration.Network(id: "elo_live", adapter: "elo", credentials: ["publisher_id": "p"], endpoint: .url(url))
        let adapter = try #require(try make(network, environment: MediationEnvironment(clock: ManualClock(), transport: transport)) as? EloAdapter)
        #expect(adapter.network == "elo_live")
        let result = await adapter.loadAd(for: EloFixtures.request())
        #expect(result.ad?.network == "elo_live")
        #expect(transport.bidRequests.map(\.url.absoluteString) == ["https://bid.elo.test/rtb/v1/bid"])
    }

    /// The user's chat travels over HTTPS: a configuration that
    /// gives Elo a plain-http endpoint off this device is refused where it is loaded, naming the
    /// endpoint, and with an https endpoint every request Elo sends (the bid carrying the chat,
    /// the analytics) is https.
    @Test func contactDetailsTravelOnlyOverHTTPS() async throws {
        func json(_ endpoint: String) -> String {
            """
            {
              "networks": { "elo": { "adapter": "elo", "credentials": { "publisher_id": "p" }, "endpoint": "\(endpoint)" } },
              "placements": { "chat_strip": { "format": "native", "slot": { "max_width": 390, "max_height": 120 },
                "sources": [ { "id": "chat_strip_elo", "network": "elo", "ad_unit_id": "unit-chat" } ] } }
            }
            """
        }
        let error = #expect(throws: ConfigurationError.self) { _ = try MediationConfiguration(json: json("http://bid.elo.test/rtb"), registry: .standard) }
        #expect(error?.path == "networks.elo.endpoint")
        #expect(error?.message.contains("use https") == true)

        // An endpoint given in code, past the loader, is refused by the adapter's factory.
        let plain = try #require(URL(string: "http://bid.elo.test/rtb"))
        let inCode = MediationConfiguration.Network(id: "elo", adapter: "elo", credentials: ["publisher_id": "p"], endpoint: .url(plain))
        let refused = #expect(throws: ConfigurationError.self) { _ = try make(inCode, environment: MediationEnvironment(clock: ManualClock(), transport: EloFakeTransport())) }
        #expect(refused?.path == "networks.elo.endpoint")

        let transport = EloFakeTransport()
        let configuration = try MediationConfiguration(json: json("https://bid.elo.test/rtb"), registry: .standard)
        let clock = ManualClock()
        let engine = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: clock, transport: transport))
        let outcome = try await engine.runAuction(placementID: "chat_strip", on: clock)
        let ad = try #require(outcome.winner?.ad as? EloAd)
        ad.recordBrowserOpened()
        ad.recordBrowserClosed()
        await ad.tracker?.drain()
        #expect(transport.bidRequests.count == 1)
        #expect(transport.pings.count == 2)
        #expect((transport.bidRequests + transport.pings).allSatisfy { $0.url.scheme == "https" })
        ad.releaseResources()
        await clock.perform { await engine.shutdown() }
    }

    @Test func sandboxEndpointBidsThroughTheSandboxServer() async throws {
        let transport = EloFakeTransport()
        let network = MediationConfiguration.Network(id: "elo", adapter: "elo", credentials: ["publisher_id": "p"], endpoint: .sandbox, options: ["sandbox_no_bid_rate": .integer(0)])
        let adapter = try make(network, environment: MediationEnvironment(clock: ManualClock(), seed: 7, transport: transport))
        let strip = await adapter.loadAd(for: EloFixtures.request(maxHeight: 100))
        let card = await adapter.loadAd(for: EloFixtures.request(maxHeight: nil))
        guard case .bid(let stripAd, let price) = strip, case .bid(let cardAd, _) = card else {
            Issue.record("expected two bids, got \(strip) and \(card)")
            return
        }
        #expect((stripAd as? EloAd)?.eloFormat == .strip)
        #expect((cardAd as? EloAd)?.eloFormat == .card)
        #expect(price >= 0.5 && price <= 4.0)
        #expect(transport.requests.isEmpty)
    }

    @Test func sandboxPricesRepeatWithTheSeed() async throws {
        func prices(seed: UInt64) async throws -> [Double] {
            let network = MediationConfiguration.Network(id: "elo", adapter: "elo", credentials: ["publisher_id": "p"], options: ["sandbox_no_bid_rate": .integer(0)])
            let adapter = try make(network, environment: MediationEnvironment(clock: ManualClock(), seed: seed))
            var prices: [Double] = []
            for _ in 0..<5 {
                if case .bid(_, let eCPM) = await adapter.loadAd(for: EloFixtures.request()) { prices.append(eCPM) }
            }
            return prices
        }
        let first = try await prices(seed: 42)
        #expect(first.count == 5)
        #expect(try await prices(seed: 42) == first)
        #expect(try await prices(seed: 43) != first)
    }

    /// Every byte of every file under `directory`, as text.
    static func filesText(under directory: URL) throws -> String {
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return "" }
        var text = ""
        for case let url as URL in walker {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            text += String(decoding: try Data(contentsOf: url), as: UTF8.self)
        }
        return text
    }

    static let elo = MediationConfiguration.Network(id: "elo", adapter: "elo", credentials: ["publisher_id": "p"])

    @Test func legacyPlaintextFileIsDeletedUnread() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("elo-factory-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let legacy = EloLegacyIdentityFile.url(in: directory, network: "elo")
        try FileManager.default.createDirectory(at: legacy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(#"{"installID": "install-9", "userIdentifier": "alice", "userData": {"phone": "+15551234567"}}"#.utf8).write(to: legacy)
        let adapter = try #require(try make(Self.elo, environment: MediationEnvironment(clock: ManualClock(), storageDirectory: directory)) as? EloAdapter)
        #expect(await adapter.client.installID != "install-9")
        #expect(!FileManager.default.fileExists(atPath: legacy.path))
        #expect(try !Self.filesText(under: directory).contains("alice"))
    }
}

@Suite("Elo in the shipped configuration")
struct EloShippedConfigurationTests {
    @Test func eloBidsOnChatStripAndHomeBanner() throws {
        let configuration = try MediationConfiguration(contentsOf: RepositoryFiles.shippedConfiguration, registry: NetworkRegistry.standard)
        #expect(configuration.network("elo")?.adapter == "elo")
        #expect(configuration.network("elo")?.endpoint == .sandbox)
        for placementID in ["chat_strip", "home_banner"] {
            let elo = try #require(configuration.placement(placementID)?.sources.first { $0.network == "elo" })
            #expect(elo.pricing == .bidder)
            #expect(elo.eCPM == nil)
            #expect(!elo.adUnitID.isEmpty)
        }
    }

    @Test func chatStripAuctionOnTheSandboxHasAnEloBid() async throws {
        let clock = ManualClock()
        let recorder = NetworkRecorder()
        let engine = try MediationEngine(contentsOf: RepositoryFiles.shippedConfiguration, registry: recorder.wrapping(.standard), environment: MediationEnvironment(clock: clock, seed: 1))
        let context = AdRequest.Context(messages: [AdRequest.Context.Message(role: .user, content: "Which tent for two?")])
        let outcome = try await engine.runAuction(placementID: "chat_strip", context: context, on: clock)
        let loads = recorder.loads(of: "elo")
        try #require(loads.count == 1)
        #expect(loads[0].request.adUnitID == "elo-chat-strip") // the auction sets each source's ad unit
        #expect(loads[0].request.context.messages.map(\.content) == ["Which tent for two?"])
        guard case .bid(let ad, let eCPM)? = loads[0].result else { Issue.record("expected an Elo bid, got \(String(describing: loads[0].result))"); return }
        #expect(eCPM == 3.11) // seed 1: the sandbox's first draw
        #expect((ad as? EloAd)?.eloFormat == .strip) // chat_strip is 100 pt tall
        #expect(outcome.trace.source("chat_strip_elo")?.rawPrice == 3.11)
        outcome.winner?.ad.releaseResources() // the winner belongs to the caller
    }

    @Test func eloWinsTheShippedChatStripAuctionWithItsOwnPrice() async throws {
        let clock = ManualClock()
        let engine = try MediationEngine(contentsOf: RepositoryFiles.shippedConfiguration, registry: .standard, environment: MediationEnvironment(clock: clock, seed: 1))
        let outcome = try await engine.runAuction(placementID: "chat_strip", on: clock)
        let elo = try #require(outcome.trace.sources.first { $0.network == "elo" })
        // Seed 1: Elo bids 3.11 at 0 ms; no fixed-price source (2.10 at most) can beat it (R4).
        #expect(elo.outcome == .won)
        #expect(elo.pricing == .bidder)
        #expect(elo.eCPM == 3.11)
        #expect(outcome.trace.endedAtMilliseconds == 0)
        #expect(outcome.winner?.ad.network == "elo")
        // The others could no longer win: cancelled, or (Nitx's sandbox also answers at 0 ms,
        // so it may arrive first at the same instant) lost to the higher bid (R4, R5).
        #expect(outcome.trace.sources.filter { $0.network != "elo" }.allSatisfy { $0.outcome == .cancelled(couldNotBeat: 3.11) || $0.outcome == .lost(.lostToHigherBid) })
        outcome.winner?.ad.releaseResources()
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Qartvelo factory and sandbox")
struct QartveloFactoryTests {
    static func network(credentials: [String: String] = ["app_id": "app-123"], options: [String: JSONValue] = [:]) -> MediationConfiguration.Network {
        MediationConfiguration.Network(id: "qartvelo", adapter: "qartvelo", credentials: credentials, endpoint: .sandbox, options: options)
    }

    static func make(_ network: MediationConfiguration.Network, clock: any MediationClock = ManualClock()) throws(ConfigurationError) -> any AdNetworkAdapter {
        try QartveloAdapterFactory().makeAdapter(for: network, environment: MediationEnvironment(clock: clock))
    }

    @Test func registeredAsAFixedPriceKind() {
        let factory = NetworkRegistry.standard.factory(forKind: "qartvelo")
        #expect(factory is QartveloAdapterFactory)
        #expect(factory?.kind == "qartvelo")
        #expect(factory?.pricing == .fixedPrice)
        #expect(NetworkRegistry.standard.pricing(forKind: "qartvelo") == .fixedPrice)
    }

    @Test(arguments: [
        ([String: String](), "networks.qartvelo.credentials.app_id"),
        (["app_id": "  "], "networks.qartvelo.credentials.app_id"),
        (["app_id": "a", "secret": "b"], "networks.qartvelo.credentials.secret"),
    ])
    func credentialErrorsNameThePath(_ credentials: [String: String], _ path: String) {
        let error = #expect(throws: ConfigurationError.self) { _ = try Self.make(Self.network(credentials: credentials)) }
        #expect(error?.path == path)
    }

    @Test(arguments: [
        (["adaptive": JSONValue.string("false")], "networks.qartvelo.options.adaptive"),
        (["banner_refresh_seconds": .integer(0)], "networks.qartvelo.options.banner_refresh_seconds"),
        (["banner_refresh_seconds": .number(60.5)], "networks.qartvelo.options.banner_refresh_seconds"),
        (["sandbox_html5_bundle_bytes": .string("10")], "networks.qartvelo.options.sandbox_html5_bundle_bytes"),
        (["sandbox_html5": .integer(1)], "networks.qartvelo.options.sandbox_html5"),
        (["colour": .string("red")], "networks.qartvelo.options.colour"),
    ])
    func optionErrorsNameThePath(_ options: [String: JSONValue], _ path: String) {
        do {
            _ = try Self.make(Self.network(options: options))
            Issue.record("expected an error")
        } catch {
            #expect(error.path == path)
        }
    }

    @Test func optionsParse() throws {
        func parse(_ options: [String: JSONValue]) throws -> QartveloOptions {
            try QartveloOptions(NetworkSettings(Self.network(options: options), kind: "qartvelo", credentials: ["app_id"], options: QartveloOptions.keys))
        }
        let options = try parse(["adaptive": .bool(false), "banner_refresh_seconds": .integer(15), "sandbox_html5": .bool(true), "sandbox_html5_bundle_bytes": .integer(1000)])
        #expect(options == QartveloOptions(adaptive: false, bannerRefreshSeconds: 15, sandboxHTML5: true, sandboxHTML5BundleBytes: 1000))
        #expect(try parse([:]) == QartveloOptions(adaptive: true, bannerRefreshSeconds: 60, sandboxHTML5: false, sandboxHTML5BundleBytes: 180_000))
    }

    @Test func sandboxReturnsTheDashboardsRefreshDefault60() async throws {
        let adapter = try Self.make(Self.network())
        let ad = try #require(await adapter.loadAd(for: QartveloFixtures.request(width: 390)).ad)
        #expect(ad.serverRefreshSeconds == 60)
    }

    /// Public test artwork (Qartvelo document, "Banner"): the 960x150, 1320x204 and 2184x270
    /// PNGs, picked by the slot's proportions, are served even when the app's registration is
    /// unavailable: the sandbox keeps no registrations, so an app id no dashboard knows gets them
    /// like the shipped demo id.
    @Test(arguments: [
        (320.0, "960x150"), (440.0, "1320x204"), (768.0, "2184x270"),
    ])
    func testArtworkIsServedEvenWithoutARegistration(_ width: Double, _ artwork: String) async throws {
        for appID in ["qv-demo-app", "never-registered-\(Int(width))"] {
            let adapter = try Self.make(Self.network(credentials: ["app_id": appID]))
            let ad = try #require(await adapter.loadAd(for: QartveloFixtures.request(width: width, screen: AdRequest.Device.Screen(width: 1024, height: 1366, scale: 2))).ad as? QartveloBannerAd, "app id \(appID)")
            #expect(ad.creativeID == "qv-sbx-\(artwork)", "app id \(appID)")
            #expect(ad.creative == .image(try #require(URL(string: "https://sandbox.qartvelo.test/v1/creatives/\(artwork).png"))), "app id \(appID)")
            ad.releaseResources()
        }
    }

    @Test func sandboxFifteenSecondRefreshReachesTheAdAs15() async throws {
        let adapter = try Self.make(Self.network(options: ["banner_refresh_seconds": .integer(15)]))
        let ad = try #require(await adapter.loadAd(for: QartveloFixtures.request(width: 390)).ad)
        #expect(ad.serverRefreshSeconds == 15)
    }

    @Test(arguments: [
        // sizing, width, max height, adaptive -> creative and ad size in points
        (MediationConfiguration.Placement.BannerSizing.anchored, 390.0, nil as Double?, true, "qv-sbx-1320x204", AdSize(width: 390, height: 60)),
        (.anchored, 320.0, nil, true, "qv-sbx-960x150", AdSize(width: 320, height: 50)),
        (.anchored, 768.0, nil, true, "qv-sbx-2184x270", AdSize(width: 768, height: 90)),
        (.anchored, 390.0, nil, false, "qv-sbx-960x150", AdSize(width: 320, height: 50)),
        (.anchored, 768.0, nil, false, "qv-sbx-2184x270", AdSize(width: 728, height: 90)),
        (.inline, 390.0, 250.0, true, "qv-sbx-300x250", AdSize(width: 300, height: 250)),
        (.inline, 390.0, 100.0, true, "qv-sbx-320x100", AdSize(width: 320, height: 100)),
        (.inline, 390.0, 50.0, true, "qv-sbx-468x60", AdSize(width: 390, height: 50)),
    ])
    func sandboxServesTheSelectedCreative(_ sizing: MediationConfiguration.Placement.BannerSizing, _ width: Double, _ maxHeight: Double?, _ adaptive: Bool, _ creativeID: String, _ size: AdSize) async throws {
        let adapter = try Self.make(Self.network(options: ["adaptive": .bool(adaptive)]))
        let ad = try #require(await adapter.loadAd(for: QartveloFixtures.request(sizing: sizing, width: width, maxHeight: maxHeight)).ad)
        #expect(ad.creativeID == creativeID)
        #expect(ad.size == size)
        #expect(ad.network == "qartvelo")
    }

    @Test func sandboxWithNothingThatFitsIsNoFill() async throws {
        let adapter = try Self.make(Self.network(options: ["adaptive": .bool(false)]))
        let result = await adapter.loadAd(for: QartveloFixtures.request(width: 300))
        guard case .noFill(let reason) = result else {
            Issue.record("expected no fill, got \(result)")
            return
        }
        #expect(reason == .noInventory)
    }

    @Test func sandboxRefusesAnEmptyAppID() async {
        let server = QartveloSandboxServer()
        let builder = QartveloRequestBuilder(appID: "", baseURL: QartveloSandboxServer.baseURL, adaptive: true)
        guard case .success(let plan) = builder.plan(for: QartveloFixtures.request(width: 390), requestID: "r", now: .origin) else {
            Issue.record("no plan")
            return
        }
        #expect(await server.respond(to: plan.http).statusCode == 401)
        #expect(await server.respond(to: HTTP.Request(method: "POST", url: plan.http.url, body: Data("{".utf8))).statusCode == 400)
    }

    @Test func sandboxAnswersOnTheEnginesClockWithItsLatency() async throws {
        let clock = ManualClock()
        let adapter = try QartveloAdapterFactory().makeAdapter(for: Self.network(), environment: MediationEnvironment(clock: clock, sandboxLatency: .milliseconds(120)))
        let task = clock.startTask { await adapter.loadAd(for: QartveloFixtures.request(width: 390)) }
        #expect(await clock.settle { clock.sleeperCount == 1 })  // the simulated latency
        #expect(clock.nextDeadline == .origin + .milliseconds(120))
        await clock.advance(by: .milliseconds(119))
        #expect(clock.sleeperCount == 1)
        await clock.advance(by: .milliseconds(1))
        let result = await task.value
        #expect(result.ad?.creativeID == "qv-sbx-1320x204")
        #expect(clock.now == .origin + .milliseconds(120))
    }

    @Test func liveEndpointUsesTheLiveTransport() async throws {
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer())
        var network = Self.network()
        network.endpoint = .url(QartveloFixtures.baseURL)
        let adapter = try QartveloAdapterFactory().makeAdapter(for: network, environment: MediationEnvironment(clock: ManualClock(), transport: transport))
        _ = await adapter.loadAd(for: QartveloFixtures.request(width: 390))
        #expect(transport.sent.first?.url.absoluteString == "https://api.qartvelo.test/v1/banner")
    }
}

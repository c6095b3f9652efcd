import Adapters
import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import MediationCLI

/// A third-party network that sends user data over HTTP (through the environment's
/// instrumented transport, as a factory should): an IFA, an email and a visitor id.
private struct LeakyFactory: NetworkAdapterFactory {
    static let ifa = "6D92078A-8246-4BA4-AE5B-76104861E7DC"
    static let email = "jane.doe@example.com"
    static let visitorID = "visitor-7f3a9c"

    var kind: String { "leaky" }
    var pricing: LineItem.Pricing { .fixedPrice }

    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        LeakyAdapter(network: network.id, transport: environment.instrumented(LeakyServer(), networkID: network.id))
    }

    private struct LeakyServer: HTTP.Transport {
        func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
            .json(Data(#"{"fill":true,"echo_visitor_id":"\#(LeakyFactory.visitorID)"}"#.utf8))
        }
    }

    private struct LeakyAdapter: AdNetworkAdapter {
        let network: String
        let transport: any HTTP.Transport

        func loadAd(for request: AdRequest) async -> AdLoadResult {
            let body = #"{"device":{"ifa":"\#(LeakyFactory.ifa)"},"user":{"email":"\#(LeakyFactory.email)"},"coppa":1}"#
            guard let url = URL(string: "https://leaky.example/ad?visitor_id=\(LeakyFactory.visitorID)&slot=\(request.adUnitID)") else { return .noFill(AdLoadResult.NoFillReason(code: "x")) }
            _ = try? await transport.send(HTTP.Request(method: "POST", url: url, headers: ["Content-Type": "application/json"], body: Data(body.utf8)))
            return .fill(FallbackAd(id: "leaky-1", creativeID: "c", network: network, format: request.format, size: AdSize(width: 320, height: 50)))
        }
    }
}

@Suite("mediate --debug")
struct DebugCommandTests {
    private static let leakyConfig = """
    {
      "networks": { "leaky": { "adapter": "leaky", "endpoint": "sandbox" } },
      "placements": {
        "home_banner": { "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 },
          "sources": [ { "id": "leaky_li", "network": "leaky", "ad_unit_id": "slot-1", "ecpm": 1 } ] }
      }
    }
    """

    @Test("user data appears only with --debug=unredacted: IFA, email and visitor id in the body, the URL and the response")
    func redaction() async throws {
        let workspace = try Workspace()
        try workspace.write(Self.leakyConfig, to: "Config/mediation.json")
        let registry = NetworkRegistry.standard.registering(LeakyFactory())
        let redacted = await workspace.run(["--placement", "home_banner", "--debug"], registry: registry)
        #expect(redacted.code == .success)
        #expect(redacted.output.contains("== leaky / leaky_li (auction "))
        #expect(redacted.output.contains("POST https://leaky.example/ad?visitor_id=[redacted]&slot=slot-1 -> HTTP 200"))
        #expect(redacted.output.contains(#"response body (48 bytes): {"echo_visitor_id":"[redacted]","fill":true}"#))
        #expect(redacted.output.contains(#"request body (107 bytes): {"coppa":1,"device":{"ifa":"[redacted]"},"user":{"email":"[redacted]"}}"#))
        for secret in [LeakyFactory.ifa, LeakyFactory.email, LeakyFactory.visitorID] {
            #expect(!redacted.output.contains(secret))
        }
        let plain = await workspace.run(["--placement", "home_banner", "--debug=unredacted"], registry: registry)
        #expect(plain.code == .success)
        #expect(plain.output.contains("UNREDACTED"))
        for secret in [LeakyFactory.ifa, LeakyFactory.email, LeakyFactory.visitorID] {
            #expect(plain.output.contains(secret))
        }
        // Without --debug nothing is recorded or printed.
        let quiet = await workspace.run(["--placement", "home_banner"], registry: registry)
        #expect(!quiet.output.contains("Debug:"))
    }

    @Test("--debug --json adds debug.exchanges: the adapter call and the HTTP exchange, redacted, with the body cap")
    func json() async throws {
        let workspace = try Workspace()
        try workspace.write(Self.leakyConfig, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "home_banner", "--debug", "--json"], registry: NetworkRegistry.standard.registering(LeakyFactory()))
        #expect(result.code == .success)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let debug = try #require(object["debug"] as? [String: Any])
        #expect(debug["redacted"] as? Bool == true)
        #expect(debug["body_cap"] as? Int == 8192)
        let exchanges = try #require(debug["exchanges"] as? [[String: Any]])
        #expect(exchanges.map { $0["kind"] as? String } == ["adapter_call", "http"])
        #expect(exchanges.allSatisfy { $0["line_item"] as? String == "leaky_li" && $0["network"] as? String == "leaky" })
        #expect(exchanges[0]["result"] as? String == "fill")
        #expect(exchanges[1]["status"] as? Int == 200)
        let request = try #require(exchanges[1]["request"] as? [String: Any])
        #expect((request["body"] as? String)?.contains(#""ifa":"[redacted]""#) == true)
        #expect(!result.output.contains(LeakyFactory.ifa))
    }

    @Test("home_banner under --debug: the request bodies of Elo, Nitx and Qartvelo and the fallback's requests, with the privacy signals sent")
    func standardNetworks() async throws {
        // A second auction (the refresh at 60 s) finds Nitx's config loaded, so Nitx POSTs its
        // ad request at once; virtual time makes the run repeat exactly.
        let result = await Workspace.runInRepository(["--placement", "home_banner", "--watch", "--fast", "--duration", "61", "--debug"])
        #expect(result.code == .success)
        let output = result.output
        let bodies = output.split(separator: "\n").filter { $0.contains("request body") }.map(String.init)
        // Elo: OpenRTB with COPPA, limit ad tracking and tmax; no user id (limit-ad-tracking
        // withholds the install id).
        let elo = try #require(bodies.first { $0.contains(#""tagid":"elo-home-banner""#) })
        #expect(elo.contains(#""regs":{"coppa":0"#))
        #expect(elo.contains(#""lmt":1"#))
        #expect(elo.contains(#""tmax":"#))
        #expect(elo.contains(#""user":{}"#))
        // Nitx: the POST ad request with the visitor block, its id redacted.
        let nitx = try #require(bodies.first { $0.contains(#""slot":"SLOT-HOMEBANNER""#) && $0.contains("visitor") })
        #expect(nitx.contains(#""visitor":{"consent":null,"id":"[redacted]""#))
        #expect(nitx.contains(#""ad_id":null"#))
        #expect(output.contains("POST https://nitx.sandbox/api/sdk/ads"))
        // Qartvelo: the banner request with regs.coppa and tmax.
        let qartvelo = try #require(bodies.first { $0.contains(#""placement_id":"qv-home-banner""#) })
        #expect(qartvelo.contains(#""regs":{"coppa":0}"#))
        #expect(qartvelo.contains(#""tmax":"#))
        // The fallback sends no HTTP: its section shows the engine's request to the adapter.
        #expect(output.contains("== admob_backfill / home_banner_backfill (auction "))
        let fallback = try #require(bodies.first { $0.contains(#""ad_unit_id":"ca-app-pub-0000000000000000/1000000003""#) })
        #expect(fallback.contains(#""privacy":{"coppa":0,"lmt":1,"tfua":0}"#))
        #expect(fallback.contains(#""time_budget_ms":3000"#))
        #expect(output.contains("Debug: adapter calls and HTTP exchanges ("))
        #expect(output.contains("bodies cut at 8192 characters"))
    }
}

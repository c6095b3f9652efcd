import Adapters
import Foundation
import MediationTestKit
@testable import Mediation
import Testing
@testable import MediationCLI

/// A host's network that answers the status hook.
private struct HouseFactory: NetworkAdapterFactory {
    var kind: String { "house" }
    var pricing: LineItem.Pricing { .fixedPrice }

    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        HouseAdapter()
    }

    private struct HouseAdapter: AdNetworkAdapter {
        func loadAd(for request: AdRequest) async -> AdLoadResult { .noFill(AdLoadResult.NoFillReason(code: "none")) }

        func status(for template: RequestTemplate) async -> NetworkStatus {
            NetworkStatus(version: "house-2.1", mode: "in-house ad server", initialization: "ready", privacy: ["coppa": template.privacy.coppa ? "1" : "0"], notes: ["serves cross-promotion"])
        }
    }
}

@Suite("mediate networks")
struct NetworksCommandTests {
    @Test("the shipped config: versions, sandbox endpoints, Nitx's mode, effective timeouts and privacy")
    func shipped() async throws {
        let result = await Workspace.runInRepository(["networks"])
        #expect(result.code == .success)
        let output = result.output
        #expect(output.hasPrefix("Networks of Config/mediation.json (6); host privacy signals: coppa 0, tfua 0, gdpr unknown, limit ad tracking on\n"))
        #expect(output.contains("elo: adapter elo 1.0.0, bidder\n  endpoint:  sandbox (in-process simulated server)\n"))
        #expect(output.contains("nitx: adapter nitx ios-1.0.0, fixed_price\n"))
        #expect(output.contains("  mode:      GET until the source's config is loaded (POST once it advertises the sdk block); override auto\n"))
        #expect(output.contains("  init:      config not loaded yet (loaded with the first request)\n"))
        #expect(output.contains("    chat_strip / chat_strip_premium: line item timeout_ms 1200 ms, deadline 1500 ms -> effective 1200 ms (line item timeout_ms)\n"))
        #expect(output.contains("    home_banner / home_banner_premium: line item timeout_ms none, deadline 3000 ms -> effective 2500 ms (network timeout_ms)\n"))
        #expect(output.contains("advertising_id not sent (tracking not allowed)"))
        #expect(output.contains("limit_ad_tracking on (lmt 1)"))
        #expect(output.contains("admob_backfill: adapter fallback, fixed_price\n"))
        // R24: each network's health and the rule it is held to.
        #expect(output.contains("  health:    on, closed (0 of 0 failed); pauses after 7 failures of the last 10, back-off 5000 ms to 600000 ms, 1 probe\n"), "\(output)")
    }

    @Test("--json: each network's health (on by default, off where the config turns it off)")
    func health() async throws {
        let workspace = try Workspace()
        try workspace.write("""
        {
          "health": { "failures_to_open": 3, "window": 6 },
          "networks": {
            "a": { "adapter": "fallback", "endpoint": "sandbox" },
            "b": { "adapter": "fallback", "endpoint": "sandbox", "health": { "enabled": false } }
          },
          "placements": {
            "p": { "format": "interstitial", "sources": [
              { "id": "x", "network": "a", "ad_unit_id": "x1", "ecpm": 1 },
              { "id": "y", "network": "b", "ad_unit_id": "y1", "ecpm": 1 } ] }
          }
        }
        """, to: "Config/mediation.json")
        let result = await workspace.run(["networks", "--json"])
        #expect(result.code == .success, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let networks = try #require(object["networks"] as? [[String: Any]])
        let a = try #require(networks.first?["health"] as? [String: Any])
        #expect(a["enabled"] as? Bool == true)
        #expect(a["state"] as? String == "closed")
        #expect(a["failures_to_open"] as? Int == 3)
        #expect(a["window"] as? Int == 6)
        #expect(a["backoff_ms"] as? Double == 5000)
        let b = try #require(networks.last?["health"] as? [String: Any])
        #expect(b["enabled"] as? Bool == false)
        let text = await workspace.run(["networks"])
        #expect(text.output.contains("b: adapter fallback, fixed_price\n  endpoint:  sandbox (in-process simulated server)\n"))
        #expect(text.output.contains("  health:    off\n"))
    }

    @Test("--state-dir: a network a run paused reads open, with its retry instant, from the stored health; without it, closed; a state dir that cannot be opened is exit 73", .enabled(if: !ThreadSanitizer.isOn, "a real run against 127.0.0.1 on the wall clock: the plain pass runs it (see ThreadSanitizer)"))
    func storedPause() async throws {
        let workspace = try Workspace()
        try workspace.write("""
        {
          "networks": {
            "down": { "adapter": "nitx", "credentials": { "source_code": "SDK-AM-DEMOI" }, "endpoint": "https://127.0.0.1:1/", "health": { "failures_to_open": 1, "window": 1 } },
            "up": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1, "latency_ms": 0 } }
          },
          "placements": {
            "p": { "format": "interstitial", "sources": [
              { "id": "x", "network": "down", "ad_unit_id": "SLOT-X", "ecpm": 2 },
              { "id": "y", "network": "up", "ad_unit_id": "y1", "ecpm": 1 } ] }
          }
        }
        """, to: "Config/mediation.json")
        #expect(await workspace.run(["config", "keygen", "--out", "k"]).code == .success)
        // A run whose one failure to reach "down" pauses it (1 of the last 1) and keeps the pause.
        let run = await workspace.run(["--placement", "p", "--config-url", "http://127.0.0.1:1/c.json", "--public-key", "k.pub", "--state-dir", "state"])
        #expect(run.code == .success, "\(run.error)")
        func health(_ arguments: [String]) async throws -> [String: Any] {
            let result = await workspace.run(["networks", "--json"] + arguments)
            #expect(result.code == .success, "\(result.error)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let networks = try #require(object["networks"] as? [[String: Any]])
            return try #require(networks.first { $0["id"] as? String == "down" }?["health"] as? [String: Any])
        }
        let stored = try await health(["--state-dir", "state"])
        #expect(stored["state"] as? String == "open", "\(stored)")
        #expect(stored["retry_at_ms"] as? Double != nil, "\(stored)")
        #expect(try await health([])["state"] as? String == "closed")
        let text = await workspace.run(["networks", "--state-dir", "state"])
        #expect(text.output.contains("  health:    on, open, tried again at "), "\(text.output)")
        try workspace.write("not a directory", to: "file")
        let refused = await workspace.run(["networks", "--state-dir", "file"])
        #expect(refused.code == .cannotCreate, "\(refused.code) \(refused.error)")
        #expect(refused.error.contains("--state-dir file"), "\(refused.error)")
    }

    @Test("--state-dir: a line item paused on its own shows under its network, with its retry instant; its network and other line items read closed", .enabled(if: !ThreadSanitizer.isOn, "a real run against 127.0.0.1 on the wall clock: the plain pass runs it (see ThreadSanitizer)"))
    func storedLineItemPause() async throws {
        let workspace = try Workspace()
        try workspace.write("""
        {
          "networks": {
            "a": { "adapter": "fallback", "endpoint": "sandbox" },
            "b": { "adapter": "fallback", "endpoint": "sandbox" }
          },
          "placements": {
            "p": { "format": "interstitial", "sources": [
              { "id": "x", "network": "a", "ad_unit_id": "x1", "ecpm": 1 },
              { "id": "y", "network": "b", "ad_unit_id": "y1", "ecpm": 1 } ] },
            "q": { "format": "interstitial", "sources": [
              { "id": "z", "network": "a", "ad_unit_id": "z1", "ecpm": 1 } ] }
          }
        }
        """, to: "Config/mediation.json")
        // What a run that paused line item z of q on its own (a answered for x) kept.
        let store = try FileStateStore(directory: workspace.directory.appendingPathComponent("state"))
        let retryAt = (Date().timeIntervalSince1970 + 120) * 1000
        try store.setData(Data(#"{"version":1,"retry_at_wall_ms":\#(retryAt),"backoff_ms":30000,"failed_probes":0,"openings":1,"network":"a","placement":"q","line_item":"z"}"#.utf8), forKey: HealthSubject.lineItem("z", placementID: "q", networkID: "a").storeKey)
        let text = await workspace.run(["networks", "--state-dir", "state"])
        #expect(text.code == .success, "\(text.error)")
        #expect(text.output.contains("  health:    on, closed (0 of 0 failed); pauses after 7 failures of the last 10, back-off 5000 ms to 600000 ms, 1 probe\n    q / z: line item open, tried again at "), "\(text.output)")
        #expect(!text.output.contains("p / x: line item open"))
        let result = await workspace.run(["networks", "--json", "--state-dir", "state"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let networks = try #require(object["networks"] as? [[String: Any]])
        let lineItems = try #require(networks.first?["line_items"] as? [[String: Any]])
        #expect(lineItems.map { $0["line_item"] as? String } == ["x", "z"])
        #expect(lineItems[0]["health"] == nil)
        let health = try #require(lineItems[1]["health"] as? [String: Any])
        #expect(health["state"] as? String == "open")
        #expect(health["retry_at_ms"] as? Double != nil)
        #expect((networks.first?["health"] as? [String: Any])?["state"] as? String == "closed")
        // Without the stored state, every line item reads closed and none is listed as paused.
        #expect(!(await workspace.run(["networks"])).output.contains("line item open"))
    }

    @Test("--state-dir with --public-key: the remote configuration a run stored there is the one shown (its caps), and the output says so; without the key, the bundled one with a note; a wrong key shows the bundled one and removes nothing", .enabled(if: !ThreadSanitizer.isOn, "a real run against 127.0.0.1 on the wall clock: the plain pass runs it (see ThreadSanitizer)"))
    func storedRemoteConfiguration() async throws {
        let workspace = try Workspace()
        func capped(_ impressions: Int, per seconds: Int) -> String {
            Workspace.instantConfig.replacingOccurrences(of: #""format": "banner", "sizing": "anchored","#, with: #""format": "banner", "caps": [{ "impressions": \#(impressions), "per_seconds": \#(seconds) }], "sizing": "anchored","#)
        }
        try workspace.write(capped(5, per: 3600), to: "Config/mediation.json")
        try workspace.write(capped(2, per: 60), to: "remote.json")
        #expect(await workspace.run(["config", "keygen", "--out", "k"]).code == .success)
        #expect(await workspace.run(["config", "keygen", "--out", "other"]).code == .success)
        let signed = await workspace.run(["config", "sign", "--key", "k", "--version", "2", "remote.json"])
        #expect(signed.code == .success, "\(signed.error)")
        let server = try await ConfigServer([.init(body: signed.output, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=300"])])
        defer { server.stop() }
        // A run applies version 2 and keeps it in the state directory.
        let run = await workspace.run(["--placement", "home_banner", "--config-url", server.url.absoluteString, "--public-key", "k.pub", "--state-dir", "state"])
        #expect(run.code == .success, "\(run.error)")
        #expect(run.error.contains("version 2 applied"), "\(run.error)")

        let stored = await workspace.run(["networks", "--state-dir", "state", "--public-key", "k.pub"])
        #expect(stored.code == .success, "\(stored.error)")
        #expect(stored.output.contains("\nIn force: the remote configuration stored in --state-dir, version 2 (not the bundled one)\n"), "\(stored.output)")
        #expect(stored.output.contains("home_banner / low: caps placement:home_banner 2/60s"), "\(stored.output)")
        #expect(!stored.output.contains("5/3600s"), "\(stored.output)")
        let json = await workspace.run(["networks", "--json", "--state-dir", "state", "--public-key", "k.pub"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let inForce = try #require(object["config_in_force"] as? [String: Any])
        #expect(inForce["version"] as? Int == 2 && inForce["source"] as? String == "cache", "\(inForce)")

        // Without the keys nothing stored can be verified: the bundled configuration, and a note.
        let bundled = await workspace.run(["networks", "--state-dir", "state"])
        #expect(bundled.code == .success)
        #expect(bundled.output.contains("\nIn force: the bundled configuration, version 0\n"), "\(bundled.output)")
        #expect(bundled.output.contains("home_banner / low: caps placement:home_banner 5/3600s"), "\(bundled.output)")
        #expect(bundled.error.contains("--state-dir state holds a stored remote configuration"), "\(bundled.error)")
        // Keys it does not verify with: the bundled configuration, a warning, and the stored one kept.
        let wrong = await workspace.run(["networks", "--state-dir", "state", "--public-key", "other.pub"])
        #expect(wrong.code == .success, "\(wrong.error)")
        #expect(wrong.output.contains("\nIn force: the bundled configuration, version 0\n"), "\(wrong.output)")
        #expect(wrong.error.contains("no longer verifies"), "\(wrong.error)")
        #expect(wrong.error.contains("mediate networks changes nothing in --state-dir"), "\(wrong.error)")
        let again = await workspace.run(["networks", "--state-dir", "state", "--public-key", "k.pub"])
        #expect(again.output.contains("version 2 (not the bundled one)"), "\(again.output)")
        // The server was asked once, by the run: networks sends nothing.
        #expect(try await server.receivedHeaders().count == 1)
        let usage = await workspace.run(["networks", "--public-key", "k.pub"])
        #expect(usage.code == .usage && usage.error.contains("--public-key applies to --state-dir only"), "\(usage.error)")
    }

    @Test("--json: one entry per network with its status; a host's network answers through the status hook, one without it says nothing")
    func json() async throws {
        let workspace = try Workspace()
        try workspace.write("""
        {
          "networks": {
            "house": { "adapter": "house", "endpoint": "https://ads.house.example/v1", "timeout_ms": 800 },
            "recorder": { "adapter": "recorder", "endpoint": "sandbox" }
          },
          "placements": {
            "p": { "format": "interstitial", "deadline_ms": 1000, "sources": [
              { "id": "h", "network": "house", "ad_unit_id": "h1", "ecpm": 1 },
              { "id": "r", "network": "recorder", "ad_unit_id": "r1", "ecpm": 1, "timeout_ms": 400 } ] }
          }
        }
        """, to: "Config/mediation.json")
        let registry = NetworkRegistry.standard.registering(HouseFactory()).registering(RecordingFactory())
        let result = await workspace.run(["networks", "--json"], registry: registry)
        #expect(result.code == .success)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let networks = try #require(object["networks"] as? [[String: Any]])
        #expect(networks.map { $0["id"] as? String } == ["house", "recorder"])
        let house = networks[0]
        #expect(house["sandbox"] as? Bool == false)
        #expect(house["endpoint"] as? String == "https://ads.house.example/v1")
        #expect(house["timeout_ms"] as? Double == 800)
        let status = try #require(house["status"] as? [String: Any])
        #expect(status["version"] as? String == "house-2.1")
        #expect(status["mode"] as? String == "in-house ad server")
        #expect((status["privacy"] as? [String: String])?["coppa"] == "0")
        let houseItems = try #require(house["line_items"] as? [[String: Any]])
        #expect(houseItems.first?["effective_ms"] as? Double == 800)
        #expect(houseItems.first?["limit"] as? String == "network timeout_ms")
        let recorder = networks[1]
        #expect(recorder["sandbox"] as? Bool == true)
        let silent = try #require(recorder["status"] as? [String: Any])
        #expect(silent["version"] == nil)
        #expect((silent["notes"] as? [String])?.isEmpty == true)
        let recorderItems = try #require(recorder["line_items"] as? [[String: Any]])
        #expect(recorderItems.first?["effective_ms"] as? Double == 400)
    }
}

@Suite("mediate --watch: network health")
struct WatchHealthTests {
    @Test("a network that never answers in time is paused, and the watch summary says how often and how it ended")
    func watchSummaryShowsHealth() async throws {
        let workspace = try Workspace()
        try workspace.write("""
        {
          "networks": {
            "slow": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1, "latency_ms": 5000, "latency_jitter_ms": 0 } },
            "ok": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1, "latency_ms": 10, "latency_jitter_ms": 0 } }
          },
          "placements": {
            "home_banner": { "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 }, "refresh_seconds": 30, "deadline_ms": 1000,
              "sources": [
                { "id": "slow_item", "network": "slow", "ad_unit_id": "s", "ecpm": 2 },
                { "id": "ok_item", "network": "ok", "ad_unit_id": "o", "ecpm": 1 } ] }
          }
        }
        """, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "400"])
        #expect(result.code == .success, "\(result.error)")
        let output = result.output
        #expect(output.contains("] network slow paused (failures: 7 of 7 failed) until "), "\(output)")
        #expect(output.contains("network health (R24):\n  slow: paused "), "\(output)")
        #expect(!output.contains("  ok: paused"))
        // The HTML report shows the same: its health table names the paused network only.
        let report = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "400", "--report", "watch.html"])
        #expect(report.code == .success, "\(report.error)")
        let page = try String(contentsOf: workspace.directory.appendingPathComponent("watch.html"), encoding: .utf8)
        #expect(page.contains("<h3>Network health (R24)</h3>"))
        #expect(page.contains("<tr><td>slow</td><td>"), "\(page.suffix(2000))")
        #expect(!page.contains("<tr><td>ok</td><td>"))
    }

    @Test("a line item paused on its own: its lines name it, and the summary lists it under its network")
    func watchNamesAPausedLineItem() {
        let output = CapturedOutput()
        let printer = WatchPrinter(output: output)
        let at = MediationInstant.origin + .seconds(30)
        func pause(_ network: String, lineItem: String? = nil, at: MediationInstant) -> MediationEvent {
            .networkPaused(MediationEvent.NetworkPause(networkID: network, cause: .failures, failures: 7, outcomes: 7, failedProbes: 0, backoffMilliseconds: 30000, retryAt: at + .seconds(30), at: at, placementID: lineItem == nil ? nil : "p", lineItemID: lineItem))
        }
        printer.print(pause("ads", lineItem: "bad", at: at))
        printer.print(pause("other", at: at + .seconds(1)))
        printer.print(pause("ads", at: at + .seconds(2)))
        printer.print(.networkResumed(networkID: "ads", failedProbes: 0, at: at + .seconds(40), placementID: "p", lineItemID: "bad"))
        printer.summary(at: at + .seconds(60), interrupted: false)
        let text = output.contents
        #expect(text.contains("] network ads line item bad paused (failures: 7 of 7 failed) until 60.000s\n"), "\(text)")
        #expect(text.contains("] network ads line item bad resumed after 0 failed probes\n"), "\(text)")
        #expect(text.contains("network health (R24):\n  ads: paused 1 time, resumed 0 times; at the end paused until 62.000s\n  ads line item bad: paused 1 time, resumed 1 time; at the end asked\n  other: paused 1 time"), "\(text)")
    }
}

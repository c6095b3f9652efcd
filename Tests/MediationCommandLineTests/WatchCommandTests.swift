import Foundation
import Mediation
import Testing
@testable import MediationCommandLine

@Suite("mediate --watch")
struct WatchCommandTests {
    @Test("--fast runs the banner on virtual time: auctions at 0, 60 and 120 s (refresh 60, instant fills), one impression each")
    func fastWatch() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "130"])
        #expect(result.code == .success)
        #expect(result.error.isEmpty)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "watching home_banner (banner, refresh 60 s) as one visible view for 130 s on virtual time (--fast)")
        let starts = lines.filter { $0.contains("] auction ") && $0.contains(" started ") }
        #expect(starts == [
            "[0.000s] auction 1 started (load)",
            "[60.000s] auction 2 started (refresh)",
            "[120.000s] auction 3 started (refresh)",
        ])
        #expect(lines.filter { $0.contains("] impression: always/low @ $0.50 eCPM, revenue $0.000500") }.count == 3)
        #expect(lines.filter { $0.contains("] retired: ") }.count == 3)
        #expect(lines.contains { $0.hasPrefix("[0.000s] auction 1 ended after 0 ms: low wins at $0.50 | high no fill") })
        #expect(lines.contains("[0.000s] next refresh at 60.000s while visible"))
        #expect(lines.last == "[130.000s] done: 3 auctions (3 filled), 3 impressions, revenue $0.001500 USD, 0 late answers")
    }

    @Test("a placement that never fills retries after each interval of visible time")
    func noFillWatch() async throws {
        let workspace = try Workspace()
        try workspace.write("""
        {
          "networks": { "never": { "adapter": "fallback", "options": { "fill_rate": 0, "latency_ms": 0 } } },
          "placements": {
            "empty_banner": {
              "format": "banner", "sizing": "anchored", "refresh_seconds": 30,
              "sources": [ { "id": "none", "network": "never", "ad_unit_id": "n", "ecpm": 1 } ]
            }
          }
        }
        """, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "empty_banner", "--watch", "--fast", "--duration", "61"])
        #expect(result.code == .success)
        let starts = result.output.split(separator: "\n").filter { $0.contains(" started ") }
        #expect(starts == ["[0.000s] auction 1 started (load)", "[30.000s] auction 2 started (refresh)", "[60.000s] auction 3 started (refresh)"])
        #expect(result.output.contains("done: 3 auctions (0 filled), 0 impressions"))
    }

    @Test("an interstitial is loaded once and shown; it does not refresh")
    func interstitialWatch() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "coin_flips", "--watch", "--fast", "--duration", "100"])
        #expect(result.code == .success)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "watching coin_flips (interstitial, no refresh) as one visible view for 100 s on virtual time (--fast)")
        #expect(lines.filter { $0.contains(" started ") } == ["[0.000s] auction 1 started (load)"])
        #expect(lines.last?.hasPrefix("[100.000s] done: 1 auctions") == true)
    }
}

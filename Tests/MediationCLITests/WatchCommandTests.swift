import Foundation
import Mediation
import Testing
@testable import MediationCLI

@Suite("mediate --watch")
struct WatchCommandTests {
    @Test("--fast runs the banner on virtual time: auctions at 0, 60 and 120 s (refresh 60, instant fills), one impression each")
    func fastWatch() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "130"])
        #expect(result.code == .success)
        // The only line on standard error says which networks answer from their sandbox.
        #expect(result.error == "mediate: warning: sandbox endpoints: always, never, coin answer from their in-process simulated servers, not real ad servers (sandbox_endpoint)\n")
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
          "networks": { "never": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 0, "latency_ms": 0 } } },
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

    @Test("--fast on the shipped config: an hour of home_banner is 60 auctions, one per refresh of 60 s, and two runs print the same lines")
    func fastWatchOfTheShippedConfigRepeats() async throws {
        let arguments = ["--placement", "home_banner", "--watch", "--fast", "--duration", "3600"]
        let first = await Workspace.runInRepository(arguments)
        let second = await Workspace.runInRepository(arguments)
        #expect(first.code == .success, "\(first.error)")
        #expect(second.code == .success, "\(second.error)")
        // The only line on standard error says which networks answer from their sandbox.
        #expect(first.error == "mediate: warning: sandbox endpoints: admob_premium, admob_standard, admob_backfill, elo, nitx, qartvelo answer from their in-process simulated servers, not real ad servers (sandbox_endpoint)\n", "\(first.error)")
        // Virtual time: the same inputs give the same run, line for line.
        #expect(first.output == second.output)
        #expect(first.error == second.error)

        let lines = first.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "watching home_banner (banner, refresh 60 s) as one visible view for 3600 s on virtual time (--fast)")
        let starts = lines.filter { $0.contains("] auction ") && $0.contains(" started ") }
        #expect(starts.count == 60)
        #expect(starts.first == "[0.000s] auction 1 started (load)")
        #expect(starts.dropFirst().allSatisfy { $0.hasSuffix(" started (refresh)") })
        #expect(lines.filter { $0.contains("] auction ") && $0.contains(" ended after ") }.count == 60)
        #expect(lines.filter { $0.contains("] impression: ") }.count == 60)
        #expect(lines.last?.hasPrefix("[3600.000s] done: 60 auctions (60 filled), 60 impressions, revenue $") == true, "\(lines.last ?? "")")

        // Each refresh is scheduled 60 s after its auction ended, and the next auction starts
        // exactly then; the 60th schedules one past the hour, which does not start.
        let scheduled = lines.filter { $0.contains("] next refresh at ") }
        #expect(scheduled.count == 60)
        let scheduledAt = try scheduled.map { line in
            (at: try #require(Self.instant(of: line)), due: try #require(Self.instant(after: "next refresh at ", in: line)))
        }
        for entry in scheduledAt {
            #expect(abs(entry.due - entry.at - 60) < 0.0005, "\(entry)")
        }
        let startInstants = try starts.map { try #require(Self.instant(of: $0)) }
        #expect(Array(startInstants.dropFirst()) == scheduledAt.dropLast().map(\.due))
        #expect(try #require(scheduledAt.last?.due) > 3600)
    }

    /// The seconds of a line's leading `[12.345s]`.
    private static func instant(of line: String) -> Double? {
        guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return nil }
        return seconds(line[line.index(after: line.startIndex)..<close])
    }

    /// The seconds of the `12.345s` that follows `marker` in `line`.
    private static func instant(after marker: String, in line: String) -> Double? {
        guard let range = line.range(of: marker) else { return nil }
        return seconds(line[range.upperBound...].prefix { $0 != " " })
    }

    private static func seconds(_ text: Substring) -> Double? {
        guard text.hasSuffix("s") else { return nil }
        return Double(text.dropLast())
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
        #expect(lines.last?.hasPrefix("[100.000s] done: 1 auction (") == true)
    }
}

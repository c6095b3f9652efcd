import Adapters
import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import MediationCLI

/// `mediate validate` and one-shot runs under engine rules R19 (valid means fillable, warnings
/// shown) and R17 (nothing from a network reaches the terminal raw).
@Suite("mediate validate, warnings and escaping")
struct ValidateAndEscapingTests {
    /// The shipped configuration with `old` replaced by `new`, written into a workspace.
    static func workspace(_ old: String, _ new: String) throws -> Workspace {
        let shipped = try String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/mediation.json"), encoding: .utf8)
        #expect(shipped.contains(old))
        let workspace = try Workspace()
        try workspace.write(shipped.replacingOccurrences(of: old, with: new), to: "Config/mediation.json")
        return workspace
    }

    @Test("validate exits 65 naming the source of a line item that can never fill: Elo on an interstitial")
    func validateRejectsAnUnfillableLineItem() async throws {
        let workspace = try Self.workspace(#"{ "id": "level_end_premium", "#, #"{ "id": "level_end_elo", "network": "elo", "ad_unit_id": "elo-level-end" }, { "id": "level_end_premium", "#)
        let result = await workspace.run(["validate"])
        #expect(result.code == .dataError)
        #expect(result.error == "mediate: invalid config Config/mediation.json: placements.level_end.sources[0]: Elo serves banner and native ads only; placement level_end is interstitial\n")
        #expect(result.output.isEmpty)
    }

    @Test("validate quotes a slot's height as configured, not rounded to whole points", arguments: [
        ("1e-9", "1e-9"), ("0.4", "0.4"), ("71.9", "71.9"), ("5E-324", "5e-324"),
    ])
    func validateQuotesTheSlotHeightAsGiven(_ given: String, _ shown: String) async throws {
        let workspace = try Self.workspace(#""slot": { "max_height": 100 }"#, #""slot": { "max_height": \#(given) }"#)
        let result = await workspace.run(["validate"])
        #expect(result.code == .dataError)
        #expect(result.error == "mediate: invalid config Config/mediation.json: placements.chat_strip.sources[0]: no Elo format fits a slot under 72 pt high (slot.max_height \(shown) pt)\n")
    }

    @Test("validate and a one-shot run print Elo's clamped geo_precision and the sandbox networks on standard error")
    func warningsAreShown() async throws {
        let workspace = try Self.workspace(#""geo_precision": 2"#, #""geo_precision": 99"#)
        let expected = """
        mediate: warning: networks.elo.options.geo_precision: geo_precision 99 clamped to 6 (option_clamped)
        mediate: warning: sandbox endpoints: admob_premium, admob_standard, admob_backfill, elo, nitx, qartvelo answer from their in-process simulated servers, not real ad servers (sandbox_endpoint)

        """
        let validate = await workspace.run(["validate"])
        #expect(validate.code == .success)
        #expect(validate.error == expected)
        let oneShot = await workspace.run(["--placement", "level_end", "--json"])
        #expect(oneShot.error == expected)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(oneShot.output.utf8)) as? [String: Any])
        let trace = try #require(report["trace"] as? [String: Any])
        let warnings = try #require(trace["warnings"] as? [[String: Any]])
        #expect(warnings.first?["code"] as? String == "sandbox_endpoint")
        #expect(warnings.first?["networks"] as? [String] == ["admob_premium", "nitx", "admob_standard", "admob_backfill"])
    }

    /// A creative id, line item and reason a hostile network or config could send.
    static let hostile = "cr\u{1B}[31mRED\nFAKE-LINE"

    @Test("the human report prints a hostile creative id, line item id and no-fill reason on one line each, with no raw escape")
    func humanReportEscapes() {
        let ad = FallbackAd(id: "ad\u{1B}1", creativeID: Self.hostile, network: "net", format: .banner, size: AdSize(width: 320, height: 50))
        let lineItem = LineItem.fixedPrice("li\u{1B}[2J", network: "net", eCPM: 1)
        let trace = AuctionTrace(auctionID: "a1", placementID: "p", mode: .parallel, startedAtMilliseconds: 0, endedAtMilliseconds: 10, deadlineMilliseconds: 3000, winner: lineItem.id, winningECPM: 1, sources: [
            AuctionTrace.Source(lineItemID: lineItem.id, network: "net", pricing: .fixedPrice, startOffsetMilliseconds: 0, latencyMilliseconds: 10, outcome: .won, eCPM: 1, creativeID: Self.hostile),
            AuctionTrace.Source(lineItemID: "other\nFAKE", network: "net", pricing: .fixedPrice, startOffsetMilliseconds: 0, latencyMilliseconds: 5, outcome: .noFill(AdLoadResult.NoFillReason(code: "x", message: "no\u{1B}[31m fill\nFAKE-ROW"))),
        ])
        let placement = MediationConfiguration.Placement(id: "p", format: .banner, bannerSizing: .anchored, sources: [lineItem])
        let text = HumanReport.render(placement: placement, outcome: OneShotOutcome(MediationEngine.AuctionOutcome(winner: MediationEngine.AuctionOutcome.Winner(ad: ad, lineItem: lineItem, eCPM: 1, arrivedAt: .origin), trace: trace)))
        #expect(!text.contains("\u{1B}"))
        #expect(text.contains(#"creative cr\u{1B}[31mRED\u{0A}FAKE-LINE,"#))
        #expect(!text.split(separator: "\n").contains { $0.hasPrefix("FAKE") })
        #expect(text.split(separator: "\n").count == 6) // placement, winner, auction, blank, header, 2 rows
    }

    @Test("the watch printer and event descriptions escape ids from networks and configs")
    func watchAndEventsEscape() {
        let output = CapturedOutput()
        let printer = WatchPrinter(output: output)
        let summary = MediationEvent.AdSummary(placementID: "p\u{1B}", adID: Self.hostile, creativeID: Self.hostile, network: "n\n", lineItemID: "l\u{7}", format: .banner, size: AdSize(width: 320, height: 50), eCPM: 1)
        let events: [MediationEvent] = [
            .adLoaded(summary, expiresAt: .origin + .seconds(3600), at: .origin),
            .released(summary, reason: .expired, at: .origin),
            .lateAnswer(MediationEvent.LateAnswer(auctionID: "a\n", placementID: "p", lineItemID: Self.hostile, arrivedAt: .origin, adReleased: true)),
        ]
        for event in events {
            printer.print(event)
            #expect(!event.description.contains("\u{1B}"))
            #expect(!event.description.contains("\n"))
        }
        #expect(!output.contents.contains("\u{1B}"))
        #expect(output.contents.split(separator: "\n").count == events.count)
    }

    @Test("a paused network's line says when it is tried again (docs/health.md: retry at N ms), in the table and the HTML report")
    func pausedNetworkRetryInstant() {
        let paused = AuctionTrace.Source(lineItemID: "li", network: "elo", pricing: .bidder, startOffsetMilliseconds: nil, latencyMilliseconds: nil, outcome: .notAsked(.networkPaused), retryAtMilliseconds: 22500.228)
        #expect(OutcomePresentation.detail(paused) == "network_paused; retry at 22500 ms")
        let tier = AuctionTrace.Source(lineItemID: "li", network: "elo", pricing: .fixedPrice, startOffsetMilliseconds: nil, latencyMilliseconds: nil, outcome: .notAsked(.tierNotReached))
        #expect(OutcomePresentation.detail(tier) == "waterfall tier not reached")
    }
}

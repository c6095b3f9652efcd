import Foundation
import Mediation
import MediationTestKit
import Testing

/// Engine rule R3a: each source's effective limit is the earliest of its line item's
/// `timeout_ms`, its network's `timeout_ms` (both counted from the moment the source is asked)
/// and the auction's deadline, enforced whatever the adapter does; the trace names the limit.
@Suite("R3a effective timeout")
struct EffectiveTimeoutTests {
    /// The shipped `level_end` waterfall on scripted networks: premium (6.50, network
    /// timeout 2500 ms), Nitx (5.20, network timeout 2000 ms), standard (4.00), backfill (1.50).
    static func levelEnd() -> MediationConfiguration.Placement {
        MediationConfiguration.Placement(id: "level_end", format: .interstitial, mode: .waterfall, sources: [
            .fixedPrice("level_end_premium", network: "admob_premium", eCPM: 6.50),
            .fixedPrice("level_end_nitx", network: "nitx", eCPM: 5.20),
            .fixedPrice("level_end_standard", network: "admob_standard", eCPM: 4.00),
            .fixedPrice("level_end_backfill", network: "admob_backfill", eCPM: 1.50),
        ])
    }

    @Test("a waterfall tier that never answers gives way at its network's timeout_ms, counted from when it was asked; the next tier fills at about 2.2 s")
    func neverAnsweringNitxTierTimesOutAndTheNextTierFills() async throws {
        let clock = ManualClock()
        let premium = ScriptedAdapter(network: "admob_premium", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(220), .noFill)])
        let nitx = ScriptedAdapter(network: "nitx", pricing: .fixedPrice, clock: clock, script: [.never])
        let standard = ScriptedAdapter(network: "admob_standard", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(140), .fill)])
        let backfill = ScriptedAdapter(network: "admob_backfill", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(90), .fill)])
        let engine = try TestEngine(
            placements: [Self.levelEnd()],
            adapters: [premium, nitx, standard, backfill],
            clock: clock,
            networkTimeouts: ["admob_premium": .milliseconds(2500), "nitx": .milliseconds(2000)]
        )
        let outcome = try await engine.runAuction("level_end")
        let nitxLine = try #require(outcome.trace.source("level_end_nitx"))
        #expect(nitxLine.startOffsetMilliseconds == 220)
        #expect(nitxLine.outcome == .timeout(.network))
        // The next tier is asked the instant Nitx's limit fires: 220 + 2000 ms.
        #expect(outcome.trace.source("level_end_standard")?.startOffsetMilliseconds == 2220)
        #expect(outcome.winner?.lineItem.id == "level_end_standard")
        #expect(outcome.trace.endedAtMilliseconds == 2360)
        #expect(outcome.trace.source("level_end_backfill")?.startOffsetMilliseconds == nil)
        #expect(nitx.requests.first?.deadline == .origin + .milliseconds(2220), "the request carries its effective limit")
    }

    @Test("a Nitx answer at 2106 ms loses to the network's timeout_ms of 2000 ms; its ad is released when it comes")
    func nitxAnswerAfterItsNetworkTimeout() async throws {
        let clock = ManualClock()
        let nitx = ScriptedAdapter(network: "nitx", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(2106), .fill)])
        let backfill = ScriptedAdapter(network: "admob_backfill", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(90), .fill)])
        let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [
            .fixedPrice("level_end_nitx", network: "nitx", eCPM: 5.20),
            .fixedPrice("level_end_backfill", network: "admob_backfill", eCPM: 1.50),
        ])
        let engine = try TestEngine(placements: [placement], adapters: [nitx, backfill], clock: clock, networkTimeouts: ["nitx": .milliseconds(2000)])
        let outcome = try await engine.runAuction("level_end")
        #expect(outcome.trace.endedAtMilliseconds == 2000)
        #expect(outcome.outcome(of: "level_end_nitx") == .timeout(.network))
        #expect(outcome.winner?.lineItem.id == "level_end_backfill")
        #expect(try #require(nitx.ads.first).releaseCount == 1)
        #expect(engine.lateAnswers.map(\.arrivedAt) == [.origin + .milliseconds(2106)])
    }

    @Test("a Qartvelo line item with timeout_ms 100 answering at 1409 ms times out at 100 ms (limit source)")
    func qartveloSourceTimeout() async throws {
        let clock = ManualClock()
        let qartvelo = ScriptedAdapter(network: "qartvelo", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(1409), .fill)])
        let backfill = ScriptedAdapter(network: "admob_backfill", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(50), .fill)])
        let placement = MediationConfiguration.Placement(id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxHeight: 90), sources: [
            .fixedPrice("home_banner_qartvelo", network: "qartvelo", eCPM: 1.50, timeout: .milliseconds(100)),
            .fixedPrice("home_banner_backfill", network: "admob_backfill", eCPM: 0.35),
        ])
        let engine = try TestEngine(placements: [placement], adapters: [qartvelo, backfill], clock: clock, networkTimeouts: ["qartvelo": .milliseconds(2000)])
        let outcome = try await engine.runAuction("home_banner")
        #expect(outcome.outcome(of: "home_banner_qartvelo") == .timeout(.source))
        #expect(outcome.trace.endedAtMilliseconds == 100)
        #expect(outcome.winner?.lineItem.id == "home_banner_backfill")
        #expect(try #require(qartvelo.ads.first).releaseCount == 1)
    }

    @Test("the earliest limit fires and is named: line item, network or deadline; on equal instants the deadline, then the line item")
    func theEarliestLimitIsNamed() async throws {
        struct Case: Sendable {
            var source: Duration?
            var network: Duration?
            var deadline: Duration
            var limit: SourceOutcome.TimeoutLimit
            var at: Double
        }
        let cases: [Case] = [
            Case(source: .milliseconds(500), network: .milliseconds(800), deadline: .seconds(3), limit: .source, at: 500),
            Case(source: .milliseconds(900), network: .milliseconds(800), deadline: .seconds(3), limit: .network, at: 800),
            Case(source: nil, network: .milliseconds(2500), deadline: .seconds(1), limit: .deadline, at: 1000),
            Case(source: nil, network: nil, deadline: .seconds(3), limit: .deadline, at: 3000),
            Case(source: .milliseconds(700), network: .milliseconds(700), deadline: .seconds(3), limit: .source, at: 700),
            Case(source: .milliseconds(1000), network: nil, deadline: .seconds(1), limit: .deadline, at: 1000),
        ]
        for example in cases {
            let clock = ManualClock()
            let silent = ScriptedAdapter(network: "silent", pricing: .bidder, clock: clock, script: [.never])
            let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, deadline: example.deadline, sources: [
                .bidder("silent", timeout: example.source),
            ])
            var timeouts: [String: Duration] = [:]
            timeouts["silent"] = example.network
            let engine = try TestEngine(placements: [placement], adapters: [silent], clock: clock, networkTimeouts: timeouts)
            let outcome = try await engine.runAuction("p")
            #expect(outcome.outcome(of: "silent") == .timeout(example.limit), "\(example.limit)")
            #expect(outcome.trace.endedAtMilliseconds == example.at)
        }
    }

    @Test("a timeout is encoded with its limit: {\"status\":\"timeout\",\"limit\":\"network\"}, and decodes back")
    func timeoutEncodesItsLimit() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for limit in SourceOutcome.TimeoutLimit.allCases {
            let data = try encoder.encode(SourceOutcome.timeout(limit))
            #expect(String(decoding: data, as: UTF8.self) == #"{"limit":"\#(limit.rawValue)","status":"timeout"}"#)
            #expect(try JSONDecoder().decode(SourceOutcome.self, from: data) == .timeout(limit))
        }
        #expect(SourceOutcome.timeout(.network).description == "timeout (network)")
    }
}

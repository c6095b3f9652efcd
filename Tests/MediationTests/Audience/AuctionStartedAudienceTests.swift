import Foundation
@testable import Mediation
import MediationTestKit
import Testing

@Suite("auction_started carries the auction's country and segment")
struct AuctionStartedAudienceTests {
    static func record(_ event: MediationEvent) throws -> [String: Any] {
        let line = try #require(MediationEvent.NDJSONWriter.line(for: event))
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("a one-shot auction's auction_started names the country and segment its trace names")
    func oneShot() async throws {
        let (outcome, engine) = try await SegmentAuctionTests.run(country: "GB")
        let started = try #require(engine.recorder.events.first { $0.name == "auction_started" })
        guard case .auctionStarted(_, _, _, _, _, let country, let segment) = started else {
            Issue.record("not auction_started: \(started)")
            return
        }
        #expect(country == "GB" && segment == "tier1")
        #expect(outcome.trace.country == country && outcome.trace.segment == segment)
        let json = try Self.record(started)
        #expect(json["country"] as? String == "GB")
        #expect(json["segment"] as? String == "tier1")
        #expect(json["reason"] as? String == "one_shot")
    }

    @Test("a placement's auction_started (load) carries them too; without a country only the segment")
    func placementLoad() async throws {
        for (country, expected) in [("US", ("US", "tier1")), (nil, (nil, "default"))] as [(String?, (String?, String))] {
            let clock = ManualClock()
            let netA = ScriptedAdapter(network: "NetA", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)])
            let netB = ScriptedAdapter(network: "NetB", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)])
            let engine = try TestEngine(placements: [SegmentAuctionTests.placement()], adapters: [netA, netB], clock: clock, requestTemplate: RequestTemplate(device: AdRequest.Device(country: country)))
            let placement = try #require(engine.engine.placement("level_end"))
            let task = clock.startTask { await placement.load() }
            await clock.advance(to: .origin + .seconds(1))
            _ = await task.value
            let started = try #require(engine.recorder.events.first { $0.name == "auction_started" })
            let json = try Self.record(started)
            #expect(json["country"] as? String == expected.0, "\(String(describing: country))")
            #expect(json["segment"] as? String == expected.1)
            #expect(json["reason"] as? String == "load")
            let finished = try #require(engine.recorder.traces.first)
            #expect(finished.country == expected.0 && finished.segment == expected.1)
        }
    }

    @Test("under an experiment, auction_started carries the experiment and the country, after the exposure")
    func withExperiment() async throws {
        let harness = try ExperimentHarness(installID: ExperimentHarness.inB, requestTemplate: RequestTemplate(device: AdRequest.Device(country: "de")))
        try await harness.loadAndShow("level_end")
        #expect(harness.recorder.names.prefix(2) == ["exposure", "auction_started"])
        let started = try #require(harness.records.first { $0["event"] as? String == "auction_started" })
        #expect(started["country"] as? String == "DE")
        #expect(started["segment"] == nil, "level_end has no segments")
        #expect(started["experiment"] as? String == "wf" && started["variant"] as? String == "B")
        await harness.shutdown()
    }
}

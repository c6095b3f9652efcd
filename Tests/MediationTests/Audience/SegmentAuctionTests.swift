import Foundation
import MediationTestKit
import Testing
@testable import Mediation

@Suite("Segments in auctions")
struct SegmentAuctionTests {
    /// `level_end` with NetA (1.20, 4.20 in the US, 0.60 in India) and NetB (0.80), both
    /// filling after 100 ms, and segments `tier1` (US, CA, GB: NetB at 5.00) then `default`.
    static func placement() throws -> MediationConfiguration.Placement {
        var netA = LineItem.fixedPrice("NetA", eCPM: 1.20)
        netA.eCPMByCountry = ["US": 4.20, "IN": 0.60]
        var placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [netA, .fixedPrice("NetB", eCPM: 0.80)])
        let when = try ConfigurationLoader.decodePredicate(StrictJSONReader.parse(Array(#"{"country": {"in": ["US", "CA", "GB"]}}"#.utf8)), at: .root, depth: 0)
        placement.segments = [
            AudienceSegment(id: "tier1", predicate: when, override: MediationConfiguration.PlacementOverride(eCPM: ["NetB": 5.0]), path: "placements.level_end.segments[0]"),
            AudienceSegment(id: "default", predicate: nil, override: MediationConfiguration.PlacementOverride(), path: "placements.level_end.segments[1]"),
        ]
        return placement
    }

    static func run(country: String?) async throws -> (MediationEngine.AuctionOutcome, TestEngine) {
        let clock = ManualClock()
        let netA = ScriptedAdapter(network: "NetA", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)])
        let netB = ScriptedAdapter(network: "NetB", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)])
        let template = RequestTemplate(device: AdRequest.Device(country: country))
        let engine = try TestEngine(placements: [placement()], adapters: [netA, netB], clock: clock, requestTemplate: template)
        return (try await engine.runAuction("level_end"), engine)
    }

    @Test func theUSAndIndiaGetTheirOwnSegmentAndPrices() async throws {
        let (us, _) = try await Self.run(country: "USA")
        #expect(us.trace.country == "US")
        #expect(us.trace.segment == "tier1")
        #expect(us.trace.segmentReason == "tier1: country US in [US, CA, GB]")
        // tier1 sets NetB to 5.00, beating NetA's US price 4.20.
        #expect(us.trace.winner == "NetB")
        #expect(us.trace.winningECPM == 5.0)
        #expect(us.trace.source("NetA")?.configuredECPM == 4.2)

        let (india, engine) = try await Self.run(country: "in")
        #expect(india.trace.country == "IN")
        #expect(india.trace.segment == "default")
        #expect(india.trace.segmentReason == "default: no earlier segment matched")
        // The default keeps NetB at 0.80, above NetA's Indian price 0.60.
        #expect(india.trace.winner == "NetB")
        #expect(india.trace.winningECPM == 0.8)
        #expect(india.trace.source("NetA")?.configuredECPM == 0.6)

        // The text trace says it on its second line.
        #expect(india.trace.description.split(separator: "\n").dropFirst().first == "country IN; segment default: no earlier segment matched")

        // The NDJSON record of auction_finished carries them through the trace.
        let finished = try #require(engine.recorder.events.first { $0.name == "auction_finished" })
        let json = try #require(String(data: try JSONEncoder().encode(EventRecord(finished)), encoding: .utf8))
        #expect(json.contains(#""country":"IN""#))
        #expect(json.contains(#""segment":"default""#))
        #expect(json.contains(#""segment_reason":"default: no earlier segment matched""#))
    }

    @Test func aPlacementsAdAndItsShownEventCarryCountryAndSegment() async throws {
        let clock = ManualClock()
        let netA = ScriptedAdapter(network: "NetA", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)])
        let netB = ScriptedAdapter(network: "NetB", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(100), .fill)])
        let engine = try TestEngine(placements: [Self.placement()], adapters: [netA, netB], clock: clock, requestTemplate: RequestTemplate(device: AdRequest.Device(country: "GB")))
        let placement = try #require(engine.engine.placement("level_end"))
        let task = clock.startTask { await placement.load() }
        await clock.runUntilIdle()
        await clock.advance(to: .origin + .seconds(1))
        guard case .loaded(let ad) = await task.value else {
            Issue.record("no ad")
            return
        }
        let loaded = try #require(engine.recorder.events.first { $0.name == "ad_loaded" })
        #expect(loaded.ad?.country == "GB")
        #expect(loaded.ad?.segment == "tier1")
        _ = await placement.reportShown(ad.ad)
        let shown = try #require(engine.recorder.events.first { $0.name == "shown" })
        let record = EventRecord(shown)
        #expect(record.country == "GB")
        #expect(record.segment == "tier1")
        let json = try #require(String(data: try JSONEncoder().encode(record), encoding: .utf8))
        #expect(json.contains(#""segment":"tier1""#))
    }

    @Test func theEngineListsSegmentWarningsWithTheirPaths() throws {
        var placement = try Self.placement()
        // A second segment for the US alone, after tier1 (US, CA, GB): never chosen.
        let usOnly = try ConfigurationLoader.decodePredicate(StrictJSONReader.parse(Array(#"{"country": {"in": ["US"]}}"#.utf8)), at: .root, depth: 0)
        placement.segments.insert(AudienceSegment(id: "us", predicate: usOnly, override: MediationConfiguration.PlacementOverride(), path: "placements.level_end.segments[1]"), at: 1)
        let clock = ManualClock()
        let engine = try TestEngine(placements: [placement], adapters: [ScriptedAdapter(network: "NetA", pricing: .fixedPrice, clock: clock, script: []), ScriptedAdapter(network: "NetB", pricing: .fixedPrice, clock: clock, script: [])], clock: clock)
        let warnings = engine.engine.configurationWarnings.filter { $0.code == .segmentUnreachable }
        #expect(warnings.map(\.path) == ["placements.level_end.segments[1]"])
    }

    @Test func anUnknownCountryTakesTheDefaultAtTheConfiguredPrice() async throws {
        let (outcome, _) = try await Self.run(country: nil)
        #expect(outcome.trace.country == nil)
        #expect(outcome.trace.segment == "default")
        #expect(outcome.trace.winner == "NetA")
        #expect(outcome.trace.winningECPM == 1.2)
    }

    @Test func aConfigurationWithSegmentsLoads() throws {
        let json = ConfigurationFixture.edited(#""sources": [ { "id": "fb_x""#, #""segments": [ { "id": "tier1", "when": { "country": { "in": ["US", "CA"] } }, "ecpm": { "fb_x": 7 } }, { "id": "rest" } ], "sources": [ { "id": "fb_x""#)
        let placement = try #require(try ConfigurationFixture.load(json).placement("level_end"))
        #expect(placement.segments.map(\.id) == ["tier1", "rest"])
        #expect(placement.segments[0].override.eCPM == ["fb_x": 7])
        #expect(placement.segments[1].predicate == nil)
        #expect(placement.segments[0].path == "placements.level_end.segments[0]")
    }

    @Test(arguments: [
        (#"[]"#, "placements.level_end.segments", "missing_field"),
        (#"[ { "id": "a", "when": { "country": { "in": ["US"] } } } ]"#, "placements.level_end.segments[0].when", "invalid_value"),
        (#"[ { "id": "a" }, { "id": "b" } ]"#, "placements.level_end.segments[0].when", "missing_field"),
        (#"[ { "id": "a", "when": { "country": { "in": ["US"] } } }, { "id": "a" } ]"#, "placements.level_end.segments[1].id", "duplicate_id"),
        (#"[ { "when": { "country": { "in": ["US"] } } }, { "id": "b" } ]"#, "placements.level_end.segments[0].id", "missing_field"),
        (#"[ { "id": "a", "when": { "country": { "in": ["US"] } }, "ecpm": { "nope": 1 } }, { "id": "b" } ]"#, "placements.level_end.segments[0].ecpm.nope", "invalid_value"),
        (#"[ { "id": "a", "when": { "country": { "in": ["US"] } }, "colour": 1 }, { "id": "b" } ]"#, "placements.level_end.segments[0].colour", "unknown_key"),
        (#"[ { "id": "a", "when": { "country": { "in": ["US"] } } }, { "id": "b", "floor": 9 } ]"#, "placements.level_end.segments[1].floor", "unfillable"),
    ])
    func segmentMistakesNameTheirPath(_ segments: String, _ path: String, _ code: String) {
        let json = ConfigurationFixture.edited(#""sources": [ { "id": "fb_x""#, #""segments": \#(segments), "sources": [ { "id": "fb_x""#)
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationFixture.load(json) }
        #expect(error?.path == path, "\(segments)")
        #expect(error?.code.rawValue == code, "\(segments)")
    }
}

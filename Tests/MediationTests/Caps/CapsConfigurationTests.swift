import Testing
@testable import Mediation

@Suite("Caps in the configuration")
struct CapsConfigurationTests {
    @Test("caps and pacing at the app, placement, network and line-item levels load")
    func everyLevelLoads() throws {
        var json = ConfigurationFixture.edited(#""currency_rates": { "EUR": 1.08 }"#, #""currency_rates": { "EUR": 1.08 }, "app": { "caps": [{ "impressions": 40, "per_seconds": 86400 }], "pacing_seconds": 30, "full_screen_gap_seconds": 45 }"#)
        json = json.replacingOccurrences(of: #""format": "interstitial", "deadline_ms": 2000,"#, with: #""format": "interstitial", "caps": [{ "impressions": 20, "per_seconds": 86400 }, { "impressions": 3, "per": "session" }], "pacing_seconds": 600, "deadline_ms": 2000,"#)
        json = json.replacingOccurrences(of: #""bid": { "adapter": "bidkind","#, with: #""bid": { "caps": [{ "impressions": 5, "per_seconds": 3600 }], "adapter": "bidkind","#)
        json = json.replacingOccurrences(of: #""ecpm": 5, "timeout_ms": 1500 }"#, with: #""ecpm": 5, "timeout_ms": 1500, "pacing_seconds": 120 }"#)
        let configuration = try ConfigurationFixture.load(json)
        #expect(configuration.app.caps == MediationConfiguration.CapSettings(caps: [.init(impressions: 40, window: .seconds(86_400))], pacingSeconds: 30))
        #expect(configuration.app.fullScreenGapSeconds == 45)
        let placement = try #require(configuration.placement("level_end"))
        #expect(placement.caps.caps == [.init(impressions: 20, window: .seconds(86_400)), .init(impressions: 3, window: .session)])
        #expect(placement.caps.pacingSeconds == 600)
        #expect(configuration.network("bid")?.caps.caps == [.init(impressions: 5, window: .seconds(3600))])
        #expect(placement.sources.first?.caps.pacingSeconds == 120)
    }

    @Test("without caps: nothing is limited and the gap is the default 30 s")
    func defaults() throws {
        let configuration = try ConfigurationFixture.load(ConfigurationFixture.base)
        #expect(configuration.app == MediationConfiguration.AppSettings())
        #expect(configuration.app.fullScreenGapSeconds == 30)
        #expect(configuration.placements.allSatisfy { $0.caps.isEmpty })
    }

    @Test("a bad cap names its JSON path", arguments: [
        (#"[{ "impressions": 0, "per_seconds": 60 }]"#, "placements.level_end.caps[0].impressions"),
        (#"[{ "impressions": 2, "per_seconds": 2592001 }]"#, "placements.level_end.caps[0].per_seconds"),
        (#"[{ "impressions": 2 }]"#, "placements.level_end.caps[0].per_seconds"),
        (#"[{ "impressions": 2, "per": "day" }]"#, "placements.level_end.caps[0].per"),
        (#"[{ "impressions": 2, "per": "session", "per_seconds": 5 }]"#, "placements.level_end.caps[0].per"),
        (#"[{ "impressions": 2, "per_seconds": 60, "every": 1 }]"#, "placements.level_end.caps[0].every"),
        (#"{ "impressions": 2 }"#, "placements.level_end.caps"),
    ])
    func badCapNamesItsPath(cap: String, path: String) {
        let json = ConfigurationFixture.edited(#""format": "interstitial", "deadline_ms": 2000,"#, #""format": "interstitial", "caps": \#(cap), "deadline_ms": 2000,"#)
        #expect(throws: ConfigurationError.self) { try ConfigurationFixture.load(json) }
        do {
            _ = try ConfigurationFixture.load(json)
        } catch {
            #expect(error.path == path)
        }
    }

    @Test("a bad app setting names its JSON path", arguments: [
        (#"{ "full_screen_gap_seconds": -1 }"#, "app.full_screen_gap_seconds"),
        (#"{ "pacing_seconds": 0 }"#, "app.pacing_seconds"),
        (#"{ "gap": 1 }"#, "app.gap"),
        (#"[]"#, "app"),
    ])
    func badAppNamesItsPath(app: String, path: String) {
        let json = ConfigurationFixture.edited(#""currency_rates": { "EUR": 1.08 }"#, #""currency_rates": { "EUR": 1.08 }, "app": \#(app)"#)
        do {
            _ = try ConfigurationFixture.load(json)
            Issue.record("loaded")
        } catch {
            #expect(error.path == path)
        }
    }
}

@Suite("Caps in a placement override")
struct CapsOverrideTests {
    @Test("a segment's override carries caps and pacing, and applying it replaces the placement's")
    func segmentOverrideCarriesCaps() throws {
        let json = ConfigurationFixture.edited(#""format": "interstitial", "deadline_ms": 2000,"#, #""format": "interstitial", "caps": [{ "impressions": 20, "per_seconds": 86400 }], "segments": [{ "id": "tier1", "when": { "country": { "in": ["US"] } }, "caps": [{ "impressions": 5, "per_seconds": 86400 }], "pacing_seconds": 900 }, { "id": "default" }], "deadline_ms": 2000,"#)
        let placement = try #require(try ConfigurationFixture.load(json).placement("level_end"))
        let override = try #require(placement.segments.first?.override)
        #expect(override.caps == [.init(impressions: 5, window: .seconds(86_400))])
        #expect(override.pacingSeconds == 900)
        let applied = override.applied(to: placement)
        #expect(applied.caps == MediationConfiguration.CapSettings(caps: [.init(impressions: 5, window: .seconds(86_400))], pacingSeconds: 900))
        #expect(placement.segments.last?.override.applied(to: placement).caps == placement.caps)
    }
}

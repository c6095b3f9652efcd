import Foundation
@testable import MediationSimulation
import Testing

/// The independent counter applies the caps, pacing and gap a config file states, at exact
/// instants: a planted violation counts once, an impression at the rule's edge counts none.
@Suite("Users cap counter")
struct CapCounterTests {
    static let config = """
    {
      "app": { "caps": [ { "impressions": 3, "per_seconds": 3600 } ], "full_screen_gap_seconds": 20 },
      "networks": { "nitx": { "adapter": "nitx", "pacing_seconds": 5 } },
      "placements": {
        "level_end": {
          "format": "interstitial", "pacing_seconds": 600,
          "caps": [ { "impressions": 2, "per": "session" } ],
          "sources": [ { "id": "le_nitx", "network": "nitx", "ad_unit_id": "x", "caps": [ { "impressions": 1, "per_seconds": 60, "x": true } ] } ]
        },
        "home_banner": { "format": "banner", "sources": [ { "id": "hb_nitx", "network": "nitx", "ad_unit_id": "y" } ] }
      }
    }
    """

    func counter() throws -> CapCounter {
        CapCounter(rules: try #require(CapRules.read(Data(Self.config.utf8))))
    }

    @Test func readsEveryLevelOfTheConfigFile() throws {
        let rules = try #require(CapRules.read(Data(Self.config.utf8)))
        #expect(rules.rules["app"] == [.window(impressions: 3, milliseconds: 3_600_000)])
        #expect(rules.rules["placement:level_end"] == [.pacing(milliseconds: 600_000), .session(impressions: 2)])
        #expect(rules.rules["network:nitx"] == [.pacing(milliseconds: 5000)])
        #expect(rules.rules["line_item:level_end/le_nitx"] == [.window(impressions: 1, milliseconds: 60_000)])
        #expect(rules.fullScreenGapMilliseconds == 20_000)
        #expect(rules.fullScreenPlacements == ["level_end"])
        #expect(CapRules.read(Data("[1]".utf8)) == nil)
    }

    @Test func aPlantedPacingViolationCountsOnce() throws {
        var counter = try counter()
        #expect(counter.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", at: 0, end: 10_000).isEmpty)
        // 600 s pacing: one millisecond early breaks it (and nothing else: the gap, 5 s network
        // pacing and the 1 per 60 s line-item cap are long met).
        let broken = counter.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", at: 599_999, end: 610_000)
        #expect(broken.map(\.kind) == ["pacing"])
        #expect(broken.first?.description == "placement:level_end pacing 600 s: 599.999 s after the previous")
    }

    @Test func atThePacingInstantNothingBreaks() throws {
        var counter = try counter()
        _ = counter.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", at: 0, end: 10_000)
        #expect(counter.earliestShow(placement: "level_end", network: "nitx", lineItem: "le_nitx", from: 1000) == 600_000)
        #expect(counter.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", at: 600_000, end: 610_000).isEmpty)
    }

    @Test func theSlidingWindowSessionCapAndGap() throws {
        var counter = try counter()
        // Banners: only the app's 3 per hour and the network's 5 s pacing apply to them.
        #expect(counter.impression(placement: "home_banner", network: "nitx", lineItem: "hb_nitx", at: 0, end: nil).isEmpty)
        #expect(counter.impression(placement: "home_banner", network: "nitx", lineItem: "hb_nitx", at: 4999, end: nil).map(\.kind) == ["pacing"])
        #expect(counter.impression(placement: "home_banner", network: "nitx", lineItem: "hb_nitx", at: 10_000, end: nil).isEmpty)
        // The fourth within the hour (0, 4.999 s, 10 s, now): the app's window.
        #expect(counter.impression(placement: "home_banner", network: "nitx", lineItem: "hb_nitx", at: 3_599_999, end: nil).map(\.kind) == ["window"])
        // An hour after the first, the first has left the window (0, 4.999 s and 10 s are
        // gone by 3,610,000; 3,599,999 is in).
        #expect(counter.impression(placement: "home_banner", network: "nitx", lineItem: "hb_nitx", at: 3_610_000, end: nil).isEmpty)
    }

    @Test func aWindowFreesExactlyWindowAfterItsOldest() {
        let rules = CapRules(rules: ["line_item:p/x": [.window(impressions: 1, milliseconds: 60_000)]], fullScreenGapMilliseconds: 0, fullScreenPlacements: [])
        var counter = CapCounter(rules: rules)
        #expect(counter.impression(placement: "p", network: "n", lineItem: "x", at: 0, end: nil).isEmpty)
        var early = counter
        #expect(early.impression(placement: "p", network: "n", lineItem: "x", at: 59_999, end: nil).map(\.description) == ["line_item:p/x cap 1/60 s: 2 in the window"])
        #expect(counter.earliestShow(placement: "p", network: "n", lineItem: "x", from: 1) == 60_000)
        #expect(counter.impression(placement: "p", network: "n", lineItem: "x", at: 60_000, end: nil).isEmpty)
    }

    @Test func theFullScreenGapRunsFromTheEndOfOneToTheStartOfTheNext() {
        let rules = CapRules(rules: [:], fullScreenGapMilliseconds: 20_000, fullScreenPlacements: ["a", "b"])
        var counter = CapCounter(rules: rules)
        #expect(counter.impression(placement: "a", network: "n", lineItem: "x", at: 0, end: 30_000).isEmpty)
        #expect(counter.earliestShow(placement: "b", network: "n", lineItem: "y", from: 0) == 50_000)
        var early = counter, onTop = counter
        #expect(early.impression(placement: "b", network: "n", lineItem: "y", at: 49_999, end: 60_000).map(\.description) == ["full-screen gap 20 s: b 19.999 s after the previous one ended"])
        #expect(onTop.impression(placement: "b", network: "n", lineItem: "y", at: 10_000, end: 60_000).map(\.description) == ["full-screen gap 20 s: b while the previous one was on screen"])
        #expect(counter.impression(placement: "b", network: "n", lineItem: "y", at: 50_000, end: 60_000).isEmpty)
        // An ad cut short (the app died) ends when it left the screen.
        counter.endFullScreen(at: 55_000)
        #expect(counter.impression(placement: "a", network: "n", lineItem: "x", at: 75_000, end: 80_000).isEmpty)
    }

    @Test func aSessionCapCountsWithinOneSession() throws {
        let rules = CapRules(rules: ["placement:p": [.session(impressions: 2)]], fullScreenGapMilliseconds: 0, fullScreenPlacements: [])
        var counter = CapCounter(rules: rules)
        #expect(counter.impression(placement: "p", network: "n", lineItem: "x", at: 0, end: nil).isEmpty)
        #expect(counter.impression(placement: "p", network: "n", lineItem: "x", at: 1, end: nil).isEmpty)
        #expect(counter.impression(placement: "p", network: "n", lineItem: "x", at: 2, end: nil).map(\.kind) == ["session"])
        counter.newSession()
        #expect(counter.impression(placement: "p", network: "n", lineItem: "x", at: 3, end: nil).isEmpty)
    }

    static let segmented = """
    {
      "app": { "full_screen_gap_seconds": 0 },
      "networks": { "nitx": { "adapter": "nitx" } },
      "placements": {
        "level_end": {
          "format": "interstitial", "caps": [ { "impressions": 5, "per_seconds": 3600 } ],
          "segments": [ { "id": "tier1", "when": { "country": { "in": ["US"] } }, "caps": [ { "impressions": 2, "per_seconds": 3600 } ] }, { "id": "default" } ],
          "sources": [ { "id": "le_nitx", "network": "nitx", "ad_unit_id": "x" } ]
        }
      },
      "experiments": [ { "id": "e", "salt": "s", "variants": [ { "id": "A" }, { "id": "B", "placements": { "level_end": { "pacing_seconds": 60 } } } ] } ]
    }
    """

    @Test("a segment's caps replace the placement's for the impressions of its users (the 3rd in an hour breaks 2 per hour, not the default's 5); a variant's pacing adds to them")
    func segmentAndVariantRules() throws {
        let rules = try #require(CapRules.read(Data(Self.segmented.utf8)))
        #expect(rules.segments["level_end"]?["tier1"] == CapRules.Override(caps: [.window(impressions: 2, milliseconds: 3_600_000)], pacing: nil))
        #expect(rules.segments["level_end"]?["default"] == nil)
        #expect(rules.variants["level_end"]?[CapRules.variantKey(experiment: "e", variant: "B")] == CapRules.Override(caps: nil, pacing: .pacing(milliseconds: 60_000)))
        var tier1 = CapCounter(rules: rules)
        var other = CapCounter(rules: rules)
        for at: Int64 in [0, 10_000] {
            #expect(tier1.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", segment: "tier1", at: at, end: nil).isEmpty)
            #expect(other.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", segment: "default", at: at, end: nil).isEmpty)
        }
        #expect(tier1.earliestShow(placement: "level_end", network: "nitx", lineItem: "le_nitx", segment: "tier1", from: 20_000) == 3_600_000)
        var early = tier1
        #expect(early.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", segment: "tier1", at: 3_599_999, end: nil).map(\.description) == ["placement:level_end cap 2/3600 s: 3 in the window"])
        #expect(tier1.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", segment: "tier1", at: 3_600_000, end: nil).isEmpty)
        #expect(other.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", segment: "default", at: 20_000, end: nil).isEmpty)
        // Variant B: its pacing of 60 s on top of the segment's caps.
        let b = CapRules.variantKey(experiment: "e", variant: "B")
        #expect(other.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", segment: "default", variant: b, at: 79_999, end: nil).map(\.kind) == ["pacing"])
    }

    @Test("a variant with segments of its own: its installs' segment is looked up in the variant's list (B's tier1 allows 1 an hour), control's in the placement's (2 an hour)")
    func variantSegments() throws {
        let json = Self.segmented.replacingOccurrences(
            of: #""placements": { "level_end": { "pacing_seconds": 60 } }"#,
            with: #""placements": { "level_end": { "segments": [ { "id": "tier1", "when": { "country": { "in": ["US"] } }, "caps": [ { "impressions": 1, "per_seconds": 3600 } ] }, { "id": "default" } ] } }"#
        )
        let rules = try #require(CapRules.read(Data(json.utf8)))
        let b = CapRules.variantKey(experiment: "e", variant: "B")
        let a = CapRules.variantKey(experiment: "e", variant: "A")
        #expect(rules.variantSegments["level_end"]?[b]?["tier1"] == CapRules.Override(caps: [.window(impressions: 1, milliseconds: 3_600_000)], pacing: nil))
        var inB = CapCounter(rules: rules)
        var inA = CapCounter(rules: rules)
        #expect(inB.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", segment: "tier1", variant: b, at: 0, end: nil).isEmpty)
        #expect(inA.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", segment: "tier1", variant: a, at: 0, end: nil).isEmpty)
        #expect(inB.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", segment: "tier1", variant: b, at: 10_000, end: nil).map(\.description) == ["placement:level_end cap 1/3600 s: 2 in the window"])
        #expect(inA.impression(placement: "level_end", network: "nitx", lineItem: "le_nitx", segment: "tier1", variant: a, at: 10_000, end: nil).isEmpty)
    }
}

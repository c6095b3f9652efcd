import Testing
@testable import Mediation

@Suite("Segment reachability warnings")
struct SegmentReachabilityTests {
    /// The warnings of `level_end` (one source `fb_x`, plus `fb_y` added) with `segments`.
    static func warnings(_ segments: String) throws -> [MediationConfiguration.Warning] {
        let json = ConfigurationFixture.edited(
            #""sources": [ { "id": "fb_x", "network": "fb", "ad_unit_id": "u4", "ecpm": 5, "timeout_ms": 1500 } ]"#,
            #""segments": \#(segments), "sources": [ { "id": "fb_x", "network": "fb", "ad_unit_id": "u4", "ecpm": 5, "timeout_ms": 1500 }, { "id": "fb_y", "network": "fb", "ad_unit_id": "u5", "ecpm": 1 } ]"#
        )
        let placement = try #require(try ConfigurationFixture.load(json).placement("level_end"))
        return SegmentReachability.warnings(for: placement)
    }

    static let us = #"{ "country": { "in": ["US"] } }"#
    static let usCA = #"{ "country": { "in": ["US", "CA"] } }"#

    @Test func reachableSegmentsGiveNoWarning() throws {
        #expect(try Self.warnings(#"[ { "id": "a", "when": \#(Self.us) }, { "id": "b", "when": \#(Self.usCA) }, { "id": "d" } ]"#).isEmpty)
        #expect(try Self.warnings(#"[ { "id": "a", "when": { "custom.level": { ">": 10 } } }, { "id": "b", "when": { "custom.level": { ">=": 5 } } }, { "id": "d" } ]"#).isEmpty)
    }

    @Test func aSegmentAfterAnEqualOrWeakerOneIsUnreachable() throws {
        let same = try Self.warnings(#"[ { "id": "a", "when": \#(Self.usCA) }, { "id": "b", "when": \#(Self.usCA) }, { "id": "d" } ]"#)
        #expect(same.map(\.path) == ["placements.level_end.segments[1]"])
        #expect(same.first?.code == .segmentUnreachable)
        #expect(same.first?.message.contains("\"a\"") == true)

        let narrower = try Self.warnings(#"[ { "id": "a", "when": \#(Self.usCA) }, { "id": "b", "when": { "all": [ \#(Self.us), { "custom.level": { ">": 3 } } ] } }, { "id": "d" } ]"#)
        #expect(narrower.map(\.path) == ["placements.level_end.segments[1]"])

        let range = try Self.warnings(#"[ { "id": "a", "when": { "app_version": { ">=": "2.9" } } }, { "id": "b", "when": { "app_version": { ">": "2.10.0" } } }, { "id": "d" } ]"#)
        #expect(range.map(\.path) == ["placements.level_end.segments[1]"])

        let known = try Self.warnings(#"[ { "id": "a", "when": { "country": { "known": true } } }, { "id": "b", "when": \#(Self.us) }, { "id": "d" } ]"#)
        #expect(known.map(\.path) == ["placements.level_end.segments[1]"])
    }

    @Test func segmentsAfterACatchAllAreUnreachable() throws {
        let warnings = try Self.warnings(#"[ { "id": "all", "when": { "any": [ { "country": { "known": true } }, { "country": { "known": false } } ] } }, { "id": "b", "when": \#(Self.us) }, { "id": "d" } ]"#)
        #expect(warnings.map(\.path) == ["placements.level_end.segments[1]", "placements.level_end.segments[2]"])
        #expect(warnings.allSatisfy { $0.message.contains("matches every audience") })
    }

    @Test func aPredicateNoAudienceMatchesIsUnreachable() throws {
        let warnings = try Self.warnings(#"[ { "id": "never", "when": { "all": [ { "country": { "known": false } }, \#(Self.us) ] } }, { "id": "d" } ]"#)
        #expect(warnings.map(\.path) == ["placements.level_end.segments[0]"])
    }

    @Test func aLineItemNoSegmentUsesIsReportedOnlyWhenEverySegmentListsSources() throws {
        let unused = try Self.warnings(#"[ { "id": "a", "when": \#(Self.us), "sources": ["fb_x"] }, { "id": "d", "sources": ["fb_x"] } ]"#)
        #expect(unused.map(\.path) == ["placements.level_end.sources[1]"])
        #expect(unused.first?.code == .lineItemUnused)
        #expect(try Self.warnings(#"[ { "id": "a", "when": \#(Self.us), "sources": ["fb_x"] }, { "id": "d" } ]"#).isEmpty)
    }
}

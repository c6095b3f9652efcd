import Foundation
import Mediation
import Testing
@testable import MediationCLI

/// Failing tests from a newcomer's attacks on segments, caps and experiments through `mediate`.
/// Each says what the docs lead one to expect and what happens.
@Suite("newcomer attacks: segments, caps and the command line")
struct NewcomerAttackTests {
    /// `Config/mediation.json` with `segments` on `placement`.
    static func config(placement: String, segments: Any) throws -> String {
        let url = Workspace.repositoryRoot.appendingPathComponent("Config/mediation.json")
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var placements = try #require(root["placements"] as? [String: Any])
        var entry = try #require(placements[placement] as? [String: Any])
        entry["segments"] = segments
        placements[placement] = entry
        root["placements"] = placements
        return String(decoding: try JSONSerialization.data(withJSONObject: root), as: UTF8.self)
    }

    /// docs/caps.md: "A segment's (or a variant's) caps bind the users in it" and "`mediate
    /// networks`: each line item's rules (the app's, its placement's, its network's, its own)
    /// with the instant each frees". Here home_banner's only segment (the default, which every
    /// audience of the command line gets) caps it at 2 an hour-and-a-half; `--watch` refuses by
    /// that rule ("placement:home_banner 2/7200s"), but `networks --json` lists `"caps": []` for
    /// every home_banner line item: the rule that binds every user is invisible there.
    @Test("networks lists the caps of a placement's default segment")
    func networksListsSegmentCaps() async throws {
        let workspace = try Workspace()
        try workspace.write(try Self.config(placement: "home_banner", segments: [
            ["id": "default", "caps": [["impressions": 2, "per_seconds": 7200]]],
        ]), to: "Config/mediation.json")
        let result = await workspace.run(["networks", "--json"])
        #expect(result.code == .success, "\(result.error)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let networks = try #require(root["networks"] as? [[String: Any]])
        let lines = networks.flatMap { ($0["line_items"] as? [[String: Any]]) ?? [] }.filter { $0["placement"] as? String == "home_banner" }
        #expect(!lines.isEmpty)
        for line in lines {
            let caps = (line["caps"] as? [Any]) ?? []
            #expect("\(caps)".contains("placement:home_banner 2/7200s"), "\(line["line_item"] ?? "?"): caps \(caps)")
        }
    }

    /// docs/audiences.md: a segment's `refresh_seconds` is the refresh interval of the ads its
    /// auctions bring. With the default segment at 30 s, `--watch` refreshes every 30 s (auctions
    /// at 0, 30.090, 60.180 s), yet its first line says `watching home_banner (banner, refresh 60 s)`,
    /// the placement's configured value, which no auction of this run uses (the one-shot header
    /// `Placement home_banner: ..., refresh 60 s` says the same). Expected: the header names the
    /// interval in force (30 s), or says that a segment sets it.
    @Test("--watch's header does not claim a refresh interval the segment replaced")
    func watchHeaderRefresh() async throws {
        let workspace = try Workspace()
        try workspace.write(try Self.config(placement: "home_banner", segments: [["id": "default", "refresh_seconds": 30]]), to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "70"])
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output.contains("[30.090s] auction 2 started (refresh)"), "\(result.output.prefix(600))")
        let header = result.output.split(separator: "\n").first { $0.hasPrefix("watching home_banner") } ?? ""
        #expect(!header.contains("refresh 60 s"), "\(header)")
    }

    /// Experiment ids are 1 to 64 of `A-Z a-z 0-9 _ . -` (docs/experiments.md); a segment id has
    /// no bound at all (schema: `"pattern": "\\S"`). A 100,000-character segment id validates,
    /// and every auction's trace then carries it twice (`segment` and `segment_reason`): the
    /// one-shot `--json` of level_end grows from 3.6 KB to 204 KB, and so does every
    /// `auction_finished` / `auction_started` / `shown` event a host logs or uploads.
    /// Expected: the id is bounded like an experiment's, refused with its JSON path.
    @Test("a 100,000-character segment id is refused with its JSON path")
    func segmentIDIsBounded() async throws {
        let workspace = try Workspace()
        try workspace.write(try Self.config(placement: "level_end", segments: [["id": String(repeating: "x", count: 100_000)]]), to: "Config/mediation.json")
        let result = await workspace.run(["validate"])
        #expect(result.code == .dataError, "\(result.output.prefix(300))")
        #expect(result.error.contains("placements.level_end.segments[0].id"), "\(result.error.prefix(300))")
    }
}

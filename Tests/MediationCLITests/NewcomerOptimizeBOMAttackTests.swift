import Foundation
import Testing
@testable import MediationCLI

/// A newcomer's attacks on `mediate optimize` with byte order marks where no report has one:
/// docs/learning.md skips "a UTF-8 byte order mark" (at the start of the file), and
/// `CSVReader` says "One BOM at the start is skipped (a second is refused)". A BOM (EF BB BF,
/// U+FEFF, invisible in an editor) at the start of a later row or field is neither: before the fix it was
/// dropped without a word (Foundation's `String(bytes:encoding: .utf8)` removes a leading BOM from
/// each field), so `\u{FEFF}SLOT-X` is read as the ad unit `SLOT-X` and `\u{FEFF}6.51` as 6.51.
@Suite("Newcomer attacks: optimize and a byte order mark inside a report")
struct NewcomerOptimizeBOMAttackTests {
    private static let header = "day,network,ad_unit_id,impressions,revenue,currency\n"
    private static let config = """
    {"networks": {"nitx": {"adapter": "fallback", "endpoint": "sandbox"}},
     "placements": {"home_banner": {"format": "banner", "sizing": "anchored", "sources": [
       {"id": "home_banner_nitx", "network": "nitx", "ad_unit_id": "SLOT-X", "ecpm": 1.4}]}}}
    """

    @Test("a BOM at the start of a row's day, ad unit or revenue (not of the file) is refused with file:line:column", arguments: [
        ("\u{FEFF}2026-03-05,nitx,SLOT-X,4200,6.51,USD\n", 1),
        ("2026-03-05,nitx,\u{FEFF}SLOT-X,4200,6.51,USD\n", 17),
        ("2026-03-05,nitx,SLOT-X,4200,\u{FEFF}6.51,USD\n", 29),
    ])
    func bomInsideIsRefused(row: String, column: Int) async throws {
        let workspace = try Workspace()
        try workspace.write(Self.config, to: "Config/mediation.json")
        try workspace.write(Self.header + "2026-03-04,nitx,SLOT-X,4200,6.51,USD\n" + row, to: "r.csv")
        let result = await workspace.run(["optimize", "--reports", "r.csv", "--json"])
        // Before the fix: exit 0, the row counted as if the mark were not there (8400 impressions, 2 days).
        #expect(result.code == .dataError, "\(result.code): the BOM inside row 3 was dropped silently; \(result.error)")
        #expect(result.error.contains("r.csv:3:\(column)"), "\(result.error)")
    }
}

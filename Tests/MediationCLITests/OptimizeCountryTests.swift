import Adapters
import Foundation
import Mediation
import Testing
@testable import MediationCLI

/// `mediate optimize --write` with reports per country: prices per country only where the data
/// supports a difference.
@Suite("mediate optimize per country")
struct OptimizeCountryTests {
    /// home_nitx (configured 1.0, IN typed at 0.7 by hand), 7 days, daily eCPMs ±1 %: US 10,000
    /// a day at 4.0, IN 20,000 at 0.5, BR 8,000 at 1.0, GB 5,000 at 2.0; KE 3 impressions at 1.9
    /// on one day.
    static func report() -> String {
        var text = "day,network,ad_unit_id,country,impressions,revenue,currency\n"
        for day in 4...10 {
            let factor = day % 2 == 0 ? 1.01 : 0.99
            for (country, impressions, eCPM) in [("US", 10_000, 4.0), ("IN", 20_000, 0.5), ("BR", 8_000, 1.0), ("GB", 5_000, 2.0)] {
                text += "2026-03-\(day < 10 ? "0" : "")\(day),nitx,SLOT-HOME,\(country),\(impressions),\(Double(impressions) * eCPM * factor / 1000),USD\n"
            }
        }
        return text + "2026-03-10,nitx,SLOT-HOME,KE,3,0.0057,USD\n"
    }

    @Test("--write adds the countries whose interval excludes the line item's estimate to ecpm_by_country, keeps a typed one, and validates")
    func writesDifferingCountries() async throws {
        let workspace = try Workspace()
        let config = OptimizeCommandTests.config.replacingOccurrences(of: #""ad_unit_id": "SLOT-HOME", "ecpm": 1.0 }"#, with: #""ad_unit_id": "SLOT-HOME", "ecpm": 1.0, "ecpm_by_country": { "KE": 0.7 } }"#)
        try workspace.write(config, to: "Config/mediation.json")
        try workspace.write(Self.report(), to: "c.csv")
        let result = await workspace.run(["optimize", "--config", "Config/mediation.json", "--reports", "c.csv", "--write", "new.json", "--json"])
        #expect(result.code == .success, "\(result.error)")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let items = try #require(output["line_items"] as? [[String: Any]])
        let countries = try #require(items.first?["countries"] as? [[String: Any]])
        #expect(countries.map { $0["country"] as? String } == ["BR", "GB", "IN", "KE", "US"])
        #expect(countries.map { $0["differs"] as? Bool } == [true, true, true, false, true])
        let text = try String(contentsOf: workspace.directory.appendingPathComponent("new.json"), encoding: .utf8)
        let configuration = try MediationConfiguration(json: text, registry: .standard)
        let nitx = try #require(configuration.placements[0].sources.first { $0.id == "home_nitx" })
        #expect(Set(nitx.eCPMByCountry.keys) == ["BR", "GB", "IN", "KE", "US"])
        // KE's 3 impressions support no price of their own: its typed 0.7 is kept.
        #expect(nitx.eCPMByCountry["KE"] == 0.7)
        #expect(abs((nitx.eCPMByCountry["US"] ?? 0) - 4.0) < 0.05)
        #expect(abs((nitx.eCPMByCountry["IN"] ?? 0) - 0.5) < 0.01)
        let validate = await workspace.run(["validate", "--config", "new.json"])
        #expect(validate.code == .success, "\(validate.error)")
    }
}

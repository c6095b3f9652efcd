import Foundation
import Mediation
import Testing
@testable import MediationCommandLine

/// Loading is linear in the number of sources (engine rule R15's checks use sets and
/// dictionaries): a placement of 40,000 sources loads, builds and validates. Not timed here;
/// the release-build figure is in the README.
@Suite("A configuration of 40,000 sources")
struct LargeConfigurationTests {
    @Test("mediate validate accepts one placement of 40,000 fallback sources, and a duplicate id at the end is found with its path")
    func fortyThousandSources() async throws {
        let count = 40_000
        var sources: [String] = []
        sources.reserveCapacity(count)
        for index in 0..<count {
            sources.append(#"{"id":"s\#(index)","network":"fb","ad_unit_id":"u\#(index)","ecpm":\#(1 + index % 500)}"#)
        }
        func config(_ sources: [String]) -> String {
            #"{"networks":{"fb":{"adapter":"fallback","endpoint":"sandbox","options":{"fill_rate":1,"latency_ms":0}}},"placements":{"big":{"format":"interstitial","sources":["# + sources.joined(separator: ",") + "]}}}"
        }
        let workspace = try Workspace()
        try workspace.write(config(sources), to: "Config/mediation.json")
        let result = await workspace.run(["validate"])
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output == "Config/mediation.json: valid (1 networks, 1 placements: big)\n")

        var duplicated = sources
        duplicated.append(#"{"id":"s17","network":"fb","ad_unit_id":"u","ecpm":1}"#)
        try workspace.write(config(duplicated), to: "Config/mediation.json")
        let duplicate = await workspace.run(["validate"])
        #expect(duplicate.code == .dataError)
        #expect(duplicate.error.hasPrefix("mediate: invalid config Config/mediation.json: placements.big.sources[40000].id: "))
    }
}

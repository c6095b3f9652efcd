import Adapters
import Foundation
import Mediation
import MediationTestKit
import Testing

/// Loading is linear in the number of sources (engine rule R15's checks use sets and
/// dictionaries): a placement of 40,000 sources loads, builds and validates. Not timed here;
/// the release-build figure (`mediate validate` on such a file) is in docs/configuration.md.
@Suite("A configuration of 40,000 sources")
struct LargeConfigurationTests {
    /// One placement of `count` fallback sources (and any `extra` source texts at the end).
    static func config(count: Int, extra: [String] = []) -> String {
        var sources: [String] = []
        sources.reserveCapacity(count + extra.count)
        for index in 0..<count {
            sources.append(#"{"id":"s\#(index)","network":"fb","ad_unit_id":"u\#(index)","ecpm":\#(1 + index % 500)}"#)
        }
        sources += extra
        return #"{"networks":{"fb":{"adapter":"fallback","endpoint":"sandbox","options":{"fill_rate":1,"latency_ms":0}}},"placements":{"big":{"format":"interstitial","sources":["# + sources.joined(separator: ",") + "]}}}"
    }

    /// Loads and builds `json` on a thread of its own (a second of work in a debug build stays
    /// off the threads other tests share); the error, if any.
    static func build(_ json: String) async -> ConfigurationError? {
        await onOwnThread {
            do throws(ConfigurationError) {
                let configuration = try MediationConfiguration(json: json, registry: .standard)
                _ = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: ManualClock()))
                return nil
            } catch {
                return error
            }
        }
    }

    @Test("one placement of 40,000 fallback sources loads and builds the engine, and a duplicate id at the end is found with its path")
    func fortyThousandSources() async throws {
        let (valid, duplicate) = await TestGate.shared.with(exclusive: true) {
            (await Self.build(Self.config(count: 40_000)), await Self.build(Self.config(count: 40_000, extra: [#"{"id":"s17","network":"fb","ad_unit_id":"u","ecpm":1}"#])))
        }
        #expect(valid == nil)
        #expect(duplicate?.code == .duplicateID)
        #expect(duplicate?.path == "placements.big.sources[40000].id")
    }
}

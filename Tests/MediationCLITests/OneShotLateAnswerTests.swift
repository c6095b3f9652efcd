import Adapters
import Foundation
import Mediation
@testable import MediationCLI
import Testing

/// A network kind whose adapter, on virtual time, logs a warning and fills after `latency_ms`
/// of its network id's choosing (`fast`: 50 ms, anything else: 500 ms), whatever happens to
/// its request: how the one-shot run's late answers and adapter warnings are tested.
private final class WarningFactory: NetworkAdapterFactory {
    var kind: String { "warner" }
    var pricing: LineItem.Pricing { .fixedPrice }

    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        WarningAdapter(network: network.id, clock: environment.clock, logger: environment.logger)
    }
}

private struct WarningAdapter: AdNetworkAdapter {
    let network: String
    let clock: any MediationClock
    let logger: any MediationLogger

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        logger.warning("odd answer \u{1B}[31m from \(network)", source: network)
        let target = clock.now + .milliseconds(network == "fast" ? 50 : 500)
        // A task of its own: the request's cancellation does not cut the wait short.
        await clock.startTask { [clock] in try? await clock.sleep(until: target) }.value
        return .fill(FallbackAd(id: "\(network)-ad", creativeID: "\(network)-creative", network: network, format: request.format, size: AdSize(width: 390, height: 844)))
    }
}

@Suite("one-shot late answers and adapter warnings")
struct OneShotLateAnswerTests {
    static let config = """
    {
      "networks": {
        "fast": { "adapter": "warner", "endpoint": "sandbox" },
        "slow": { "adapter": "warner", "endpoint": "sandbox" }
      },
      "placements": {
        "level_end": {
          "format": "interstitial",
          "sources": [
            { "id": "fast_item", "network": "fast", "ad_unit_id": "f", "ecpm": 2.0 },
            { "id": "slow_item", "network": "slow", "ad_unit_id": "s", "ecpm": 1.0 }
          ]
        }
      }
    }
    """

    @Test func lateAnswersAndAdapterWarningsReachTheTrace() async throws {
        let workspace = try Workspace()
        try workspace.write(Self.config, to: "Config/mediation.json")
        let registry = NetworkRegistry.standard.registering(WarningFactory())
        let json = await workspace.run(["--placement", "level_end", "--json"], registry: registry, gated: false)
        #expect(json.code == .success, "\(json.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let trace = try #require(object["trace"] as? [String: Any])
        #expect(trace["ended_at_ms"] as? Double == 50)
        let lines = try #require(trace["sources"] as? [[String: Any]])
        let slow = lines[1]
        let outcome = try #require(slow["outcome"] as? [String: Any])
        #expect(outcome["status"] as? String == "cancelled")
        #expect(outcome["could_not_beat"] as? Double == 2)
        let late = try #require(slow["late_answer"] as? [String: Any])
        #expect(late["at_ms"] as? Double == 500)
        #expect(late["released"] as? Bool == true)
        let warnings = try #require(slow["warnings"] as? [[String: Any]])
        #expect(warnings.compactMap { $0["code"] as? String } == ["adapter_warning", "late_answer"])
        let fastWarnings = try #require(lines[0]["warnings"] as? [[String: Any]])
        #expect(fastWarnings.first?["message"] as? String == "odd answer \u{1B}[31m from fast")

        let human = await workspace.run(["--placement", "level_end"], registry: registry, gated: false)
        #expect(human.output.contains("could not beat 2.00 USD; late answer at 500 ms, ad released"))
        #expect(human.output.contains("warning: fast_item: adapter_warning: odd answer \\u{1B}[31m from fast"))
        #expect(!human.output.contains("\u{1B}"))
    }
}

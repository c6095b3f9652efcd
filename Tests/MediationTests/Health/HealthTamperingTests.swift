import Foundation
import MediationTestKit
import Testing
@testable import Mediation

/// Red-team probes of the stored health state (R21, R24): every tampered value is either
/// discarded with a warning or clamped to the longest back-off, and never traps.
@Suite("Network health: tampered stored state")
struct HealthTamperingTests {
    static let values: [String] = [
        #"{"version":1,"retry_at_wall_ms":1e308,"backoff_ms":30000,"failed_probes":0,"openings":1}"#,
        #"{"version":1,"retry_at_wall_ms":1e400,"backoff_ms":30000,"failed_probes":0,"openings":1}"#,
        #"{"version":1,"retry_at_wall_ms":-1e308,"backoff_ms":30000,"failed_probes":0,"openings":1}"#,
        #"{"version":1,"retry_at_wall_ms":1000000000,"backoff_ms":1e300,"failed_probes":0,"openings":1}"#,
        #"{"version":1,"retry_at_wall_ms":1000000000,"backoff_ms":-1,"failed_probes":0,"openings":1}"#,
        #"{"version":1,"retry_at_wall_ms":1000000000,"backoff_ms":0,"failed_probes":30,"openings":1000000}"#,
        #"{"version":1,"retry_at_wall_ms":1000000000,"backoff_ms":30000,"failed_probes":1e30,"openings":1}"#,
        #"{"version":1,"retry_at_wall_ms":1000000000,"backoff_ms":30000,"failed_probes":-1,"openings":-1}"#,
        #"{"version":1,"retry_at_wall_ms":1000000000,"backoff_ms":30000,"failed_probes":0,"openings":9223372036854775807}"#,
        #"{"version":9223372036854775807}"#,
        #"{"version":"1","retry_at_wall_ms":"NaN"}"#,
        #"[1,2,3]"#, "null", "", "\u{0}\u{1}garbage", String(repeating: "[", count: 100_000),
    ]

    @Test("each tampered value: closed with a warning, or open for at most max_backoff_ms; never a trap", arguments: values)
    func tampered(_ value: String) async throws {
        let store = MemoryStateStore()
        try store.setData(Data(value.utf8), forKey: "health.bad")
        let fixture = try HealthFixture(store: store)
        let status = try #require(fixture.engine.networkHealth("bad"))
        if status.state == .closed {
            #expect(fixture.logger.warnings.contains { $0.contains("was discarded") })
        } else {
            let retryAt = try #require(status.retryAt)
            #expect(retryAt <= .origin + HealthFixture.settings.maxBackoff)
        }
        // The engine keeps running auctions over it.
        _ = try await fixture.auction()
        _ = try await fixture.auction()
    }

    @Test("a network that flaps (fails, answers, fails, ...) with failures_to_open 2 of window 2 never opens; one that hangs opens")
    func flappingAndHanging() async throws {
        let flapping = try HealthFixture(badAnswer: { index in index % 2 == 0 ? .after(.milliseconds(200), .error) : .after(.milliseconds(100), .fill) })
        for _ in 0..<8 { _ = try await flapping.auction() }
        #expect(flapping.pauses.isEmpty)
        #expect(flapping.bad.requestCount == 8)
        let hanging = try HealthFixture(badAnswer: { _ in .never })
        for _ in 0..<3 { _ = try await hanging.auction() }
        #expect(hanging.pauses.map(\.cause) == [.failures])
        #expect(hanging.engine.networkHealth("bad")?.state == .open)
    }
}

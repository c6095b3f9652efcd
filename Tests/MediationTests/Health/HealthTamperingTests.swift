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

    /// A paused network's value as the engine writes it (10 s of its back-off left at the
    /// fixtures' wall clock), without its closing brace.
    static let pausedNetwork = #"{"backoff_ms":30000,"failed_probes":0,"openings":1,"retry_at_wall_ms":1000010000,"version":1"#
    /// The same for line item `bad` of placement `p` of network `ads`.
    static let pausedLineItem = pausedNetwork + #","line_item":"bad","network":"ads","placement":"p""#

    /// Values with a valid checksum that `JSONDecoder` alone would take: a repeated key (either
    /// of its two values wins, by platform) or text after the object; and what the warning says.
    static let notStrict: [(value: String, lineItem: Bool, says: String)] = [
        (pausedNetwork + #","version":2}"#, false, #"version: the key "version" appears twice"#),
        (#"{"version":2,"# + pausedNetwork.dropFirst() + "}", false, #"version: the key "version" appears twice"#),
        (pausedNetwork + "} x", false, "unexpected text after the end of the document"),
        (pausedLineItem + #","line_item":"good"}"#, true, #"line_item: the key "line_item" appears twice"#),
        (pausedLineItem + #","version":2}"#, true, #"version: the key "version" appears twice"#),
    ]

    @Test("a stored value with a repeated key or text after it, checksum valid, in a state directory: discarded with a warning naming the key, for a network and a line item",
          arguments: notStrict.indices)
    func notStrictJSONIsDiscarded(_ index: Int) throws {
        let (value, isLineItem, says) = Self.notStrict[index]
        let directory = StateStoreTests.Directory()
        let store = try FileStateStore(directory: directory.url)
        if isLineItem {
            let key = HealthSubject.lineItem("bad", placementID: "p", networkID: "ads").storeKey
            try store.setData(Data(value.utf8), forKey: key)
            let fixture = try LineItemHealthFixture(placements: LineItemHealthFixture.twoLineItems, store: store) { _ in .after(.milliseconds(100), .fill) }
            #expect(fixture.engine.lineItemHealth("bad", placementID: "p")?.state == .closed, "\(value)")
            #expect(fixture.logger.warnings.contains { $0.contains("was discarded") && $0.contains(says) }, "\(fixture.logger.warnings)")
            #expect(try store.data(forKey: key) == nil)
            #expect(fixture.pauses.isEmpty)
        } else {
            try store.setData(Data(value.utf8), forKey: "health.bad")
            let fixture = try HealthFixture(store: store)
            #expect(fixture.engine.networkHealth("bad")?.state == .closed, "\(value)")
            #expect(fixture.logger.warnings.contains { $0.contains("was discarded") && $0.contains(says) }, "\(fixture.logger.warnings)")
            #expect(try store.data(forKey: "health.bad") == nil)
            #expect(fixture.pauses.isEmpty)
        }
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

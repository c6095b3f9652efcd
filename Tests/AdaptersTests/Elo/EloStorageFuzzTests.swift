import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Stored values are untrusted input (engine rule R21): Elo's install id in the state store set
/// to what the client never writes (garbage bytes, huge, control characters), then a load and a
/// show and shutdown through the engine. Nothing traps, a bad id is replaced with a warning
/// naming its key and never its value, nothing bad reaches the wire, and the store afterwards
/// holds the id the client made.
@Suite("Elo storage fuzz")
struct EloStorageFuzzTests {
    static let huge = String(repeating: "h", count: 70 * 1024)

    /// Stored install ids (in the state store, where the client keeps them) no Elo client
    /// makes, each due a warning.
    static let installIDs: [String] = [
        "", "bad id\u{7} with spaces", String(repeating: "i", count: 200), huge, "\u{0}\u{1}\u{FFFD}", "id\u{1B}[31m",
    ]

    /// The values above that must never reach the wire or a log line.
    static let forbidden = ["\u{1B}[31m", "bad id", String(repeating: "i", count: 200), "hhhhhhhhhhhhhhhh"]

    /// An install id as the client writes it (the test's own rule, not the client's code):
    /// 1 to 128 characters of `A-Z a-z 0-9 . _ : -`.
    static func isWrittenByTheClient(_ id: String) -> Bool {
        id.range(of: #"^[A-Za-z0-9._:-]{1,128}$"#, options: .regularExpression) != nil
    }

    @Test(arguments: installIDs)
    func aBadStoredInstallIDIsReplacedNeverTrustedNeverACrash(_ installID: String) async throws {
        let state = MemoryStateStore()
        try state.setData(Data(installID.utf8), forKey: "elo.elo.install_id")
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let logger = RecordingLogger()
        let template = RequestTemplate(device: PrivacyMatrix.consentingCell.device, app: RequestTemplate.App(bundleID: "com.example.app"), privacy: PrivacyMatrix.consentingCell.privacy)
        let engine = try MediationEngine(
            configuration: PrivacyMatrix.configuration(.elo, PrivacyMatrix.consentingCell),
            registry: .standard,
            environment: MediationEnvironment(clock: clock, logger: logger, transport: wire, requestTemplate: template, stateStore: state),
            hostContext: { _ in AdRequest.Context(messages: [AdRequest.Context.Message(role: .user, content: "hello")]) }
        )
        let placement = try #require(engine.placement("matrix"))
        #expect(await placement.showOnce(on: clock) { await ($0 as? EloAd)?.tracker?.drain() } != nil)
        await clock.perform { await engine.shutdown() }

        #expect(logger.warnings.contains { $0.contains("elo.elo.install_id discarded") }, "a warning names the key")
        for warning in logger.warnings {
            for value in Self.forbidden { #expect(!warning.contains(value), "a warning quotes a stored value") }
        }
        let bid = try JSONDecoder().decode(EloWireBidRequest.self, from: try #require(wire.requests.first { $0.url.path == "/v1/bid" }?.body))
        let visitor = try #require(bid.user.id)
        #expect(Self.isWrittenByTheClient(visitor), "visitor id \(visitor.prefix(40))")
        let sent = wire.requests.map(WireRecorder.text(of:)).joined(separator: "\n")
        for value in Self.forbidden { #expect(!sent.contains(value), "a stored value reached the wire") }
        // The id made in its place is stored: the next launch keeps it.
        #expect(try state.data(forKey: "elo.elo.install_id") == Data(visitor.utf8))
    }
}

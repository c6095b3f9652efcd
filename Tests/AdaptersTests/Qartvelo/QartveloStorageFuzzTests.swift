import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Stored values are untrusted input (engine rule R21), and Qartvelo and the fallback network
/// keep nothing at all (the Qartvelo document's one cache is the loaded banner, in memory): with
/// a storage directory full of garbage, loads, shows, a consent withdrawal and shutdown read
/// nothing from it, write nothing to it, and work as usual.
@Suite("Qartvelo and fallback storage fuzz")
struct QartveloStorageFuzzTests {
    @Test(arguments: [MatrixNetwork.qartvelo, .fallback], [
        Data("not json".utf8), Data([0xFF, 0xFE, 0x00, 0x01]), Data(#"{"qartvelo.banner": 1e400, "nitx.visitor_id": 5}"#.utf8), Data(repeating: 0x7B, count: 300 * 1024),
    ])
    func nothingIsReadFromStorage(network: MatrixNetwork, garbage: Data) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qv-fuzz-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("elo"), withIntermediateDirectories: true)
        let names = ["qartvelo.json", "qartvelo-qartvelo.json", "admob.json", "nitx-qartvelo.json", "elo/qartvelo-identity.json"]
        for name in names { try garbage.write(to: directory.appendingPathComponent(name)) }
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let logger = RecordingLogger()
        let engine = try MediationEngine(
            configuration: PrivacyMatrix.configuration(network, PrivacyMatrix.consentingCell),
            registry: .standard,
            environment: MediationEnvironment(clock: clock, logger: logger, transport: wire, storageDirectory: directory, requestTemplate: RequestTemplate(privacy: PrivacyMatrix.consentingCell.privacy))
        )
        let placement = try #require(engine.placement("matrix"))
        #expect(await placement.showOnce(on: clock) { await placement.reportClick($0) } != nil)
        engine.updateRequestTemplate(RequestTemplate(privacy: AdRequest.Privacy(userConsent: false)))
        await clock.perform {
            await engine.willResignActive()
            await engine.shutdown()
        }
        for name in names {
            #expect(try Data(contentsOf: directory.appendingPathComponent(name)) == garbage, "\(name) untouched")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files == ["admob.json", "elo", "nitx-qartvelo.json", "qartvelo-qartvelo.json", "qartvelo.json"])
        #expect(logger.warnings.isEmpty)
    }
}

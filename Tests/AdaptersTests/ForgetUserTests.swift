import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// The host's "forget this user" (`MediationEngine.forgetUser()`): every network erases the
/// identifiers and data it keeps of the user and makes new anonymous ones, so that nothing it
/// sends afterwards (the next request, and the tracking of an ad loaded before the call) carries
/// an old identifier; the engine's install id (the rollout bucket) is new.
@Suite("Forget the user", .serialized)
struct ForgetUserTests {
    @Test(arguments: MatrixNetwork.allCases)
    func afterForgetUserNothingSentCarriesAnOldIdentifier(network: MatrixNetwork) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("forget-user-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        // The user's identity, as an earlier version stored it (the engine offers no setter).
        if network == .nitx {
            try StoredIdentity.nitx([NitxProfile.Key.email: PrivacyMatrix.email], in: directory)
        }
        let launch = try PrivacyMatrixWithdrawalTests.Launch(network, userConsent: true, directory: directory)
        // Every id that names the user.
        var old: [String] = []
        switch network {
        case .elo:
            let elo = try #require(launch.capturing.adapter("elo") as? EloAdapter)
            old.append(await elo.client.installID)
            old.append(try #require(await elo.client.sessionID))
        case .nitx:
            let nitx = try #require(launch.capturing.adapter("nitx") as? NitxAdapter)
            old.append(try #require(await nitx.client.state().visitorID))
            old.append(PrivacyMatrixWithdrawalTests.emailHash)
        case .qartvelo, .fallback:
            break
        }
        // Before: the identity goes out as the documents allow.
        try await launch.showOnce()
        for value in old {
            #expect(launch.sent.contains(value), "\(value) went out before the forget")
        }

        // An ad loaded before the forget, shown after it; then the next auction.
        let placement = try #require(launch.engine.placement("matrix"))
        let early = await launch.clock.run { () -> (any LoadedAd)? in
            _ = await placement.attachView(visible: true)
            return await placement.load().ad?.ad
        }
        let loadedBefore = try #require(early ?? nil)
        let sentBefore = launch.wire.requests.count
        try await launch.clock.perform { try await launch.engine.forgetUser() }
        _ = await launch.clock.run { () -> Bool in
            guard case .impression = await placement.reportShown(loadedBefore) else { return false }
            await (loadedBefore as? EloAd)?.tracker?.drain()
            return true
        }
        await launch.clock.runUntilIdle()
        await launch.clock.perform { await launch.engine.willResignActive() }
        await launch.clock.advance(by: .seconds(3))
        await launch.clock.perform { await placement.destroy() }
        try await launch.showOnce()

        let after = launch.wire.requests.dropFirst(sentBefore).filter { $0.url.path != "/api/sdk/forget" }
        let text = after.map(WireRecorder.text(of:)).joined(separator: "\n")
        for value in old {
            #expect(!text.contains(value), "\(value) sent after the forget")
        }
        // The next request of each network went out, with new anonymous ids.
        switch network {
        case .elo:
            let bid = try JSONDecoder().decode(EloWireBidRequest.self, from: try #require(after.last { $0.url.path == "/v1/bid" }?.body))
            #expect(bid.user.id != nil)
        case .nitx:
            #expect(launch.wire.requests.dropFirst(sentBefore).contains { $0.url.path == "/api/sdk/forget" }, "Nitx's forget request")
            let ads = try #require(after.last { $0.url.path == "/api/sdk/ads" })
            let visitor = try #require(PrivacyMatrix.json(ads)["visitor"] as? [String: Any])
            #expect(visitor["id"] is String)
            #expect(visitor["profile"] is NSNull)
            #expect(visitor["consent"] is NSNull, "consent is asked again")
        case .qartvelo:
            #expect(after.contains { $0.url.path == "/v1/banner" })
        case .fallback:
            break
        }
    }

    @Test func forgetUserDrawsANewInstallID() async throws {
        let store = MemoryStateStore()
        let clock = ManualClock()
        let engine = try MediationEngine(
            configuration: PrivacyMatrix.configuration(.elo, PrivacyMatrix.consentingCell),
            registry: .standard,
            environment: MediationEnvironment(clock: clock, transport: WireRecorder(clock: clock), stateStore: store)
        )
        let before = InstallID.current(in: store).id
        try await clock.perform { try await engine.forgetUser() }
        let after = InstallID.current(in: store).id
        #expect(before != after)
        #expect(after.count == 32)
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// The host's consent withdrawal (`AdRequest.Privacy.userConsent == false`) erases Elo's stored
/// user identifier and user data at once (the install id stays): noticed when the host updates
/// its request template, with each request, and when the engine is built, so a relaunch with the
/// signal unset sends neither.
@Suite("Elo consent withdrawal by the host's signals")
struct EloConsentWithdrawalTests {
    static let withdrawn = AdRequest.Privacy(userConsent: false, limitAdTracking: false)
    static let data = EloUserData(age: 34, gender: .female, email: "alice@example.com", phone: "+15551234567")
    /// The identity a record stored earlier holds (the engine offers no setter): the client
    /// reads it at launch and makes the install id (`id-1`).
    static let stored = EloIdentityRecord(userIdentifier: "alice", userData: data)

    @Test func theHostsWithdrawalErasesTheIdentifierAndDataAtOnceAndKeepsTheInstallID() async {
        let store = RecordingIdentityStore(Self.stored)
        let client = EloFixtures.client(transport: EloFakeTransport(), store: store)
        client.hostPrivacyDidChange(Self.withdrawn)
        // Synchronously: the stored record is empty (the install id is not part of it).
        #expect(store.record == EloIdentityRecord())
        #expect(await client.userIdentifier == nil)
        #expect(await client.userData == nil)
        #expect(await client.visitorID == "id-1")
        // Once: a second sighting writes nothing.
        let writes = store.writes.count
        client.hostPrivacyDidChange(Self.withdrawn)
        #expect(store.writes.count == writes)
    }

    @Test func signalsThatDoNotWithdrawChangeNothing() async {
        let store = RecordingIdentityStore(Self.stored)
        let client = EloFixtures.client(transport: EloFakeTransport(), store: store)
        for consent in [nil, true] as [Bool?] {
            client.hostPrivacyDidChange(AdRequest.Privacy(userConsent: consent))
        }
        #expect(store.record.userIdentifier == "alice")
        #expect(store.record.userData == Self.data)
    }

    @Test func aRequestCarryingTheWithdrawalErasesAndSendsNeither() async throws {
        let store = RecordingIdentityStore(Self.stored)
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport, store: store)
        _ = await client.loadAd(for: EloFixtures.request(privacy: Self.withdrawn))
        #expect(store.record == EloIdentityRecord())
        let bid = try #require(try transport.decodedBidRequests().first)
        #expect(bid.user.id == nil, "after a withdrawal not even the install id")
        #expect(bid.user.ext == nil)
    }

    /// An ad loaded while the user consented, its render, impression and browser events sent
    /// after the withdrawal (through the host's template or a later request): they read the
    /// consent as they leave, so none carries the withdrawn identifier.
    @Test(arguments: [false, true])
    func pingsOfAnAdLoadedBeforeAWithdrawalCarryNoWithdrawnIdentifier(throughARequest: Bool) async throws {
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport, store: InMemoryEloIdentityStore(Self.stored))
        let consenting = AdRequest.Privacy(userConsent: true, limitAdTracking: false)
        guard case .loaded(let ad, _) = await client.loadAd(for: EloFixtures.request(privacy: consenting)) else {
            Issue.record("no fill")
            return
        }
        if throughARequest {
            _ = await client.loadAd(for: EloFixtures.request(privacy: Self.withdrawn))
        } else {
            client.hostPrivacyDidChange(Self.withdrawn)
        }
        ad.recordRender()
        ad.recordImpression()
        ad.recordBrowserOpened()
        ad.recordBrowserClosed()
        await ad.tracker?.drain()
        let sent = transport.pings
        #expect(sent.count == 4)
        for ping in sent {
            #expect(!WireRecorder.text(of: ping).contains("alice"), "\(ping.url.path)")
        }
    }

    @Test func aRelaunchWithTheSignalUnsetSendsNeither() async throws {
        let keychain = MemorySecureStore()
        let store = SecureEloIdentityStore(store: keychain, key: "elo.identity.elo")
        try store.write(Self.stored)
        let first = EloFixtures.client(transport: EloFakeTransport(), store: store)
        first.hostPrivacyDidChange(Self.withdrawn)
        // The next launch: the same Keychain, the host's signal unset.
        let transport = EloFakeTransport()
        let relaunched = EloFixtures.client(transport: transport, store: SecureEloIdentityStore(store: keychain, key: "elo.identity.elo"))
        _ = await relaunched.loadAd(for: EloFixtures.request(privacy: AdRequest.Privacy(limitAdTracking: false)))
        let bid = try #require(try transport.decodedBidRequests().first)
        #expect(bid.user.id == "id-1")
        #expect(bid.user.ext == nil)
        let wire = transport.requests.map(WireRecorder.text(of:)).joined()
        for forbidden in ["alice", "15551234567"] { #expect(!wire.contains(forbidden)) }
    }

    @Test func theEnginePassesAWithdrawalOnAndAWithdrawalKnownAtLaunchErasesAtBuild() async throws {
        let keychain = MemorySecureStore()
        try SecureEloIdentityStore(store: keychain, key: "elo.identity.elo").write(Self.stored)
        let clock = ManualClock()
        let capturing = PrivacyMatrix.CapturingRegistry()
        let configuration = try PrivacyMatrix.configuration(.elo, PrivacyMatrix.consentingCell)
        let engine = try MediationEngine(configuration: configuration, registry: capturing.registry, environment: MediationEnvironment(clock: clock, transport: WireRecorder(clock: clock), secureStore: keychain))
        let elo = try #require(capturing.adapter("elo") as? EloAdapter)
        #expect(await elo.client.userIdentifier == "alice")
        engine.updateRequestTemplate(RequestTemplate(privacy: Self.withdrawn))
        var stored = try SecureEloIdentityStore(store: keychain, key: "elo.identity.elo").read()
        #expect(stored == EloIdentityRecord())
        #expect(await elo.client.installID != nil)

        // Stored again, then a launch whose template already says withdrawn: erased at build.
        try SecureEloIdentityStore(store: keychain, key: "elo.identity.elo").write(Self.stored)
        _ = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: clock, transport: WireRecorder(clock: clock), secureStore: keychain, requestTemplate: RequestTemplate(privacy: Self.withdrawn)))
        stored = try SecureEloIdentityStore(store: keychain, key: "elo.identity.elo").read()
        #expect(stored == EloIdentityRecord())
    }
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// The host's consent withdrawal (`AdRequest.Privacy.userConsent == false`): Elo sends no
/// visitor id afterwards, neither with a request nor in the pings of an ad loaded before.
@Suite("Elo consent withdrawal by the host's signals")
struct EloConsentWithdrawalTests {
    static let withdrawn = AdRequest.Privacy(userConsent: false, limitAdTracking: false)

    @Test func aRequestCarryingTheWithdrawalSendsNoVisitorID() async throws {
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport)
        _ = await client.loadAd(for: EloFixtures.request(privacy: Self.withdrawn))
        let bid = try #require(try transport.decodedBidRequests().first)
        #expect(bid.user.id == nil, "after a withdrawal not even the install id")
    }

    /// An ad loaded while the user consented, its render, impression and browser events sent
    /// after the withdrawal (through the host's template or a later request): they read the
    /// consent as they leave, so none carries the install id.
    @Test(arguments: [false, true])
    func pingsOfAnAdLoadedBeforeAWithdrawalCarryNoVisitorID(throughARequest: Bool) async throws {
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport)
        let consenting = AdRequest.Privacy(userConsent: true, limitAdTracking: false)
        guard case .loaded(let ad, _) = await client.loadAd(for: EloFixtures.request(privacy: consenting)) else {
            Issue.record("no fill")
            return
        }
        #expect(try transport.decodedBidRequests().first?.user.id == "id-1")
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
            #expect(!WireRecorder.text(of: ping).contains("id-1"), "\(ping.url.path)")
        }
    }
}

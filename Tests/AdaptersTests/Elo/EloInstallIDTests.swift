import Foundation
import Mediation
import Testing
@testable import Adapters

/// Elo's anonymous per-install id is sent (as `user.id` and the pings' `visitor_id`) only where
/// the user did not say no: never for COPPA or TFUA traffic (the host's flag or the
/// configuration's), under limit-ad-tracking, or after a refusal or withdrawal of consent. The
/// publisher's identifier, where set and allowed, still replaces it.
@Suite("Elo install id")
struct EloInstallIDTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var privacy: AdRequest.Privacy
        var configuration: EloConfiguration = EloFixtures.configuration
        var sent: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "no restriction", privacy: AdRequest.Privacy(limitAdTracking: false), sent: true),
        Case(name: "consent given", privacy: AdRequest.Privacy(userConsent: true, limitAdTracking: false), sent: true),
        Case(name: "COPPA (host)", privacy: AdRequest.Privacy(coppa: true, limitAdTracking: false), sent: false),
        Case(name: "COPPA (configuration)", privacy: AdRequest.Privacy(limitAdTracking: false), configuration: EloConfiguration(publisherID: "pub-1", adUnitID: "unit-default", coppa: true), sent: false),
        Case(name: "TFUA (host)", privacy: AdRequest.Privacy(underAgeOfConsent: true, limitAdTracking: false), sent: false),
        Case(name: "TFUA (configuration)", privacy: AdRequest.Privacy(limitAdTracking: false), configuration: EloConfiguration(publisherID: "pub-1", adUnitID: "unit-default", tfua: true), sent: false),
        Case(name: "limit-ad-tracking", privacy: AdRequest.Privacy(limitAdTracking: true), sent: false),
        Case(name: "consent withdrawn", privacy: AdRequest.Privacy(userConsent: false, limitAdTracking: false), sent: false),
    ]

    @Test(arguments: cases)
    func theInstallIDIsSentOnlyWhereTheUserDidNotSayNo(_ signal: Case) async throws {
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport, configuration: signal.configuration)
        guard case .loaded(let ad, _) = await client.loadAd(for: EloFixtures.request(privacy: signal.privacy)) else {
            Issue.record("no fill")
            return
        }
        ad.recordRender()
        ad.recordImpression()
        ad.recordBrowserOpened()
        ad.recordBrowserClosed()
        await ad.tracker?.drain()
        let bid = try #require(try transport.decodedBidRequests().first)
        #expect(bid.user.id == (signal.sent ? "id-1" : nil))
        #expect(transport.pings.count == 4)
        for ping in transport.pings {
            #expect(WireRecorder.text(of: ping).contains("id-1") == signal.sent, "\(ping.url.path)")
        }
    }

    /// An ad loaded while the install id could go, pinged after the host turned on
    /// limit-ad-tracking: the ping reads the signals as it leaves and carries no install id.
    @Test func pingsAfterALaterNoCarryNoInstallID() async throws {
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport)
        guard case .loaded(let ad, _) = await client.loadAd(for: EloFixtures.request()) else {
            Issue.record("no fill")
            return
        }
        client.hostPrivacyDidChange(AdRequest.Privacy(limitAdTracking: true))
        ad.recordImpression()
        await ad.tracker?.drain()
        #expect(transport.pings.count == 1)
        #expect(!transport.pings.contains { WireRecorder.text(of: $0).contains("id-1") })
    }
}

import Foundation
import Mediation
import Testing
@testable import Adapters

/// The Nitx document defines no US-privacy or GDPR signal of its own, so the engine's reading
/// decides: under an opt-out of sale (US privacy `1YYN`) or where GDPR applies without a TCF
/// consent string, the profile and the advertising id (personal data) stay on the device; the
/// visitor id and the consent answer still go (as after Nitx's own `consent(false)`).
@Suite("Nitx under US privacy and GDPR signals")
struct NitxPrivacySignalTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var privacy: AdRequest.Privacy
        var withholds: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "US privacy opt-out of sale", privacy: AdRequest.Privacy(usPrivacyString: "1YYN", userConsent: true, limitAdTracking: false), withholds: true),
        Case(name: "US privacy opt-out of sale, lowercase", privacy: AdRequest.Privacy(usPrivacyString: "1nyn", userConsent: true, limitAdTracking: false), withholds: true),
        Case(name: "US privacy without an opt-out", privacy: AdRequest.Privacy(usPrivacyString: "1YNN", userConsent: true, limitAdTracking: false), withholds: false),
        Case(name: "GDPR without a consent string", privacy: AdRequest.Privacy(gdprApplies: true, userConsent: true, limitAdTracking: false), withholds: true),
        Case(name: "GDPR with a blank consent string", privacy: AdRequest.Privacy(gdprApplies: true, tcfConsentString: " ", userConsent: true, limitAdTracking: false), withholds: true),
        Case(name: "GDPR with a consent string", privacy: AdRequest.Privacy(gdprApplies: true, tcfConsentString: "CPXYZ", userConsent: true, limitAdTracking: false), withholds: false),
        Case(name: "GDPR does not apply", privacy: AdRequest.Privacy(gdprApplies: false, userConsent: true, limitAdTracking: false), withholds: false),
    ]

    static let idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC"

    @Test(arguments: cases)
    func personalDataFollowsTheSignal(_ signal: Case) async throws {
        let transport = NitxConsentTests.transport()
        let storage = NitxRecords()
        StoredIdentity.nitx([NitxProfile.Key.email: "jane@example.com"], in: storage)
        let client = NitxFixtures.client(transport: transport, storage: storage)
        var request = NitxFixtures.request(.banner, slot: SlotSize(maxWidth: 320, maxHeight: 50), sizing: .inline, device: AdRequest.Device(advertisingID: Self.idfa, trackingAuthorized: true))
        request.privacy = signal.privacy
        _ = await client.loadAd(slot: "SLOT-A", choice: NitxFixtures.choice(request), request: request)
        let body = try #require(transport.jsonBodies("POST", "/api/sdk/ads").first)
        let visitor = try #require(body["visitor"] as? [String: Any])
        let context = try #require(body["context"] as? [String: Any])
        #expect(visitor["id"] as? String == "visitor-1")
        #expect(visitor["consent"] as? Bool == true)
        if signal.withholds {
            #expect(visitor["profile"] is NSNull)
            #expect(context["ad_id"] is NSNull)
            let wire = transport.requests.map(WireRecorder.text(of:)).joined()
            #expect(!wire.contains(NitxConsentTests.emailHash))
            #expect(!wire.contains(Self.idfa))
        } else {
            #expect(visitor["profile"] as? [String: String] == ["email": NitxConsentTests.emailHash])
            #expect(context["ad_id"] as? String == Self.idfa)
        }
    }
}

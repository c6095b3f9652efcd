import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Mediation

/// `Placement.reportDismissed(_:)` says "an ad of another format, or not this placement's
/// presented ad, is ignored".
@Suite("newcomer attacks: a dismissal of another ad")
struct NewcomerDismissalAttackTests {
    @Test("level_end's interstitial on screen: level_end.reportDismissed(app_open's ad) is ignored, so app_open stays refused (one full-screen ad at a time)")
    func dismissalOfAnotherAd() async throws {
        let harness = try CapsHarness(
            placements: [CapsHarness.interstitial("level_end"), CapsHarness.interstitial("app_open", format: .appOpen)],
            app: MediationConfiguration.AppSettings(fullScreenGapSeconds: 0)
        )
        _ = try await harness.load("level_end")
        _ = try await harness.load("app_open")
        #expect(try await harness.showCurrent("level_end").isImpression)
        let levelEnd = try harness.placement("level_end")
        let appOpenAd = try #require(await (try harness.placement("app_open")).currentAd?.ad)
        await levelEnd.reportDismissed(appOpenAd) // not level_end's presented ad
        await levelEnd.reportDismissed(ScriptedAd(id: "stranger", network: "neta", format: .interstitial))
        #expect(try await harness.showCurrent("app_open").capRefusal == CapRefusal(cap: "app one_full_screen (level_end presented)", retryAt: nil))
    }
}

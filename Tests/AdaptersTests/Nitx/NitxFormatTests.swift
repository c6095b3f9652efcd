import Mediation
import Testing
@testable import Adapters

@Suite("Nitx formats")
struct NitxFormatTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var format: AdFormat
        var sizing: MediationConfiguration.Placement.BannerSizing?
        var slot: SlotSize
        var expected: NitxFormat
        var size: AdSize
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "inline rectangle", format: .banner, sizing: .inline, slot: SlotSize(maxWidth: 390, maxHeight: 300), expected: .banner300x250, size: AdSize(width: 300, height: 250)),
        Case(name: "inline strip", format: .banner, sizing: .inline, slot: SlotSize(maxWidth: 390, maxHeight: 60), expected: .banner320x50, size: AdSize(width: 320, height: 50)),
        Case(name: "unspecified 320x50 slot", format: .banner, sizing: nil, slot: SlotSize(maxWidth: 320, maxHeight: 50), expected: .banner320x50, size: AdSize(width: 320, height: 50)),
        Case(name: "anchored phone", format: .banner, sizing: .anchored, slot: SlotSize(maxWidth: 390, maxHeight: 90), expected: .bannerAdaptive, size: AdSize(width: 390, height: 61)),
        Case(name: "anchored unbounded uses screen width", format: .banner, sizing: .anchored, slot: SlotSize(), expected: .bannerAdaptive, size: AdSize(width: 390, height: 61)),
        Case(name: "anchored tablet capped at 90", format: .banner, sizing: .anchored, slot: SlotSize(maxWidth: 768), expected: .bannerAdaptive, size: AdSize(width: 768, height: 90)),
        Case(name: "anchored narrow floored at 50", format: .banner, sizing: .anchored, slot: SlotSize(maxWidth: 200), expected: .bannerAdaptive, size: AdSize(width: 200, height: 50)),
        Case(name: "anchored slot height 55", format: .banner, sizing: .anchored, slot: SlotSize(maxWidth: 390, maxHeight: 55), expected: .bannerAdaptive, size: AdSize(width: 390, height: 55)),
        Case(name: "inline too narrow for 320 falls to adaptive", format: .banner, sizing: .inline, slot: SlotSize(maxWidth: 300, maxHeight: 60), expected: .bannerAdaptive, size: AdSize(width: 300, height: 50)),
        Case(name: "interstitial", format: .interstitial, sizing: nil, slot: SlotSize(), expected: .interstitial, size: AdSize(width: 390, height: 844)),
        Case(name: "app open", format: .appOpen, sizing: nil, slot: SlotSize(), expected: .appOpen, size: AdSize(width: 390, height: 844)),
        Case(name: "native", format: .native, sizing: nil, slot: SlotSize(maxWidth: 360, maxHeight: 120), expected: .native, size: AdSize(width: 360, height: 120)),
        Case(name: "rewarded", format: .rewarded, sizing: nil, slot: SlotSize(), expected: .rewarded, size: AdSize(width: 390, height: 844)),
    ]

    @Test(arguments: cases)
    func choice(_ testCase: Case) throws {
        let request = NitxFixtures.request(testCase.format, slot: testCase.slot, sizing: testCase.sizing)
        let choice = try NitxFormatChoice.resolve(for: request).get()
        #expect(choice.format == testCase.expected)
        #expect(choice.size == testCase.size)
        #expect(choice.format.engineFormat == testCase.format)
    }

    @Test func noBannerFitsALowSlot() {
        let request = NitxFixtures.request(.banner, slot: SlotSize(maxWidth: 390, maxHeight: 40), sizing: .inline)
        guard case .failure(let error) = NitxFormatChoice.resolve(for: request) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .unsupported)
        #expect(error.code == NitxErrorCode.noBannerSizeFits.rawValue)
    }

    @Test func wireSpellings() {
        #expect(NitxFormat.allCases.map(\.rawValue) == ["banner_320x50", "banner_300x250", "banner_adaptive", "interstitial", "app_open", "native", "rewarded"])
    }
}

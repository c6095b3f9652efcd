import Foundation
import Mediation
import Testing
@testable import Adapters

@Suite("Qartvelo creative selection")
struct QartveloCreativeSelectionTests {
    static let all = QartveloCreativeArtwork.uploadSizes

    @Test(arguments: [
        // slot in pixels -> closest horizontal aspect ratio; ties go to the sharper artwork.
        (1170.0, 180.0, "1320x204"),  // 390x60 pt: 6.5 -> 6.47
        (640.0, 100.0, "960x150"),    // 320x50 pt: 6.4, tie with 320x50 -> more pixels
        (960.0, 150.0, "960x150"),
        (1536.0, 180.0, "2184x270"),  // 768x90 pt: 8.53 -> 8.09, tie with 728x90 -> more pixels
        (2048.0, 180.0, "2184x270"),  // 1024x90 pt: 11.4 -> 8.09
        (1170.0, 156.0, "468x60"),    // 390x52 pt: 7.5 -> 7.8
        (300.0, 250.0, "320x100"),    // a rectangle slot still gets a strip: 300x250 is excluded
    ])
    func adaptiveTakesTheClosestAspectRatio(_ width: Double, _ height: Double, _ expected: String) {
        #expect(QartveloCreativeSelection.adaptive(slotWidth: width, slotHeight: height, from: Self.all)?.name == expected)
    }

    @Test func adaptiveNeverServesAnInlineRectangle() {
        let onlyRectangle = [QartveloCreativeArtwork(width: 300, height: 250, density: 1)]
        #expect(QartveloCreativeSelection.adaptive(slotWidth: 300, slotHeight: 250, from: onlyRectangle) == nil)
    }

    @Test(arguments: [
        // slot width x max height -> the candidate shown biggest once scaled to fit.
        (1170.0, 750.0, "300x250"),   // 390x250 pt
        (1170.0, 300.0, "320x100"),   // 390x100 pt
        (1170.0, 150.0, "468x60"),    // 390x50 pt: 468x60 fills 390x50 exactly
        (2304.0, 750.0, "320x100"),   // 768x250 pt: 768x240 beats 300x250
        (640.0, 64.0, "2184x270"),    // 320x32 pt: height-limited, the widest strip wins; tie with 728x90 -> sharper
    ])
    func inlineTakesTheBiggestFit(_ width: Double, _ maxHeight: Double, _ expected: String) {
        #expect(QartveloCreativeSelection.inline(width: width, maxHeight: maxHeight, from: Self.all)?.name == expected)
    }

    @Test(arguments: [
        // slot width in points -> widest creative whose natural width fits (artwork px / density).
        (390.0, "960x150" as String?),   // 320 pt wide: 960x150 @3, 320x50, 320x100 -> sharper
        (440.0, "1320x204"),             // 440x68 pt
        (468.0, "468x60"),
        (768.0, "2184x270"),             // 728 pt: 2184x270 @3 or 728x90 -> sharper
        (1024.0, "2184x270"),
        (300.0, nil),                    // nothing fits: no fill
    ])
    func widestFitWithoutBannerHeight(_ width: Double, _ expected: String?) {
        #expect(QartveloCreativeSelection.widestFit(width: width, from: Self.all)?.name == expected)
    }

    @Test func retinaArtworkMapsToItsPointDesignSize() {
        let points = Self.all.map { "\($0.name)=\($0.points)" }
        #expect(points == ["960x150=320x50", "1320x204=440x68", "2184x270=728x90", "320x50=320x50", "320x100=320x100", "300x250=300x250", "468x60=468x60", "728x90=728x90"])
    }
}

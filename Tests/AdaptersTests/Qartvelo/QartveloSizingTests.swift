import Foundation
import Mediation
import Testing
@testable import Adapters

@Suite("Qartvelo anchored sizing")
struct QartveloAnchoredSizingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var width: Double
        var screenHeight: Double
        var height: Double
        var testDescription: String { "\(width) pt on a \(screenHeight) pt screen -> \(height) pt" }
    }

    /// floor(width x 50 / 320), 50...90 pt, capped to floor(15% of the screen height), never under 50.
    static let cases: [Case] = [
        Case(width: 320, screenHeight: 568, height: 50),    // 50 exactly
        Case(width: 320, screenHeight: 320, height: 50),    // cap 48 -> the 50 pt minimum wins
        Case(width: 390, screenHeight: 844, height: 60),    // floor(60.9375)
        Case(width: 390, screenHeight: 400, height: 60),    // cap exactly 60
        Case(width: 390, screenHeight: 350, height: 52),    // cap floor(52.5)
        Case(width: 390, screenHeight: 300, height: 50),    // cap 45 -> 50
        Case(width: 768, screenHeight: 1024, height: 90),   // 120 -> 90
        Case(width: 768, screenHeight: 500, height: 75),    // cap 75
        Case(width: 768, screenHeight: 600, height: 90),    // cap 90 exactly
        Case(width: 1024, screenHeight: 1366, height: 90),  // 160 -> 90
        Case(width: 1024, screenHeight: 768, height: 90),   // cap 115 -> 90
        Case(width: 1024, screenHeight: 400, height: 60),   // cap 60
        Case(width: 844, screenHeight: 390, height: 58),    // a phone in landscape: cap floor(58.5)
        Case(width: 352, screenHeight: 844, height: 55),    // 55 exactly
    ]

    @Test(arguments: cases)
    func heightFollowsTheSeedsFormula(_ testCase: Case) {
        #expect(QartveloAnchoredSizing.height(forWidth: testCase.width, screenHeight: testCase.screenHeight) == testCase.height)
    }

    @Test func slotIsTheContainerWidthElseTheScreenWidth() {
        let screen = AdRequest.Device.Screen(width: 390, height: 844, scale: 3)
        #expect(QartveloAnchoredSizing.slotSize(for: SlotSize(), screen: screen) == AdSize(width: 390, height: 60))
        #expect(QartveloAnchoredSizing.slotSize(for: SlotSize(maxWidth: 320), screen: screen) == AdSize(width: 320, height: 50))
    }

    @Test(arguments: [0.0, -10, .nan, .infinity])
    func widthThatIsNotFiniteAndPositiveGivesTheMinimum(_ width: Double) {
        #expect(QartveloAnchoredSizing.height(forWidth: width, screenHeight: 844) == 50)
    }
}

@Suite("Qartvelo inline sizing")
struct QartveloInlineSizingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var artwork: QartveloCreativeArtwork
        var width: Double
        var maxHeight: Double
        var size: AdSize
        var originX: Double
        var testDescription: String { "\(artwork.name) in \(width)x\(maxHeight) -> \(size)" }
    }

    static func art(_ width: Int, _ height: Int) -> QartveloCreativeArtwork {
        QartveloCreativeArtwork.uploadSizes.first { $0.width == width && $0.height == height }
            ?? QartveloCreativeArtwork(width: width, height: height, density: 1)
    }

    /// The biggest aspect fit into width x max height, centred; only proportions count.
    static let cases: [Case] = [
        // 390 pt wide, default max height 250 pt.
        Case(artwork: art(960, 150), width: 390, maxHeight: 250, size: AdSize(width: 390, height: 60.9375), originX: 0),
        Case(artwork: art(1320, 204), width: 390, maxHeight: 250, size: AdSize(width: 390, height: 390.0 * 204 / 1320), originX: 0),
        Case(artwork: art(2184, 270), width: 390, maxHeight: 250, size: AdSize(width: 390, height: 390.0 * 270 / 2184), originX: 0),
        Case(artwork: art(320, 50), width: 390, maxHeight: 250, size: AdSize(width: 390, height: 60.9375), originX: 0),
        Case(artwork: art(320, 100), width: 390, maxHeight: 250, size: AdSize(width: 390, height: 121.875), originX: 0),
        Case(artwork: art(300, 250), width: 390, maxHeight: 250, size: AdSize(width: 300, height: 250), originX: 45),
        Case(artwork: art(468, 60), width: 390, maxHeight: 250, size: AdSize(width: 390, height: 50), originX: 0),
        Case(artwork: art(728, 90), width: 390, maxHeight: 250, size: AdSize(width: 390, height: 390.0 * 90 / 728), originX: 0),
        // 320 pt wide, max height 50 pt: strips fill the width, taller ads are limited by the height.
        Case(artwork: art(960, 150), width: 320, maxHeight: 50, size: AdSize(width: 320, height: 50), originX: 0),
        Case(artwork: art(1320, 204), width: 320, maxHeight: 50, size: AdSize(width: 320, height: 320.0 * 204 / 1320), originX: 0),
        Case(artwork: art(320, 100), width: 320, maxHeight: 50, size: AdSize(width: 160, height: 50), originX: 80),
        Case(artwork: art(300, 250), width: 320, maxHeight: 50, size: AdSize(width: 60, height: 50), originX: 130),
        Case(artwork: art(728, 90), width: 320, maxHeight: 50, size: AdSize(width: 320, height: 320.0 * 90 / 728), originX: 0),
        // 768 pt wide (a tablet), max height 250 pt: the rectangle keeps 300x250, strips grow.
        Case(artwork: art(300, 250), width: 768, maxHeight: 250, size: AdSize(width: 300, height: 250), originX: 234),
        Case(artwork: art(320, 100), width: 768, maxHeight: 250, size: AdSize(width: 768, height: 240), originX: 0),
        Case(artwork: art(2184, 270), width: 768, maxHeight: 250, size: AdSize(width: 768, height: 768.0 * 270 / 2184), originX: 0),
    ]

    @Test(arguments: cases)
    func fitsTheBiggestSizeKeepingProportions(_ testCase: Case) throws {
        let artwork = testCase.artwork
        let fit = try #require(QartveloInlineSizing.fit(AdSize(width: Double(artwork.width), height: Double(artwork.height)), width: testCase.width, maxHeight: testCase.maxHeight))
        #expect(abs(fit.size.width - testCase.size.width) < 1e-9)
        #expect(abs(fit.size.height - testCase.size.height) < 1e-9)
        #expect(abs(fit.originX - testCase.originX) < 1e-9)
        #expect(fit.size.width <= testCase.width && fit.size.height <= testCase.maxHeight)
        // Proportions kept.
        #expect(abs(fit.size.width / fit.size.height - artwork.aspectRatio) < 1e-9)
    }

    @Test func pixelsAndPointsOfTheSameProportionsFitTheSame() throws {
        let retina = try #require(QartveloInlineSizing.fit(AdSize(width: 960, height: 150), width: 390, maxHeight: 250))
        let points = try #require(QartveloInlineSizing.fit(AdSize(width: 320, height: 50), width: 390, maxHeight: 250))
        #expect(retina == points)
    }

    @Test func maxHeightDefaultsTo250AndMustBeAtLeast32() {
        #expect(QartveloInlineSizing.maxHeight(for: SlotSize(maxWidth: 390)) == 250)
        #expect(QartveloInlineSizing.maxHeight(for: SlotSize(maxHeight: 32)) == 32)
        #expect(QartveloInlineSizing.maxHeight(for: SlotSize(maxHeight: 31.9)) == nil)
        #expect(QartveloInlineSizing.maxHeight(for: SlotSize(maxHeight: .infinity)) == nil)
    }

    @Test func anchoredAdaptiveLayoutAspectFitsTheCreativeInsideTheSlot() throws {
        let frame = try #require(QartveloBannerLayout.anchoredAdaptive.frame(creativePoints: AdSize(width: 320, height: 50), width: 390, screen: .phone))
        #expect(frame.size == AdSize(width: 390, height: 60))
        #expect(frame.creativeSize == AdSize(width: 384, height: 60))
        #expect(frame.creativeOriginX == 3)
        #expect(frame.creativeOriginY == 0)
    }

    @Test func creativeSizeLayoutKeepsTheCreativesPointsUnlessTooWide() throws {
        let natural = try #require(QartveloBannerLayout.anchoredCreativeSize.frame(creativePoints: AdSize(width: 320, height: 50), width: 390, screen: .phone))
        #expect(natural.size == AdSize(width: 320, height: 50))
        #expect(natural.creativeOriginX == 35)
        let scaled = try #require(QartveloBannerLayout.anchoredCreativeSize.frame(creativePoints: AdSize(width: 728, height: 90), width: 364, screen: .phone))
        #expect(scaled.size == AdSize(width: 364, height: 45))
    }
}

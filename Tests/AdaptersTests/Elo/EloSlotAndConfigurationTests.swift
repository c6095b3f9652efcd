import Foundation
import Mediation
import Testing
@testable import Adapters

@Suite("Elo slot format and configuration")
struct EloSlotAndConfigurationTests {
    @Test(arguments: [
        (nil, EloAdFormat.card),
        (1000, .card),
        (192, .card),
        (191, .strip),
        (100, .strip),
        (72, .strip),
    ] as [(Int?, EloAdFormat)])
    func slotHeightChoosesTheFormat(height: Int?, expected: EloAdFormat) {
        #expect(EloAdFormat.choose(forMaxHeight: height) == expected)
    }

    @Test(arguments: [71, 50, 0])
    func belowSeventyTwoPointsNoFormatFits(height: Int) {
        #expect(EloAdFormat.choose(forMaxHeight: height) == nil)
    }

    @Test(arguments: [
        (191.9, 191),
        (192.0, 192),
        (71.99, 71),
        (72.4, 72),
        (-5.0, 0),
    ] as [(Double, Int)])
    func boundsRoundDownToWholePoints(points: Double, expected: Int) {
        #expect(EloAdFormat.wholePoints(points) == expected)
    }

    @Test(arguments: [nil, Double.nan, Double.infinity] as [Double?])
    func missingOrNonFiniteBoundsAreUnbounded(points: Double?) {
        #expect(EloAdFormat.wholePoints(points) == nil)
    }

    @Test func formatFitsItsMinimumSlot() {
        #expect(EloAdFormat.card.fits(maxHeight: 192))
        #expect(!EloAdFormat.card.fits(maxHeight: 191))
        #expect(EloAdFormat.strip.fits(maxHeight: 72))
        #expect(EloAdFormat.strip.fits(maxHeight: 300))
        #expect(!EloAdFormat.strip.fits(maxHeight: 71))
        #expect(EloAdFormat.card.fits(maxHeight: nil))
    }

    @Test func configurationDefaultsFollowTheSeed() {
        let configuration = EloConfiguration(publisherID: "pub", adUnitID: "unit")
        #expect(configuration.shareGeoLocation == true)
        #expect(configuration.geoLocationPrecision == 2)
        #expect(configuration.coppa == false)
        #expect(configuration.tfua == false)
        #expect(configuration.logLevel == .warn)
        #expect(configuration.baseURL == EloConfiguration.defaultBaseURL)
        #expect(configuration.requestTimeout == .seconds(3))
        #expect(configuration.validationIssues.isEmpty)
    }

    @Test(arguments: [(9, 6), (6, 6), (0, 0), (-3, 0), (4, 4)] as [(Int, Int)])
    func geoPrecisionIsClampedToZeroThroughSix(value: Int, expected: Int) {
        var configuration = EloConfiguration(publisherID: "pub", geoLocationPrecision: value)
        #expect(configuration.geoLocationPrecision == expected)
        configuration.geoLocationPrecision = value
        #expect(configuration.geoLocationPrecision == expected)
    }

    @Test func nilGeoPrecisionKeepsFullPrecision() {
        #expect(EloConfiguration(publisherID: "pub", geoLocationPrecision: nil).geoLocationPrecision == nil)
    }

    @Test func requestTimeoutIsNeverMoreThanThreeSeconds() {
        #expect(EloConfiguration(publisherID: "pub", requestTimeout: .seconds(5)).requestTimeout == .seconds(3))
        #expect(EloConfiguration(publisherID: "pub", requestTimeout: .milliseconds(800)).requestTimeout == .milliseconds(800))
    }

    @Test func validationIssuesNameBlankIDsAndPlainHTTP() throws {
        let url = try #require(URL(string: "http://insecure.test"))
        let issues = EloConfiguration(publisherID: " ", adUnitID: "", baseURL: url).validationIssues
        #expect(issues == [
            "publisher id is blank",
            "ad unit id is blank: every request must carry its own",
            "base URL is not HTTPS",
        ])
    }

    @Test(arguments: ["verbose", "debug", "info", "warn", "error", "none"])
    func logLevelNamesParse(name: String) {
        #expect(EloLogLevel(name: name) != nil)
    }

    @Test func noFillReasonsMapToEngineCodes() {
        #expect(EloNoFillReason.noBids.engineReason == NoFillReason(code: "noBids"))
        #expect(EloNoFillReason.timeout.engineReason == NoFillReason(code: "timeout"))
        #expect(EloNoFillReason.notConfigured.engineReason == NoFillReason(code: "notConfigured"))
        #expect(EloNoFillReason.networkError(detail: "HTTP 500").engineReason == NoFillReason(code: "networkError", message: "HTTP 500"))
        #expect(EloNoFillReason.sessionDisabled.engineReason == NoFillReason(code: "sessionDisabled"))
        #expect(EloNoFillReason.other("x").engineReason == NoFillReason(code: "other", message: "x"))
    }
}

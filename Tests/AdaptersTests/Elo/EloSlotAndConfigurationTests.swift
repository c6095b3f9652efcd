import Foundation
import Mediation
import MediationTestKit
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

    /// Elo document: "the card needs at least 192 points of height, and the strip fits a slot
    /// from 72 to 191 points"; "Leaving maxHeight nil returns the card".
    @Test func eachFormatFitsExactlyItsSlotRange() {
        #expect(EloAdFormat.card.fits(maxHeight: 192))
        #expect(EloAdFormat.card.fits(maxHeight: 1000))
        #expect(EloAdFormat.card.fits(maxHeight: nil))
        #expect(!EloAdFormat.card.fits(maxHeight: 191))
        #expect(!EloAdFormat.card.fits(maxHeight: 72))
        #expect(EloAdFormat.strip.fits(maxHeight: 72))
        #expect(EloAdFormat.strip.fits(maxHeight: 191))
        #expect(!EloAdFormat.strip.fits(maxHeight: 192))
        #expect(!EloAdFormat.strip.fits(maxHeight: 300))
        #expect(!EloAdFormat.strip.fits(maxHeight: nil))
        #expect(!EloAdFormat.strip.fits(maxHeight: 71))
    }

    /// An answer in the other format than the slot's range is a size mismatch: the auction
    /// rejects it with loss reason 203 and releases it; the slot's own format wins.
    @Test(arguments: [
        (nil, "strip", false),
        (192, "strip", false),
        (400, "strip", false),
        (191, "card", false),
        (72, "card", false),
        (nil, "card", true),
        (192, "card", true),
        (191, "strip", true),
        (72, "strip", true),
    ] as [(Double?, String, Bool)])
    func anAnswerOutsideItsFormatsSlotRangeIsASizeMismatch(maxHeight: Double?, format: String, wins: Bool) async throws {
        let clock = ManualClock()
        let transport = EloFakeTransport { request in
            guard request.url.path.hasSuffix("/v1/bid"), let body = request.body,
                  let bid = try? JSONDecoder().decode(EloWireBidRequest.self, from: body) else { return .success(HTTP.Response(statusCode: 204)) }
            // A 60 pt high ad: its size fits every slot here, only its format can be wrong.
            let json = EloFixtures.bidJSON(requestID: bid.id, price: 2, format: format).replacingOccurrences(of: #""h":72"#, with: #""h":60"#)
            return .success(EloFixtures.json(200, json))
        }
        let client = EloFixtures.client(transport: transport, clock: clock)
        var networks = PrebuiltNetworks()
        networks.add("elo", pricing: .bidder, adapter: EloAdapter(client: client))
        let placement = MediationConfiguration.Placement(id: "chat", format: .native, slot: SlotSize(maxWidth: 390, maxHeight: maxHeight), sources: [.bidder("elo", adUnitID: "unit-chat")])
        let engine = try MediationEngine(configuration: networks.configuration(placements: [placement]), registry: networks.registry, environment: MediationEnvironment(clock: clock))
        let outcome = try await engine.runAuction(placementID: "chat", on: clock)
        let line = try #require(outcome.trace.source("elo"))
        if wins {
            #expect(line.outcome == .won)
            let ad = try #require(outcome.winner?.ad as? EloAd)
            #expect(ad.eloFormat.rawValue == format)
            ad.releaseResources()
        } else {
            #expect(line.outcome == .lost(.sizeNotAllowed))
            #expect(line.adReleased)
            #expect(outcome.winner == nil)
        }
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
        #expect(EloNoFillReason.noBids.engineReason == AdLoadResult.NoFillReason(code: "noBids"))
        #expect(EloNoFillReason.timeout.engineReason == AdLoadResult.NoFillReason(code: "timeout"))
        #expect(EloNoFillReason.notConfigured.engineReason == AdLoadResult.NoFillReason(code: "notConfigured"))
        #expect(EloNoFillReason.other("x").engineReason == AdLoadResult.NoFillReason(code: "other", message: "x"))
    }
}

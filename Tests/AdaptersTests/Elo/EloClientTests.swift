import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Elo client")
struct EloClientTests {
    // MARK: Lifecycle

    @Test func loadAfterShutdownIsNotConfigured() async {
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport)
        await client.shutdown()
        #expect(await client.sessionID == nil)
        let result = await client.loadAd(for: EloFixtures.request())
        guard case .noFill(.notConfigured) = result else { Issue.record("expected notConfigured, got \(result)"); return }
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: [71.99, 50, 0] as [Double])
    func slotUnderSeventyTwoPointsIsNoFillWithoutARequest(height: Double) async {
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport)
        let result = await client.loadAd(for: EloFixtures.request(maxHeight: height))
        guard case .noFill(.other(let message)) = result else { Issue.record("expected other, got \(result)"); return }
        #expect(message == "no format fits a slot under 72 pt")
        #expect(transport.requests.isEmpty)
    }

    @Test func requestGoesToTheBaseURLWithTheLineItemsAdUnit() async throws {
        let transport = EloFakeTransport()
        let base = try #require(URL(string: "https://ads.elo.test/api"))
        let client = EloFixtures.client(transport: transport, configuration: EloConfiguration(publisherID: "pub-1", adUnitID: "unit-default", baseURL: base))
        _ = await client.loadAd(for: EloFixtures.request(adUnitID: "unit-chat"))
        _ = await client.loadAd(for: EloFixtures.request(adUnitID: ""))
        let sent = transport.bidRequests
        #expect(sent.map(\.url.absoluteString) == ["https://ads.elo.test/api/v1/bid", "https://ads.elo.test/api/v1/bid"])
        #expect(sent.first?.method == "POST")
        #expect(sent.first?.headers["x-openrtb-version"] == "2.6")
        #expect(try transport.decodedBidRequests().map { $0.imp[0].tagid } == ["unit-chat", "unit-default"])
    }

    @Test func missingAdUnitIDEverywhereIsAnInternalStateError() async {
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport, configuration: EloConfiguration(publisherID: "pub-1"))
        let result = await client.loadAd(for: EloFixtures.request(adUnitID: ""))
        guard case .error(let error) = result else { Issue.record("expected an error, got \(result)"); return }
        #expect(error.category == .internalState)
        #expect(transport.requests.isEmpty)
    }

    // MARK: Answers

    @Test func fillCarriesTheAdAndItsPrice() async throws {
        let transport = EloFakeTransport { request in
            .success(EloFixtures.json(200, EloFixtures.bidJSON(requestID: "id-3", price: 2.35, adID: "opp-1", format: "strip")))
        }
        // ids: id-1 install, id-2 session, id-3 request
        let client = EloFixtures.client(transport: transport)
        let result = await client.loadAd(for: EloFixtures.request(maxHeight: 120))
        guard case .loaded(let ad, let eCPM) = result else { Issue.record("expected a fill, got \(result)"); return }
        #expect(eCPM == 2.35)
        #expect(ad.id == "opp-1")
        #expect(ad.creativeID == "cr-7")
        #expect(ad.title == "Fly to Tbilisi")
        #expect(ad.description == "Weekend fares")
        #expect(ad.imageURL == "https://img.elo.test/cr-7.png")
        #expect(ad.ctaText == "Book")
        #expect(ad.clickURL == "https://example.com/book")
        #expect(ad.eloFormat == .strip)
        #expect(ad.format == .native)
        #expect(ad.network == "elo")
        #expect(ad.size == AdSize(width: 390, height: 72))
        #expect(ad.timeToLive == .seconds(1800))
    }

    @Test func noBidsOn204() async {
        let client = EloFixtures.client(transport: EloFakeTransport { _ in .success(HTTP.Response(statusCode: 204)) })
        let result = await client.loadAd(for: EloFixtures.request())
        guard case .noFill(.noBids) = result else { Issue.record("expected noBids, got \(result)"); return }
    }

    @Test(arguments: [
        #"{"id":"id-3","nbr":8}"#,
        #"{"id":"id-3","seatbid":[]}"#,
        #"{"id":"id-3","seatbid":[{"bid":[]}]}"#,
    ])
    func answersWithoutABidAreNoBids(body: String) async {
        let client = EloFixtures.client(transport: EloFakeTransport { _ in .success(EloFixtures.json(200, body)) })
        let result = await client.loadAd(for: EloFixtures.request())
        guard case .noFill(.noBids) = result else { Issue.record("expected noBids, got \(result)"); return }
    }

    @Test(arguments: [500, 503, 400, 404])
    func serverErrorStatusIsNetworkError(status: Int) async {
        let logger = RecordingLogger()
        let client = EloFixtures.client(transport: EloFakeTransport { _ in .success(HTTP.Response(statusCode: status)) }, logger: logger)
        let result = await client.loadAd(for: EloFixtures.request())
        guard case .networkError(let detail, _) = result else { Issue.record("expected networkError, got \(result)"); return }
        #expect(detail == "HTTP \(status)")
        #expect(logger.warnings == ["ad server answered HTTP \(status)"])
    }

    @Test func transportFailureIsNetworkError() async {
        let client = EloFixtures.client(transport: EloFakeTransport { _ in .failure(HTTP.TransportError(kind: .connection, message: "refused")) })
        let result = await client.loadAd(for: EloFixtures.request())
        guard case .networkError(let detail, _) = result else { Issue.record("expected networkError, got \(result)"); return }
        #expect(detail == "connection: refused")
    }

    @Test(arguments: [
        ("not json", "malformed bid response JSON"),
        (#"{"id":"id-3","seatbid":[{"bid":[{"id":"b"}]}]}"#, "malformed bid response JSON"),
        (EloFixtures.bidJSON(requestID: "id-3", price: -0.01), "price must be a finite number from 0 to 1000000"),
        (EloFixtures.bidJSON(requestID: "id-3", price: 1).replacingOccurrences(of: #""price":1.0"#, with: #""price":1e999"#), "malformed bid response JSON"),
        (EloFixtures.bidJSON(requestID: "other", price: 1), "response id does not match the request id"),
        (EloFixtures.bidJSON(requestID: "id-3", price: 1, currency: "EUR"), "currency EUR is not USD"),
        (EloFixtures.bidJSON(requestID: "id-3", price: 1, format: "banner"), "unknown format banner"),
        (EloFixtures.bidJSON(requestID: "id-3", price: 1, adID: ""), "missing bidid (ad opportunity id)"),
    ] as [(String, String)])
    func brokenAnswersAreDecodingErrors(body: String, message: String) async {
        let client = EloFixtures.client(transport: EloFakeTransport { _ in .success(EloFixtures.json(200, body)) })
        let result = await client.loadAd(for: EloFixtures.request(maxHeight: 120))
        guard case .error(let error) = result else { Issue.record("expected an error, got \(result)"); return }
        #expect(error == EloError(.decoding, message))
    }

    @Test func zeroPriceIsAValidAnswer() async {
        let client = EloFixtures.client(transport: EloFakeTransport(price: 0))
        let result = await client.loadAd(for: EloFixtures.request())
        guard case .loaded(_, let eCPM) = result else { Issue.record("expected a fill, got \(result)"); return }
        #expect(eCPM == 0)
    }

    // MARK: Deadline

    @Test func anEngineRequestKeepsNoTimerOfItsOwnTheEngineCancelsItAtTheLimit() async throws {
        // One limit per source, enforced by the engine (R3a, R20): the client sets none, and a
        // cancelled request ends as the engine's cancellation, at the instant it came.
        let clock = ManualClock()
        let transport = EloFakeTransport.hanging()
        let client = EloFixtures.client(transport: transport, clock: clock)
        let load = clock.startTask { await client.loadAd(for: EloFixtures.request(deadline: .origin + .milliseconds(500))) }
        #expect(await clock.settle { transport.requests.count == 1 })
        #expect(clock.sleeperCount == 0, "no second timer beside the engine's")
        #expect(clock.nextDeadline == nil)
        await clock.advance(to: .origin + .milliseconds(500))
        load.cancel()
        let result = await load.value
        guard case .error(let error) = result else { Issue.record("expected cancelled, got \(result)"); return }
        #expect(error.category == .cancelled)
        #expect(clock.now == .origin + .milliseconds(500))
        #expect(try transport.decodedBidRequests().first?.tmax == 500)
    }

    @Test func tmaxIsNeverLaterThanThreeSeconds() async throws {
        let clock = ManualClock()
        let transport = EloFakeTransport.hanging()
        let client = EloFixtures.client(transport: transport, clock: clock)
        let load = clock.startTask { await client.loadAd(for: EloFixtures.request(deadline: .origin + .seconds(10))) }
        #expect(await clock.settle { transport.requests.count == 1 })
        #expect(try transport.decodedBidRequests().first?.tmax == 3000)
        load.cancel()
        _ = await load.value
    }

    @Test func answerJustBeforeTheDeadlineIsKept() async {
        let clock = ManualClock()
        let transport = EloFakeTransport { request in
            try? await clock.sleep(until: .origin + .milliseconds(2999))
            return .success(EloFixtures.bidResponse(for: request, price: 1.5))
        }
        let client = EloFixtures.client(transport: transport, clock: clock)
        let load = clock.startTask { await client.loadAd(for: EloFixtures.request()) }
        #expect(await clock.settle { transport.requests.count == 1 })
        await clock.advance(to: .origin + .seconds(3))
        let result = await load.value
        guard case .loaded(_, let eCPM) = result else { Issue.record("expected a fill, got \(result)"); return }
        #expect(eCPM == 1.5)
    }

    @Test func passedDeadlineIsTimeoutWithoutARequest() async {
        let clock = ManualClock(start: .origin + .seconds(5))
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport, clock: clock)
        let result = await client.loadAd(for: EloFixtures.request(deadline: .origin + .seconds(5)))
        guard case .noFill(.timeout) = result else { Issue.record("expected timeout, got \(result)"); return }
        #expect(transport.requests.isEmpty)
    }

    @Test func shutdownCancelsRequestsInFlight() async {
        let clock = ManualClock()
        let transport = EloFakeTransport.hanging()
        let client = EloFixtures.client(transport: transport, clock: clock)
        let load = clock.startTask { await client.loadAd(for: EloFixtures.request()) }
        #expect(await clock.settle { transport.requests.count == 1 })
        await client.shutdown()
        let result = await load.value
        guard case .error(let error) = result else { Issue.record("expected cancelled, got \(result)"); return }
        #expect(error.category == .cancelled)
        #expect(clock.now == .origin)
    }

    @Test func cancellingTheCallerAnswersCancelledAtOnce() async {
        let clock = ManualClock()
        let transport = EloFakeTransport.hanging()
        let client = EloFixtures.client(transport: transport, clock: clock)
        let load = clock.startTask { await client.loadAd(for: EloFixtures.request()) }
        #expect(await clock.settle { transport.requests.count == 1 })
        load.cancel()
        let result = await load.value
        guard case .error(let error) = result else { Issue.record("expected cancelled, got \(result)"); return }
        #expect(error.category == .cancelled)
        #expect(clock.now == .origin)
    }

    // MARK: Geo toggle

    @Test func logLevelAboveWarnSilencesWarnings() async {
        let logger = RecordingLogger()
        let configuration = EloConfiguration(publisherID: "pub-1", adUnitID: "u", logLevel: .error)
        let client = EloFixtures.client(transport: EloFakeTransport { _ in .success(HTTP.Response(statusCode: 500)) }, configuration: configuration, logger: logger)
        _ = await client.loadAd(for: EloFixtures.request(messages: [AdRequest.Context.Message(role: .user, content: "x", id: "bad\u{7}")]))
        #expect(logger.lines.isEmpty)
    }

    /// The document's order, lowest first: a threshold passes its own level and every level
    /// after it, `none` passes nothing, and nothing is logged at `none`.
    static let logLevelsInTheDocumentsOrder: [EloLogLevel] = [.verbose, .debug, .info, .warn, .error, .none]

    @Test(arguments: logLevelsInTheDocumentsOrder)
    func eachThresholdPassesItsLevelAndTheLevelsAfterIt(threshold: EloLogLevel) {
        let order = Self.logLevelsInTheDocumentsOrder
        guard let rank = order.firstIndex(of: threshold) else { Issue.record("unknown level"); return }
        for (index, level) in order.enumerated() {
            let expected = threshold != .none && level != .none && index >= rank
            #expect(threshold.admits(level) == expected, "threshold \(threshold), line at \(level)")
        }
    }

    /// Through the client: a warning (a message's bad id) is logged at the thresholds up to
    /// `warn`, and not at `error` or `none`.
    @Test(arguments: logLevelsInTheDocumentsOrder)
    func theClientLogsAWarningOnlyUpToTheWarnThreshold(threshold: EloLogLevel) async {
        let logger = RecordingLogger()
        let configuration = EloConfiguration(publisherID: "pub-1", adUnitID: "u", logLevel: threshold)
        let client = EloFixtures.client(transport: EloFakeTransport(), configuration: configuration, logger: logger)
        _ = await client.loadAd(for: EloFixtures.request(messages: [AdRequest.Context.Message(role: .user, content: "x", id: "bad\u{7}")]))
        let logged = logger.warnings == ["message 0: id with non-printable characters, left out of the request"]
        #expect(logged == (threshold <= .warn), "threshold \(threshold): \(logger.lines.map(\.message))")
        if threshold > .warn { #expect(logger.lines.isEmpty) }
    }

    @Test func messageRuleWarningsGoToTheLogger() async {
        let logger = RecordingLogger()
        let client = EloFixtures.client(transport: EloFakeTransport(), logger: logger)
        let messages = [
            AdRequest.Context.Message(role: .user, content: "private words", id: "bad\u{7}"),
            AdRequest.Context.Message(role: .assistant, content: "more", createdAt: Date(timeIntervalSince1970: 1_500_000_000)),
        ]
        _ = await client.loadAd(for: EloFixtures.request(messages: messages))
        #expect(logger.warnings == [
            "message 0: id with non-printable characters, left out of the request",
            "message 1: createdAt before 2020, left out of the request",
        ])
    }
}

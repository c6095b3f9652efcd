import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Elo debug events")
struct EloDebugEventTests {
    @Test func configureAndShutdownAreReported() async {
        let recorder = EloEventRecorder()
        let client = EloFixtures.client(transport: EloFakeTransport(), configuration: nil)
        client.setDebugObserver(recorder.observer)
        await client.configure(EloConfiguration(publisherID: "pub-1", adUnitID: "", requestTimeout: .milliseconds(2500)))
        await client.shutdown()
        #expect(recorder.all == [
            .configured(EloDebugConfiguration(
                publisherID: "pub-1",
                adUnitID: "",
                requestTimeout: 2.5,
                validationIssues: ["ad unit id is blank: every request must carry its own"],
                timestamp: EloFixtures.now
            )),
            .shutdown,
        ])
    }

    /// Elo document: `case error(EloErrorCategory)  // .network, .decoding, .internalState`,
    /// exactly those three: a broken answer is `.decoding`, a request that cannot be built
    /// `.internalState`, and a request cancelled by shutdown (there is no `cancelled`
    /// category) `.network`.
    @Test func errorOutcomesUseTheDocumentsCategories() async {
        #expect(EloErrorCategory.allCases == [.network, .decoding, .internalState])
        let clock = ManualClock()
        let recorder = EloEventRecorder()
        let transport = EloFakeTransport { _ in .success(EloFixtures.json(200, "not json")) }
        let client = EloFixtures.client(transport: transport, clock: clock, configuration: EloConfiguration(publisherID: "pub-1"))
        client.setDebugObserver(recorder.observer)
        _ = await client.loadAd(for: EloFixtures.request())
        _ = await client.loadAd(for: EloFixtures.request(adUnitID: ""))
        transport.setHandler { _ in
            let never = ManualClock()
            try? await never.sleep(until: .origin + .seconds(1_000_000))
            return .failure(HTTP.TransportError(kind: .cancelled, message: "cancelled"))
        }
        let hanging = clock.startTask { await client.loadAd(for: EloFixtures.request()) }
        #expect(await clock.settle { transport.requests.count == 2 })
        await client.shutdown()
        _ = await hanging.value
        #expect(recorder.operations.map(\.outcome) == [.error(.decoding), .error(.internalState), .error(.network)])
    }

    @Test func adOperationCarriesCountsLatencyAndOutcomeNeverContent() async throws {
        let clock = ManualClock()
        let transport = EloFakeTransport { request in
            try? await clock.sleep(until: .origin + .milliseconds(120))
            return .success(EloFixtures.bidResponse(for: request, price: 2.5))
        }
        let recorder = EloEventRecorder()
        let client = EloFixtures.client(transport: transport, clock: clock)
        client.setDebugObserver(recorder.observer)
        let load = clock.startTask { await client.loadAd(for: EloFixtures.request(maxWidth: 390.6, maxHeight: 120.4)) }
        #expect(await clock.settle { transport.requests.count == 1 })
        await clock.advance(to: .origin + .milliseconds(120))
        _ = await load.value
        let operation = try #require(recorder.operations.first)
        #expect(operation == EloDebugAdOperation(
            requestID: "id-3",
            isPreload: false,
            timestamp: EloFixtures.now,
            messageCount: 2,
            contextCount: 1,
            latencyMilliseconds: 120,
            outcome: .loaded(eCPM: 2.5),
            format: "strip",
            maxHeight: 120,
            maxWidth: 390,
            ctaEnabled: true
        ))
        #expect(recorder.all.contains(.serverRequestIDAssigned(requestID: "id-3", serverRequestID: "ad-id-3")))
        #expect(!recorder.all.contains { if case .requestPayloadCaptured = $0 { return true } else { return false } })
        #expect(!recorder.all.contains { if case .responsePayloadCaptured = $0 { return true } else { return false } })
        #expect(!"\(recorder.all)".contains("Tbilisi has great food"))
    }

    @Test func operationsWithoutAServerRequestHaveNoRequestID() async {
        let recorder = EloEventRecorder()
        let client = EloFixtures.client(transport: EloFakeTransport())
        client.setDebugObserver(recorder.observer)
        await client.disable()
        _ = await client.loadAd(for: EloFixtures.request())
        await client.enable()
        await client.preloadAd(for: EloFixtures.request()).value
        _ = await client.loadAd(for: EloFixtures.request())
        let operations = recorder.operations
        #expect(operations.map(\.requestID) == [nil, "id-3", nil])
        #expect(operations.map(\.isPreload) == [false, true, false])
        #expect(operations.map(\.outcome) == [.noFill(.sessionDisabled), .loaded(eCPM: 2.35), .loaded(eCPM: 2.35)])
    }

    /// One `adOperation` per load or preload, whatever its outcome, with a request id exactly
    /// when a server request was made: before configure, a no bid, a server error, a broken
    /// answer, a preload, its cache hit and a disabled session.
    @Test func everyLoadAndPreloadReportsExactlyOneOperation() async {
        let recorder = EloEventRecorder()
        let answers = Locked<[HTTP.Response]>([HTTP.Response(statusCode: 204), HTTP.Response(statusCode: 500), EloFixtures.json(200, "not json")])
        let transport = EloFakeTransport { request in
            let next = answers.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            return .success(next ?? EloFixtures.bidResponse(for: request, price: 2.5))
        }
        let unconfigured = EloFixtures.client(transport: transport, configuration: nil)
        unconfigured.setDebugObserver(recorder.observer)
        _ = await unconfigured.loadAd(for: EloFixtures.request())
        let client = EloFixtures.client(transport: transport)
        client.setDebugObserver(recorder.observer)
        for _ in 0..<3 { _ = await client.loadAd(for: EloFixtures.request()) }
        await client.preloadAd(for: EloFixtures.request()).value
        _ = await client.loadAd(for: EloFixtures.request())
        await client.disable()
        _ = await client.loadAd(for: EloFixtures.request())
        let operations = recorder.operations
        #expect(transport.requests.count == 4)
        #expect(operations.count == 7)
        #expect(operations.map { $0.requestID != nil } == [false, true, true, true, true, false, false])
        #expect(operations.map(\.isPreload) == [false, false, false, false, true, false, false])
        let outcomes = operations.map(\.outcome)
        guard outcomes.count == 7 else { return }
        #expect(outcomes[0] == .noFill(.notConfigured))
        #expect(outcomes[1] == .noFill(.noBids))
        if case .noFill(.networkError) = outcomes[2] {} else { Issue.record("HTTP 500: expected noFill(networkError), got \(outcomes[2])") }
        #expect(Array(outcomes[3...]) == [.error(.decoding), .loaded(eCPM: 2.5), .loaded(eCPM: 2.5), .noFill(.sessionDisabled)])
    }

    @Test func capturedRequestPayloadRedactsContentAndDescriptions() async throws {
        let recorder = EloEventRecorder()
        let client = EloFixtures.client(transport: EloFakeTransport())
        client.setDebugObserver(recorder.observer, capturePayloads: true)
        await client.setUserData(EloUserData(email: "a@example.com"))
        _ = await client.loadAd(for: EloFixtures.request())
        let request = try #require(recorder.all.compactMap { event -> String? in
            if case .requestPayloadCaptured(_, let json) = event { return json }
            return nil
        }.first)
        #expect(!request.contains("Where should I fly"))
        #expect(!request.contains("travel planning"))
        #expect(request.contains(#""content":"[redacted]""#))
        #expect(request.contains(#""description":"[redacted]""#))
        #expect(request.contains(#""type":"topic""#))
        #expect(request.contains("a@example.com")) // the seed warns: user data stays in captured payloads
        let response = try #require(recorder.all.compactMap { event -> String? in
            if case .responsePayloadCaptured(_, let json) = event { return json }
            return nil
        }.first)
        #expect(response.contains(#""price":2.35"#))
    }

    @Test func transportFailuresAndTimeoutsCaptureNoPayload() async {
        let recorder = EloEventRecorder()
        let client = EloFixtures.client(transport: EloFakeTransport { _ in .failure(HTTP.TransportError(kind: .connection, message: "refused")) })
        client.setDebugObserver(recorder.observer, capturePayloads: true)
        _ = await client.loadAd(for: EloFixtures.request())
        #expect(recorder.operations.map(\.outcome) == [.noFill(.networkError(detail: "connection: refused"))])
        #expect(recorder.all.count == 1)
    }

    @Test func noBidAnswerCapturesTheRequestOnly() async {
        let recorder = EloEventRecorder()
        let client = EloFixtures.client(transport: EloFakeTransport { _ in .success(HTTP.Response(statusCode: 204)) })
        client.setDebugObserver(recorder.observer, capturePayloads: true)
        _ = await client.loadAd(for: EloFixtures.request())
        #expect(recorder.all.contains { if case .requestPayloadCaptured(let id, _) = $0 { return id == "id-3" } else { return false } })
        #expect(!recorder.all.contains { if case .responsePayloadCaptured = $0 { return true } else { return false } })
    }

    @Test func clearingTheObserverStopsEvents() async {
        let recorder = EloEventRecorder()
        let client = EloFixtures.client(transport: EloFakeTransport())
        client.setDebugObserver(recorder.observer)
        client.setDebugObserver(nil)
        _ = await client.loadAd(for: EloFixtures.request())
        await client.shutdown()
        #expect(recorder.all.isEmpty)
    }

    @Test func noObserverNoDebugWork() async throws {
        let clock = ManualClock()
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport, clock: clock) // ids: install id-1, session id-2
        guard case .loaded(let ad, _) = await client.loadAd(for: EloFixtures.request()) else { Issue.record("no fill"); return }
        ad.recordRender()
        ad.recordImpression()
        ad.recordClick()
        ad.recordBrowserOpened()
        await clock.advance(by: .milliseconds(5))
        ad.recordBrowserClosed()
        await ad.tracker?.drain()
        _ = await client.loadAd(for: EloFixtures.request(maxHeight: 200))
        // No tracking operation made an operation id: the second request is id-4.
        #expect(try transport.decodedBidRequests().map(\.id) == ["id-3", "id-4"])
    }

    /// Runs `body` on a thread of its own and waits for it, for at most `limit`: a call back
    /// into the client that needs a lock the observer's thread holds cannot finish, so the wait
    /// ends with the call's name in `blocked` rather than hanging the run; the observer then
    /// returns, the lock is released and the call completes. A call that finishes is waited for
    /// only as long as it runs (microseconds); the limit is a bound for a deadlock, not a timing.
    static func callBack(_ name: String, blocked: Locked<[String]>, limit: DispatchTimeInterval = .seconds(20), _ body: @escaping @Sendable () -> Void) {
        // After a first blocked call the rest are skipped: one bounded wait, not one per event.
        guard blocked.withLock({ $0.isEmpty }) else { return }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        if done.wait(timeout: .now() + limit) == .timedOut {
            blocked.withLock { $0.append(name) }
        }
    }

    /// The observer may call back into the client: it is never called while the client (its
    /// debug channel, an ad, the tracker) holds a lock. Each call back runs on another thread
    /// (`callBack`), so a regression that emits under a lock fails this test within seconds,
    /// naming the call, instead of deadlocking the observer's own thread.
    @Test(.timeLimit(.minutes(1)))
    func observerCanCallBackIntoElo() async throws {
        let clock = ManualClock()
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport, clock: clock, configuration: nil)
        let recorder = EloEventRecorder()
        let adBox = Locked<EloAd?>(nil)
        let preloaded = Locked(false)
        let blocked = Locked<[String]>([])
        let me = Locked<(@Sendable (EloDebugEvent) -> Void)?>(nil)
        let observer: @Sendable (EloDebugEvent) -> Void = { event in
            recorder.observer(event)
            switch event {
            case .configured:
                // Re-registering takes the channel's lock.
                if let me = me.withLock({ $0 }) { Self.callBack("setDebugObserver from .configured", blocked: blocked) { client.setDebugObserver(me) } }
            case .adOperation:
                if !preloaded.withLock({ let first = !$0; $0 = true; return first }) { break }
                Self.callBack("preloadAd from .adOperation", blocked: blocked) { _ = client.preloadAd(for: EloFixtures.request(maxHeight: 200)) }
            case .trackingAttempted:
                if let ad = adBox.withLock({ $0 }) {
                    Self.callBack("isReleased from .trackingAttempted", blocked: blocked) { _ = ad.isReleased }           // the ad's lock
                    Self.callBack("trackBrowserClosed from .trackingAttempted", blocked: blocked) { client.trackBrowserClosed(ad) }  // the ad's and the tracker's locks
                }
            default:
                break
            }
        }
        me.withLock { $0 = observer }
        client.setDebugObserver(observer)
        await client.configure(EloFixtures.configuration)
        guard case .loaded(let ad, _) = await client.loadAd(for: EloFixtures.request()) else { Issue.record("no fill"); return }
        adBox.withLock { $0 = ad }
        ad.recordRender()
        ad.recordImpression()
        client.trackBrowserOpened(ad)
        await ad.tracker?.drain()
        await clock.runUntilIdle()
        #expect(blocked.withLock { $0 }.isEmpty, "called back while the client held a lock")
        let completed = recorder.all.compactMap { event -> EloTrackingEvent? in
            if case .trackingCompleted(_, let kind, _, _) = event { return kind }
            return nil
        }
        // The close was sent from inside the open's `.trackingAttempted`, so it may finish first.
        #expect(completed.count == 4)
        #expect(Set(completed) == [.render, .impression, .browserOpen, .browserClose])
        #expect(recorder.operations.map(\.isPreload) == [false, true])
    }

    @Test func observerSurvivesShutdownAndReconfigure() async {
        let recorder = EloEventRecorder()
        let client = EloFixtures.client(transport: EloFakeTransport())
        client.setDebugObserver(recorder.observer)
        await client.shutdown()
        await client.configure(EloFixtures.configuration)
        _ = await client.loadAd(for: EloFixtures.request())
        let kinds = recorder.all.map { event -> String in
            switch event {
            case .shutdown: "shutdown"
            case .configured: "configured"
            case .adOperation: "adOperation"
            default: "other"
            }
        }
        #expect(kinds.filter { $0 != "other" } == ["shutdown", "configured", "adOperation"])
    }

    @Test func cacheHitsAndDisabledSessionsCaptureNoPayload() async {
        let client = EloFixtures.client(transport: EloFakeTransport())
        await client.preloadAd(for: EloFixtures.request()).value
        let recorder = EloEventRecorder()
        client.setDebugObserver(recorder.observer, capturePayloads: true)
        guard case .loaded = await client.loadAd(for: EloFixtures.request()) else { Issue.record("expected the cached ad"); return }
        await client.disable()
        _ = await client.loadAd(for: EloFixtures.request())
        #expect(recorder.operations.map(\.requestID) == [nil, nil])
        #expect(recorder.operations.map(\.outcome) == [.loaded(eCPM: 2.35), .noFill(.sessionDisabled)])
        #expect(!recorder.all.contains { event in
            switch event {
            case .requestPayloadCaptured, .responsePayloadCaptured: true
            default: false
            }
        })
    }
}

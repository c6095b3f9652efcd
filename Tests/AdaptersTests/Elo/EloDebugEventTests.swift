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

    @Test(.timeLimit(.minutes(10)))
    func observerCanCallBackIntoElo() async throws {
        let clock = ManualClock()
        let transport = EloFakeTransport()
        let client = EloFixtures.client(transport: transport, clock: clock, configuration: nil)
        let recorder = EloEventRecorder()
        let adBox = Locked<EloAd?>(nil)
        let preloaded = Locked(false)
        let me = Locked<(@Sendable (EloDebugEvent) -> Void)?>(nil)
        let observer: @Sendable (EloDebugEvent) -> Void = { event in
            recorder.observer(event)
            switch event {
            case .configured:
                // Re-registering from inside the observer takes the channel's lock.
                if let me = me.withLock({ $0 }) { client.setDebugObserver(me) }
            case .adOperation:
                if !preloaded.withLock({ let first = !$0; $0 = true; return first }) { break }
                client.preloadAd(for: EloFixtures.request(maxHeight: 200))
            case .trackingAttempted:
                if let ad = adBox.withLock({ $0 }) {
                    _ = ad.isReleased                 // the ad's lock
                    client.trackBrowserClosed(ad)     // the ad's and the tracker's locks
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

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
        let client = EloFixtures.client(transport: EloFakeTransport { _ in .failure(TransportError(kind: .connection, message: "refused")) })
        client.setDebugObserver(recorder.observer, capturePayloads: true)
        _ = await client.loadAd(for: EloFixtures.request())
        #expect(recorder.operations.map(\.outcome) == [.noFill(.networkError(detail: "connection: refused"))])
        #expect(recorder.all.count == 1)
    }

    @Test func noBidAnswerCapturesTheRequestOnly() async {
        let recorder = EloEventRecorder()
        let client = EloFixtures.client(transport: EloFakeTransport { _ in .success(HTTPResponse(statusCode: 204)) })
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
}

import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

@Suite("Qartvelo HTML5 ads")
struct QartveloHTML5Tests {
    static let twoMB = 2 * 1024 * 1024

    /// A transport whose banner answer is an HTML5 ad and whose bundle has `bytes` bytes.
    static func transport(bytes: Int, declared: Int? = nil, headers: [String: String] = [:]) -> QartveloScriptedTransport {
        let bundle = Data(repeating: 7, count: bytes)
        return QartveloScriptedTransport(
            banner: QartveloFixtures.answer(type: "html5", bundleSize: declared),
            other: HTTP.Response(statusCode: 200, headers: headers, body: bundle)
        )
    }

    @Test func bundleOfExactly2MBLoadsAhead() async throws {
        let transport = Self.transport(bytes: Self.twoMB)
        let ad = try #require(await QartveloFixtures.adapter(transport: transport).loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        #expect(ad.isHTML5)
        #expect(ad.html5Bundle?.data.count == 2_097_152)
        #expect(transport.sent.map(\.method) == ["POST", "GET"])
        #expect(transport.sent.last?.url.absoluteString == "https://cdn.qartvelo.test/b/1")
        ad.releaseResources()
        #expect(ad.html5Bundle == nil)
    }

    @Test func bundleOf2MBPlusOneByteIsACreativeFailure() async {
        let result = await QartveloFixtures.adapter(transport: Self.transport(bytes: Self.twoMB + 1)).loadAd(for: QartveloFixtures.request(width: 390))
        #expect(result.qartveloError?.kind == .creative)
        #expect(result.qartveloError?.code == QartveloErrorCode.bundleTooLarge.rawValue)
        #expect(result.qartveloError?.message == "HTML5 bundle of 2097153 bytes is over the 2 MB (2097152 bytes) limit")
    }

    @Test func declaredSizeOver2MBFailsWithoutDownloading() async {
        let transport = Self.transport(bytes: 10, declared: Self.twoMB + 1)
        let result = await QartveloFixtures.adapter(transport: transport).loadAd(for: QartveloFixtures.request(width: 390))
        #expect(result.qartveloError?.code == QartveloErrorCode.bundleTooLarge.rawValue)
        #expect(transport.sent.map(\.method) == ["POST"])
    }

    @Test func contentLengthOver2MBFails() async {
        let transport = Self.transport(bytes: 10, headers: ["content-length": "2097153"])
        let result = await QartveloFixtures.adapter(transport: transport).loadAd(for: QartveloFixtures.request(width: 390))
        #expect(result.qartveloError?.code == QartveloErrorCode.bundleTooLarge.rawValue)
    }

    @Test func bundleErrorStatusIsACreativeFailure() async {
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer(type: "html5"), other: HTTP.Response(statusCode: 404))
        let result = await QartveloFixtures.adapter(transport: transport).loadAd(for: QartveloFixtures.request(width: 390))
        #expect(result.qartveloError?.kind == .creative)
        #expect(result.qartveloError?.code == QartveloErrorCode.bundleUnavailable.rawValue)
    }

    @Test func sandboxBundleOf2MBPlusOneFailsAndExactly2MBFills() async throws {
        let over = QartveloFixtures.sandboxAdapter(options: QartveloOptions(sandboxHTML5: true, sandboxHTML5BundleBytes: Self.twoMB + 1))
        #expect(await over.loadAd(for: QartveloFixtures.request(width: 390)).qartveloError?.kind == .creative)
        let exact = QartveloFixtures.sandboxAdapter(options: QartveloOptions(sandboxHTML5: true, sandboxHTML5BundleBytes: Self.twoMB))
        let ad = try #require(await exact.loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        #expect(ad.html5Bundle?.data.count == Self.twoMB)
    }

    // MARK: Ready within 6 s of rendering

    static func html5Ad(clock: ManualClock, tracker: QartveloRecordingTracker) async throws -> QartveloBannerAd {
        let adapter = QartveloFixtures.adapter(transport: Self.transport(bytes: 100), clock: clock, tracker: tracker)
        return try #require(await adapter.loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
    }

    @Test func notReadyWithin6SecondsOfRenderingIsARenderFailure() async throws {
        let clock = ManualClock()
        let tracker = QartveloRecordingTracker()
        let ad = try await Self.html5Ad(clock: clock, tracker: tracker)
        let failures = Locked<[AdLoadResult.Error]>([])
        ad.onRenderFailure { error in failures.withLock { $0.append(error) } }
        await clock.advance(by: .seconds(2))
        ad.recordRender()  // the timer starts at 2 s
        ad.recordImpression()  // visible but not ready: no impression yet
        await clock.advance(by: .milliseconds(5999))
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(ad.renderFailure == nil)
        await clock.advance(by: .milliseconds(1))  // 8.000 s = render + 6 s
        let delivered = failures.withLock { $0 }
        #expect(delivered.count == 1)
        #expect(delivered.first?.kind == .creative)
        #expect(delivered.first?.code == QartveloErrorCode.renderTimeout.rawValue)
        #expect(ad.renderFailure?.code == QartveloErrorCode.renderTimeout.rawValue)
        #expect(tracker.recorded.map(\.kind) == [.renderFailure])
        // Too late: readiness, impressions and clicks no longer count.
        ad.recordCreativeReady()
        ad.recordImpression()
        ad.recordClick()
        await clock.advance(by: .seconds(60))
        #expect(failures.withLock { $0 }.count == 1)
        #expect(tracker.count(.impression) == 0)
        #expect(ad.clickCount == 0)
        #expect(clock.sleeperCount == 0)
    }

    @Test func readyBeforeTheDeadlineCountsTheImpressionAndNoFailure() async throws {
        let clock = ManualClock()
        let tracker = QartveloRecordingTracker()
        let ad = try await Self.html5Ad(clock: clock, tracker: tracker)
        let failures = Locked<Int>(0)
        ad.onRenderFailure { _ in failures.withLock { $0 += 1 } }
        ad.recordRender()
        ad.recordImpression()
        await clock.advance(by: .milliseconds(5999))
        #expect(tracker.count(.impression) == 0)
        ad.recordCreativeReady()  // visible and now ready: the impression counts
        #expect(tracker.count(.impression) == 1)
        #expect(clock.sleeperCount == 0)  // the timer stopped
        await clock.advance(by: .seconds(60))
        #expect(failures.withLock { $0 } == 0)
        #expect(ad.renderFailure == nil)
        ad.recordClick()
        #expect(ad.clickCount == 1)
    }

    @Test func readyBeforeVisibleCountsTheImpressionWhenVisible() async throws {
        let clock = ManualClock()
        let tracker = QartveloRecordingTracker()
        let ad = try await Self.html5Ad(clock: clock, tracker: tracker)
        ad.recordRender()
        ad.recordCreativeReady()
        #expect(tracker.count(.impression) == 0)
        ad.recordImpression()
        #expect(tracker.count(.impression) == 1)
    }

    @Test func failureBeforeTheHandlerIsSetIsDeliveredWhenItIs() async throws {
        let clock = ManualClock()
        let ad = try await Self.html5Ad(clock: clock, tracker: QartveloRecordingTracker())
        ad.recordRender()
        await clock.advance(by: .seconds(6))
        let failures = Locked<[Int]>([])
        ad.onRenderFailure { error in failures.withLock { $0.append(error.code) } }
        #expect(failures.withLock { $0 } == [QartveloErrorCode.renderTimeout.rawValue])
    }

    @Test func noTimerWithoutRenderingAndASecondRenderDoesNotRestartIt() async throws {
        let clock = ManualClock()
        let ad = try await Self.html5Ad(clock: clock, tracker: QartveloRecordingTracker())
        await clock.advance(by: .seconds(30))
        #expect(ad.renderFailure == nil)  // loaded but never rendered
        ad.recordRender()
        await clock.advance(by: .seconds(3))
        ad.recordRender()
        await clock.advance(by: .seconds(3))  // 6 s after the first render
        #expect(ad.renderFailure?.code == QartveloErrorCode.renderTimeout.rawValue)
    }

    @Test func releaseStopsTheTimer() async throws {
        let clock = ManualClock()
        let ad = try await Self.html5Ad(clock: clock, tracker: QartveloRecordingTracker())
        ad.recordRender()
        ad.releaseResources()
        await clock.advance(by: .seconds(10))
        #expect(ad.renderFailure == nil)
        #expect(clock.sleeperCount == 0)
    }

    @Test func imageAdsHaveNoReadyTimer() async throws {
        let clock = ManualClock()
        let adapter = QartveloFixtures.adapter(transport: QartveloScriptedTransport(banner: QartveloFixtures.answer()), clock: clock)
        let ad = try #require(await adapter.loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        ad.recordRender()
        #expect(clock.sleeperCount == 0)
        await clock.advance(by: .seconds(10))
        #expect(ad.renderFailure == nil)
    }
}

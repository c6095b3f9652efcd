import Foundation
import Mediation
import Testing
@testable import Adapters

@Suite("Qartvelo banner ad behaviour")
struct QartveloBannerAdTests {
    static func imageAd(tracker: QartveloRecordingTracker, transport: QartveloScriptedTransport? = nil, sizing: MediationConfiguration.Placement.BannerSizing = .anchored, width: Double = 390, creative: (Int, Int, Double) = (960, 150, 3)) async throws -> QartveloBannerAd {
        let transport = transport ?? QartveloScriptedTransport(banner: QartveloFixtures.answer(w: creative.0, h: creative.1, density: creative.2))
        let adapter = QartveloFixtures.adapter(transport: transport, tracker: tracker)
        return try #require(await adapter.loadAd(for: QartveloFixtures.request(sizing: sizing, width: width)).qartveloAd)
    }

    @Test func impressionCountsOnceTheFirstTimeVisible() async throws {
        let tracker = QartveloRecordingTracker()
        let ad = try await Self.imageAd(tracker: tracker)
        #expect(ad.impressionRecorded == false)
        ad.recordRender()
        #expect(tracker.count(.impression) == 0)  // rendered is not visible
        ad.recordImpression()
        ad.recordImpression()
        #expect(ad.impressionRecorded)
        #expect(tracker.count(.impression) == 1)
        #expect(tracker.recorded.first?.url?.absoluteString == "https://t.qartvelo.test/imp")
    }

    @Test func clickBeforeTheImpressionIsIgnored() async throws {
        let tracker = QartveloRecordingTracker()
        let ad = try await Self.imageAd(tracker: tracker)
        ad.recordClick()
        #expect(ad.clickCount == 0)
        #expect(tracker.count(.click) == 0)
        ad.recordImpression()
        ad.recordClick()
        #expect(ad.clickCount == 1)
        #expect(tracker.count(.click) == 1)
        ad.recordClick()
        #expect(ad.clickCount == 2)  // each tap is one click
    }

    @Test func adBadgeIsNotAClick() async throws {
        let tracker = QartveloRecordingTracker()
        let ad = try await Self.imageAd(tracker: tracker)
        ad.recordImpression()
        let page = ad.recordBadgeTap()
        #expect(page?.absoluteString == "https://qartvelo.ads")
        #expect(ad.clickCount == 0)
        #expect(tracker.count(.click) == 0)
        #expect(tracker.recorded.map(\.kind) == [.impression])
    }

    @Test func anchoredWidthChangeRefitsInPlaceWithoutARequestOrImpression() async throws {
        let tracker = QartveloRecordingTracker()
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer())
        let ad = try await Self.imageAd(tracker: tracker, transport: transport)
        ad.recordImpression()
        #expect(ad.size == AdSize(width: 390, height: 60))
        let id = ad.id
        #expect(ad.refit(to: SlotSize(maxWidth: 768)) == AdSize(width: 768, height: 90))
        #expect(ad.size == AdSize(width: 768, height: 90))
        #expect(ad.refit(to: SlotSize(maxWidth: 320)) == AdSize(width: 320, height: 50))
        #expect(ad.refit(to: SlotSize()) == AdSize(width: 390, height: 60))  // no container width: the screen's
        #expect(ad.id == id)
        #expect(transport.sent.count == 1)
        #expect(tracker.count(.impression) == 1)
    }

    @Test func inlineWidthChangeRefitsTheCreative() async throws {
        let tracker = QartveloRecordingTracker()
        let ad = try await Self.imageAd(tracker: tracker, sizing: .inline, creative: (320, 100, 1))
        #expect(ad.size == AdSize(width: 390, height: 121.875))
        #expect(ad.refit(to: SlotSize(maxWidth: 320)) == AdSize(width: 320, height: 100))
        #expect(ad.refit(to: SlotSize(maxWidth: 768)) == AdSize(width: 768, height: 240))
        #expect(ad.refit(to: SlotSize(maxWidth: 768, maxHeight: 100)) == AdSize(width: 320, height: 100))
        #expect(ad.frame.creativeOriginX == 224)
        #expect(ad.refit(to: SlotSize(maxWidth: 390)) == AdSize(width: 320, height: 100))  // keeps the new max height
        #expect(tracker.recorded.isEmpty)
    }

    @Test func theNextRequestAsksForTheNewSize() async throws {
        let transport = QartveloScriptedTransport(banner: QartveloFixtures.answer())
        let adapter = QartveloFixtures.adapter(transport: transport)
        let ad = try #require(await adapter.loadAd(for: QartveloFixtures.request(width: 390)).qartveloAd)
        _ = ad.refit(to: SlotSize(maxWidth: 768))
        _ = await adapter.loadAd(for: QartveloFixtures.request(width: 768))
        let bodies = transport.sent.map { QartveloFixtures.json($0) }
        #expect(bodies.map { $0["screen_width"] as? Int } == [1170, 2304])
        #expect(bodies.map { $0["banner_height"] as? Int } == [180, 270])
    }

    @Test func refitToAnUnusableWidthKeepsTheSize() async throws {
        let ad = try await Self.imageAd(tracker: QartveloRecordingTracker())
        #expect(ad.refit(to: SlotSize(maxWidth: 0)) == nil)
        #expect(ad.size == AdSize(width: 390, height: 60))
    }

    @Test func releaseIsIdempotent() async throws {
        let ad = try await Self.imageAd(tracker: QartveloRecordingTracker())
        ad.releaseResources()
        ad.releaseResources()
        #expect(ad.isReleased)
    }
}

import Mediation
import MediationTestKit
import Testing

/// A network that serves no inline banners (`NetworkAdapterFactory.servesInlineBanners == false`,
/// the Qartvelo document's "adapters without createInlineBanner get their anchored banner"): an
/// inline banner placement asks it for the anchored adaptive banner of the slot's width, and its
/// trace line says so.
@Suite("Networks without inline banners")
struct InlineCapabilityTests {
    static func placement(sizing: MediationConfiguration.Placement.BannerSizing, maxWidth: Double? = 320, maxHeight: Double? = 250) -> MediationConfiguration.Placement {
        MediationConfiguration.Placement(
            id: "feed", format: .banner, bannerSizing: sizing, slot: SlotSize(maxWidth: maxWidth, maxHeight: maxHeight),
            sources: [.fixedPrice("anchored_only", eCPM: 2.0), .fixedPrice("inline_too", eCPM: 1.0)]
        )
    }

    static func run(_ placement: MediationConfiguration.Placement, anchoredSize: AdSize = AdSize(width: 320, height: 50)) async throws -> (MediationEngine.AuctionOutcome, anchoredOnly: ScriptedAdapter, inlineToo: ScriptedAdapter) {
        let clock = ManualClock()
        let anchoredOnly = ScriptedAdapter(network: "anchored_only", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(10), .fill)], ads: .init(size: anchoredSize))
        let inlineToo = ScriptedAdapter(network: "inline_too", pricing: .fixedPrice, clock: clock, script: [.after(.milliseconds(20), .fill)], ads: .init(size: AdSize(width: 300, height: 250)))
        var networks = PrebuiltNetworks()
        networks.add("anchored_only", pricing: .fixedPrice, adapter: anchoredOnly, servesInlineBanners: false)
        networks.add("inline_too", pricing: .fixedPrice, adapter: inlineToo)
        let template = RequestTemplate(screen: AdRequest.Device.Screen(width: 390, height: 844, scale: 3))
        let engine = try MediationEngine(configuration: networks.configuration(placements: [placement]), registry: networks.registry, environment: MediationEnvironment(clock: clock, requestTemplate: template))
        let outcome = try #require(await clock.run { await engine.runAuction(placementID: "feed") } ?? nil)
        return (outcome, anchoredOnly, inlineToo)
    }

    @Test func anInlinePlacementAsksItForTheAnchoredAdaptiveBannerOfTheSlotsWidth() async throws {
        let (outcome, anchoredOnly, inlineToo) = try await Self.run(Self.placement(sizing: .inline))
        // 320 pt wide: floor(320 x 50 / 320) = 50 pt high.
        let asked = try #require(anchoredOnly.requests.first)
        #expect(asked.bannerSizing == .anchored)
        #expect(asked.slot == SlotSize(maxWidth: 320, maxHeight: 50))
        let other = try #require(inlineToo.requests.first)
        #expect(other.bannerSizing == .inline)
        #expect(other.slot == SlotSize(maxWidth: 320, maxHeight: 250))
        // The trace says so on the source's own line, and only there.
        #expect(outcome.trace.source("anchored_only")?.warnings == [AuctionTrace.Source.Issue(code: "anchored_for_inline", message: "the network serves no inline banners: asked for its anchored adaptive banner, 320x50 pt")])
        #expect(outcome.trace.source("inline_too")?.warnings == [])
        // Its anchored banner fits the inline slot and wins at its eCPM.
        #expect(outcome.winner?.lineItem.id == "anchored_only")
        outcome.winner?.ad.releaseResources()
    }

    @Test func anUnboundedWidthAsksTheScreensWidth() async throws {
        let (outcome, anchoredOnly, _) = try await Self.run(Self.placement(sizing: .inline, maxWidth: nil), anchoredSize: AdSize(width: 390, height: 60))
        // 390 pt: floor(390 x 50 / 320) = 60 pt.
        #expect(anchoredOnly.requests.first?.slot == SlotSize(maxWidth: 390, maxHeight: 60))
        #expect(outcome.trace.source("anchored_only")?.warnings.map(\.message) == ["the network serves no inline banners: asked for its anchored adaptive banner, 390x60 pt"])
        outcome.winner?.ad.releaseResources()
    }

    @Test func anAnchoredPlacementAsksAsUsualWithoutAWarning() async throws {
        let (outcome, anchoredOnly, _) = try await Self.run(Self.placement(sizing: .anchored, maxHeight: 90))
        let asked = try #require(anchoredOnly.requests.first)
        #expect(asked.bannerSizing == .anchored)
        #expect(asked.slot == SlotSize(maxWidth: 320, maxHeight: 90))
        #expect(outcome.trace.source("anchored_only")?.warnings == [])
        outcome.winner?.ad.releaseResources()
    }

    @Test func anInlineSlotUnder50PointsCanNeverTakeItsBanner() throws {
        let clock = ManualClock()
        var networks = PrebuiltNetworks()
        networks.add("anchored_only", pricing: .fixedPrice, adapter: ScriptedAdapter(network: "anchored_only", pricing: .fixedPrice, clock: clock, script: []), servesInlineBanners: false)
        networks.add("inline_too", pricing: .fixedPrice, adapter: ScriptedAdapter(network: "inline_too", pricing: .fixedPrice, clock: clock, script: []))
        let placement = Self.placement(sizing: .inline, maxHeight: 40)
        #expect {
            _ = try MediationEngine(configuration: networks.configuration(placements: [placement]), registry: networks.registry, environment: MediationEnvironment(clock: clock))
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.code == .unfillable && error.path == "placements.feed.sources[0]"
                && error.message.contains("serves no inline banners")
        }
        // A network that serves inline banners may fill the same slot.
        var inlineOnly = PrebuiltNetworks()
        inlineOnly.add("inline_too", pricing: .fixedPrice, adapter: ScriptedAdapter(network: "inline_too", pricing: .fixedPrice, clock: clock, script: []))
        let fine = MediationConfiguration.Placement(id: "feed", format: .banner, bannerSizing: .inline, slot: SlotSize(maxWidth: 320, maxHeight: 40), sources: [.fixedPrice("inline_too", eCPM: 1)])
        #expect(throws: Never.self) {
            _ = try MediationEngine(configuration: inlineOnly.configuration(placements: [fine]), registry: inlineOnly.registry, environment: MediationEnvironment(clock: clock))
        }
    }
}

import Mediation
import MediationTestKit
import Testing

/// Engine rule R8a: the placement's declared slot decides what fits, an unbounded width is
/// bounded by the screen's, and a size that is not a usable number is an invalid answer.
@Suite("R8a the placement's slot decides")
struct SlotDecidesTests {
    /// An anchored banner with no `max_width` (the phone's screen is 390 pt wide).
    static let banner = MediationConfiguration.Placement(id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxHeight: 90), sources: [.bidder("Bid")])

    /// The outcome of one auction where `Bid` bids 5.00 with an ad of `size`.
    static func outcome(size: AdSize, placement: MediationConfiguration.Placement = banner, resize: SlotSize? = nil) async throws -> (AuctionTrace, ScriptedAdapter) {
        let clock = ManualClock()
        let bid = ScriptedAdapter(network: "Bid", pricing: .bidder, clock: clock, script: [.after(.milliseconds(10), .bid(5.00))], ads: .init(format: .banner, size: size))
        let engine = try TestEngine(placements: [placement], adapters: [bid], clock: clock)
        let controller = try #require(engine.engine.placement(placement.id))
        let load = clock.startTask {
            if let resize { await controller.slotDidResize(resize) }
            return await controller.load()
        }
        await clock.advance(to: .origin + .seconds(1))
        switch await load.value {
        case .noFill(let trace): return (trace, bid)
        case .loaded:
            let trace = try #require(engine.recorder.events.compactMap { event -> AuctionTrace? in
                if case .auctionFinished(_, let trace, _) = event { return trace }
                return nil
            }.last)
            return (trace, bid)
        case .destroyed:
            Issue.record("destroyed")
            throw CancellationError()
        }
    }

    @Test("no max_width: a 2000x72 pt ad does not fit a 390 pt wide screen (203); a 390x72 ad wins")
    func anUnboundedWidthIsBoundedByTheScreen() async throws {
        let (tooWide, wideAdapter) = try await Self.outcome(size: AdSize(width: 2000, height: 72))
        #expect(tooWide.source("Bid")?.outcome == .lost(.sizeNotAllowed))
        #expect(tooWide.winner == nil)
        #expect(try #require(wideAdapter.ads.first).releaseCount == 1)
        let (fits, _) = try await Self.outcome(size: AdSize(width: 390, height: 72))
        #expect(fits.source("Bid")?.outcome == .won)
    }

    @Test("a size that is not finite and positive, or over the maximum dimension, is an invalid response (3), not 203", arguments: [
        AdSize(width: 1e308, height: 72), AdSize(width: .infinity, height: 72), AdSize(width: .nan, height: 50),
        AdSize(width: 320, height: 0), AdSize(width: -320, height: 50), AdSize(width: 320, height: 10_001),
    ])
    func unusableSizesAreInvalid(size: AdSize) async throws {
        let (trace, adapter) = try await Self.outcome(size: size)
        #expect(trace.source("Bid")?.outcome == .lost(.invalidResponse))
        #expect(trace.winner == nil)
        #expect(try #require(adapter.ads.first).releaseCount == 1)
    }

    @Test("a host's resize can shrink the declared slot but never grow it: 728x90 after a resize to 1000x300 of a 390x90 slot is 203, and the request asks 390x90")
    func aResizeNeverGrowsTheDeclaredSlot() async throws {
        let placement = MediationConfiguration.Placement(id: "home_banner", format: .banner, bannerSizing: .anchored, slot: SlotSize(maxWidth: 390, maxHeight: 90), sources: [.bidder("Bid")])
        let (trace, adapter) = try await Self.outcome(size: AdSize(width: 728, height: 90), placement: placement, resize: SlotSize(maxWidth: 1000, maxHeight: 300))
        #expect(trace.source("Bid")?.outcome == .lost(.sizeNotAllowed))
        #expect(adapter.requests.first?.slot == SlotSize(maxWidth: 390, maxHeight: 90))
        // Shrinking is honoured: a 320x50 ad after a resize to 300x40 does not fit.
        let (shrunk, _) = try await Self.outcome(size: AdSize(width: 320, height: 50), placement: placement, resize: SlotSize(maxWidth: 300, maxHeight: 40))
        #expect(shrunk.source("Bid")?.outcome == .lost(.sizeNotAllowed))
    }

    @Test("SlotSize.clamped(to:) keeps each side within the declared bound; boundingWidth(by:) fills an unbounded width")
    func slotArithmetic() {
        let declared = SlotSize(maxWidth: 390, maxHeight: 90)
        #expect(SlotSize(maxWidth: 1000, maxHeight: 300).clamped(to: declared) == declared)
        #expect(SlotSize(maxWidth: 300, maxHeight: nil).clamped(to: declared) == SlotSize(maxWidth: 300, maxHeight: 90))
        #expect(SlotSize(maxWidth: .nan, maxHeight: -1).clamped(to: declared) == declared)
        #expect(SlotSize(maxHeight: 90).boundingWidth(by: 390) == SlotSize(maxWidth: 390, maxHeight: 90))
        #expect(SlotSize(maxHeight: 90).boundingWidth(by: .infinity) == SlotSize(maxHeight: 90))
    }
}

import Foundation
import Testing
@testable import Mediation

/// The check before an auction reads each scope by the slot its plan found when the
/// configuration came into force (`CapCheckPlan`): slots given anew keep each scope's state, a
/// form's line items are matched by id (not by position), and a form the plan does not know as
/// the form has it is checked by scope. Instants on a fixed clock (cap time = engine time).
@Suite("Cap check plans")
struct CapCheckPlanTests {
    static let hour = Duration.seconds(3600)

    static func window(_ impressions: Int, _ seconds: Int) -> MediationConfiguration.Cap {
        .init(impressions: impressions, window: .seconds(seconds))
    }

    static func lineItem(_ id: String, caps: MediationConfiguration.CapSettings = .init()) -> LineItem {
        var lineItem = LineItem.fixedPrice(id, network: "neta", eCPM: 1)
        lineItem.caps = caps
        return lineItem
    }

    static func configuration(_ placements: [MediationConfiguration.Placement], app: MediationConfiguration.CapSettings = .init()) -> MediationConfiguration {
        var configuration = MediationConfiguration(networks: [MediationConfiguration.Network(id: "neta", adapter: "scripted")], placements: placements)
        configuration.app = .init(caps: app, fullScreenGapSeconds: 0)
        return configuration
    }

    static func keeper(_ configuration: MediationConfiguration) -> CapKeeper {
        CapKeeper(configuration: configuration, at: .origin, store: MemoryStateStore(), wallClock: { Date(timeIntervalSince1970: 1_796_000_000) }, logger: SilentLogger())
    }

    /// Shows `lineItem` of `placement` at `seconds` (and dismisses it at once).
    static func show(_ keeper: CapKeeper, _ placement: MediationConfiguration.Placement, _ lineItem: LineItem, at seconds: Int) {
        let refusal = keeper.admitShow(placement: placement, lineItem: lineItem, at: at(Double(seconds))) { true }
        #expect(refusal == nil, "show of \(lineItem.id) at \(seconds) s")
        keeper.dismissed(placementID: placement.id, at: at(Double(seconds)))
    }

    @Test("slots given anew keep each scope's ring and session count: a scope before it dropped, scopes added, the line item's cap still binds until the exact instant")
    func slotsGivenAnewKeepState() {
        let x = Self.lineItem("x", caps: .init(caps: [Self.window(1, 7200), .init(impressions: 1, window: .session)]))
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, sources: [x])
        // `app` has the first slot; `line_item:p/x` the next.
        let first = Self.configuration([placement], app: .init(pacingSeconds: 60))
        let keeper = Self.keeper(first)
        Self.show(keeper, placement, x, at: 0)
        let capped = CapRefusal(cap: "line_item:p/x 1/session", retryAt: nil)
        #expect(keeper.cappedSources(of: placement, at: at(1), horizon: Self.hour) == ["x": capped])
        // The app's rule goes (its slot with it) and two placements come whose scopes sort
        // before `p`'s: `line_item:p/x` moves to another slot, its instants and count with it.
        let other = MediationConfiguration.Placement(id: "a", format: .interstitial, sources: [Self.lineItem("a1", caps: .init(pacingSeconds: 30))])
        var second = Self.configuration([other, placement])
        second.placements[0].caps = .init(pacingSeconds: 10)
        keeper.configurationChanged(second)
        #expect(keeper.cappedSources(of: placement, at: at(2), horizon: Self.hour) == ["x": capped])
        // A new session: the count goes, the window's edge stays (7,200 s from the impression).
        keeper.setForeground(false, at: at(10))
        keeper.setForeground(true, at: at(10 + 1800))
        #expect(keeper.cappedSources(of: placement, at: at(1810), horizon: Self.hour) == ["x": CapRefusal(cap: "line_item:p/x 1/7200s", retryAt: at(7200))])
        #expect(keeper.cappedSources(of: placement, at: at(3599.999), horizon: Self.hour) == ["x": CapRefusal(cap: "line_item:p/x 1/7200s", retryAt: at(7200))])
        #expect(keeper.cappedSources(of: placement, at: at(3600), horizon: Self.hour).isEmpty)
        // The other placement's new scopes read their own (empty) slots.
        #expect(keeper.cappedSources(of: second.placements[0], at: at(3600), horizon: Self.hour).isEmpty)
    }

    @Test("a scope dropped and re-added starts empty (ring and session count went with its rules)")
    func droppedAndReAdded() {
        let x = Self.lineItem("x", caps: .init(caps: [.init(impressions: 1, window: .session)], pacingSeconds: 7200))
        let placement = MediationConfiguration.Placement(id: "p", format: .interstitial, sources: [x])
        let keeper = Self.keeper(Self.configuration([placement]))
        Self.show(keeper, placement, x, at: 0)
        #expect(keeper.cappedSources(of: placement, at: at(1), horizon: Self.hour)["x"]?.cap == "line_item:p/x 1/session")
        var bare = placement
        bare.sources[0].caps = .init()
        keeper.configurationChanged(Self.configuration([bare]))
        #expect(!keeper.hasRules)
        keeper.configurationChanged(Self.configuration([placement]))
        #expect(keeper.cappedSources(of: placement, at: at(2), horizon: Self.hour).isEmpty)
    }

    @Test("a segment's form with fewer line items and its own pacing: each line item reads its own rules (matched by id), the form's pacing binds them all")
    func segmentFormWithOtherLineItems() throws {
        let a = Self.lineItem("a", caps: .init(caps: [Self.window(1, 7200)]))
        let b = Self.lineItem("b", caps: .init(caps: [.init(impressions: 1, window: .session)]))
        let c = Self.lineItem("c", caps: .init(pacingSeconds: 10_800))
        var placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, sources: [a, b, c])
        var tier1 = MediationConfiguration.PlacementOverride(sources: ["a", "c"])
        tier1.pacingSeconds = 7200
        placement.segments = [
            AudienceSegment(id: "tier1", predicate: nil, override: tier1, path: "placements.level_end.segments[0]"),
        ]
        let keeper = Self.keeper(Self.configuration([placement]))
        Self.show(keeper, placement, a, at: 0)
        Self.show(keeper, placement, c, at: 0)
        let own = [
            "a": CapRefusal(cap: "line_item:level_end/a 1/7200s", retryAt: at(7200)),
            "c": CapRefusal(cap: "line_item:level_end/c pacing 10800s", retryAt: at(10_800)),
        ]
        #expect(keeper.cappedSources(of: placement, at: at(1), horizon: Self.hour) == own)
        // The segment's form: `c` is its second line item (the placement's third).
        let form = tier1.applied(to: placement)
        #expect(form.sources.map(\.id) == ["a", "c"])
        #expect(keeper.cappedSources(of: form, at: at(1), horizon: Self.hour) == [
            "a": CapRefusal(cap: "placement:level_end pacing 7200s", retryAt: at(7200)), // a tie: the placement's names it
            "c": own["c"],
        ])
        // A form no plan knows as it is (c's caps changed by hand) is checked by scope: c's
        // one impression this session binds its new session cap.
        var other = form
        other.sources[1].caps = .init(caps: [.init(impressions: 1, window: .session)])
        #expect(keeper.cappedSources(of: other, at: at(1), horizon: Self.hour)["c"] == CapRefusal(cap: "line_item:level_end/c 1/session", retryAt: nil))
        // Line items out of the placement's order: `a` after `c` is found by scope, still as `a`.
        var reordered = placement
        reordered.sources = [c, b, a]
        #expect(keeper.cappedSources(of: reordered, at: at(1), horizon: Self.hour) == own)
    }
}

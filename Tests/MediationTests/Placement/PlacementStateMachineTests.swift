import Mediation
import MediationTestKit
import Testing

/// ``PlacementStateMachine`` on its own: no clock, no task. Each test feeds events at exact
/// instants and asserts the exact replies and actions (see `PlacementMachineSupport.swift` for
/// the notation).
@Suite("Placement state machine")
struct PlacementStateMachineTests {
    static let banner30 = PlacementFixture.homeBanner(refreshSeconds: 30)
    static let banner60 = PlacementFixture.homeBanner(refreshSeconds: 60)
    static let levelEnd = PlacementFixture.levelEnd

    // MARK: - States

    /// A state a placement can be in before an event, reached by feeding the machine (ad `a1`
    /// arrives at 0.1 s from an auction a `load()` started at 0; ticket #1 is spent).
    enum State: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Nothing happened.
        case empty
        /// A load's auction runs.
        case loading
        /// `a1` is current, unshown.
        case fresh
        /// `a1` is current and shown at 0.1 s (a banner or native in a view attached, visible,
        /// for that instant: an impression needs a visible view, R12a).
        case shown
        /// `a1` (TTL 0.5 s) is current, unshown, and expired at 0.6 s; no timer has fired.
        case expiredUnnoticed
        /// Destroyed at 0.5 s, with `a1` unshown.
        case destroyed

        var description: String { rawValue }

        /// The machine in this state, and its ad.
        func machine(_ configuration: MediationConfiguration.Placement) -> (Machine, ScriptedAd) {
            var machine = Machine.of(configuration)
            let ad = testAd("a1", configuration.format, timeToLive: self == .expiredUnnoticed ? .milliseconds(500) : nil)
            guard self != .empty else { return (machine, ad) }
            _ = machine.loading(0)
            guard self != .loading else { return (machine, ad) }
            _ = machine.finishing(filled(ad, arrived: 0.1), 0.1)
            if self == .shown {
                switch configuration.format {
                case .banner, .native:
                    _ = machine.attaching(visible: true, 0.1)
                    _ = machine.showing(ad, 0.1)
                    _ = machine.detaching(view: 1, 0.1)
                case .interstitial, .appOpen, .rewarded:
                    _ = machine.showing(ad, 0.1)
                }
            }
            if self == .destroyed { _ = machine.destroying(0.5) }
            return (machine, ad)
        }
    }

    // MARK: - load (R10, R11, R14)

    static let loadCases: [(State, MediationConfiguration.Placement, [String])] = [
        (.empty, levelEnd, ["= wait #1", "auction_started load @1.000s", "start load"]),
        (.empty, banner30, ["= wait #1", "auction_started load @1.000s", "start load"]),
        (.loading, levelEnd, ["= wait #2"]),
        (.loading, banner30, ["= wait #2"]),
        (.fresh, levelEnd, ["= ready loaded a1"]),
        (.fresh, banner30, ["= ready loaded a1"]),
        // A shown full-screen ad is used up; banners and natives keep sharing it.
        (.shown, levelEnd, ["= wait #2", "auction_started load @1.000s", "start load"]),
        (.shown, banner30, ["= ready loaded a1"]),
        (.shown, feedNative, ["= ready loaded a1"]),
        (.expiredUnnoticed, levelEnd, ["= wait #2", "expired a1 @1.000s", "release a1", "released a1 expired @1.000s", "auction_started load @1.000s", "start load", "timer off"]),
        (.expiredUnnoticed, banner30, ["= wait #2", "expired a1 @1.000s", "release a1", "released a1 expired @1.000s", "auction_started load @1.000s", "start load", "timer off"]),
        (.destroyed, levelEnd, ["= ready destroyed"]),
        (.destroyed, banner30, ["= ready destroyed"]),
    ]

    @Test("load at 1 s in every state", arguments: loadCases)
    func load(state: State, configuration: MediationConfiguration.Placement, expected: [String]) {
        var (machine, _) = state.machine(configuration)
        #expect(machine.loading(1) == expected)
    }

    @Test("the full-screen formats are used up once shown", arguments: [
        (AdFormat.interstitial, true), (.appOpen, true), (.rewarded, true), (.banner, false), (.native, false),
    ])
    func usedUp(format: AdFormat, usedUp: Bool) {
        let configuration = MediationConfiguration.Placement(id: "p", format: format, sources: PlacementFixture.sources)
        var machine = Machine.of(configuration)
        let ad = testAd("a1", format)
        _ = machine.loading(0)
        _ = machine.finishing(filled(ad, arrived: 0.1), 0.1)
        _ = machine.showing(ad, 0.2)
        #expect(machine.loading(1).first == (usedUp ? "= wait #2" : "= ready loaded a1"))
    }

    @Test("a load just before the expiry instant returns the ad; at the instant it runs an auction")
    func loadAroundExpiry() {
        var machine = Machine.of(Self.levelEnd)
        let ad = testAd("a1", .interstitial, timeToLive: .seconds(120))
        _ = machine.loading(0)
        #expect(machine.finishing(filled(ad, arrived: 0.1), 0.1) == [
            "auction_finished neta @0.100s", "ad_loaded a1 until 120.100s @0.100s", "timer 120.100s", "deliver loaded a1 to #1",
        ])
        #expect(machine.loading(120.099) == ["= ready loaded a1"])
        #expect(machine.loading(120.1) == [
            "= wait #2", "expired a1 @120.100s", "release a1", "released a1 expired @120.100s",
            "auction_started load @120.100s", "start load", "timer off",
        ])
    }

    @Test("a shown banner past its expiry is not offered: a load runs an auction and the ad is retired, never released")
    func shownBannerPastExpiry() {
        var (machine, a1) = State.shown.machine(Self.banner30)
        #expect(machine.loading(3600.099) == ["= ready loaded a1"])
        #expect(machine.loading(3600.1) == ["= wait #2", "auction_started load @3600.100s", "start load"])
        #expect(machine.currentAd?.ad === a1)
        let a2 = testAd("a2")
        #expect(machine.finishing(filled(a2, arrived: 3600.2), 3600.2) == [
            "auction_finished neta @3600.200s", "ad_loaded a2 until 7200.200s @3600.200s", "retired a1 @3600.200s",
            "timer 7200.200s", "deliver loaded a2 to #2",
        ])
    }

    // MARK: - Auction outcomes (R11 to R14)

    @Test("R11: every caller that joined an auction gets its one result")
    func joinedCallersShareTheResult() throws {
        var machine = Machine.of(Self.levelEnd)
        #expect(machine.loading(0) == ["= wait #1", "auction_started load @0.000s", "start load"])
        #expect(machine.loading(0.5) == ["= wait #2"])
        #expect(machine.isAuctionRunning)
        let b1 = testAd("b1", .interstitial)
        let actions = machine.auctionFinished(filled(b1, arrived: 1.0, lineItem: PlacementFixture.sources[0], eCPM: 2.00), at: at(1.0))
        #expect(actions.map(text) == [
            "auction_finished bid @1.000s", "ad_loaded b1 until 3601.000s @1.000s", "timer 3601.000s", "deliver loaded b1 to #1 #2",
        ])
        guard case .deliver(.loaded(let delivered), _)? = actions.last else {
            Issue.record("expected a delivery")
            return
        }
        #expect(delivered.eCPM == 2.00)
        #expect(delivered.lineItem.id == "bid")
        #expect(delivered.auctionID == "auction-1")
        #expect(delivered.expiry == Placement.Ad.Expiry(loadedAt: at(1.0), timeToLive: nil, format: .interstitial))
        #expect(!machine.isAuctionRunning)
        #expect(try #require(machine.currentAd).ad === b1)
    }

    @Test("a refresh's winner replaces an unshown ad (released, replaced) and starts a new count")
    func winnerReplacesUnshown() {
        var machine = Machine.of(Self.banner30)
        let a1 = testAd("a1")
        let a2 = testAd("a2")
        _ = machine.attaching(visible: true, 0)
        #expect(machine.finishing(filled(a1, arrived: 0.1), 0.1) == [
            "auction_finished neta @0.100s", "ad_loaded a1 until 3600.100s @0.100s", "refresh_scheduled 30.100s @0.100s", "timer 30.100s",
        ])
        // While the refresh runs there is no count; the timer waits for the unshown ad's expiry.
        #expect(machine.firing(30.1) == ["auction_started refresh @30.100s", "start refresh", "timer 3600.100s"])
        #expect(machine.nextRefreshDue == nil)
        #expect(machine.finishing(filled(a2, arrived: 30.2), 30.2) == [
            "auction_finished neta @30.200s", "ad_loaded a2 until 3630.200s @30.200s", "release a1", "released a1 replaced @30.200s",
            "refresh_scheduled 60.200s @30.200s", "timer 60.200s",
        ])
    }

    @Test("R13: a failed refresh keeps the current ad and starts a new count")
    func failedRefreshKeepsAd() {
        var machine = Machine.of(Self.banner30)
        let a1 = testAd("a1")
        _ = machine.attaching(visible: true, 0)
        _ = machine.finishing(filled(a1, arrived: 0.1), 0.1)
        _ = machine.firing(30.1)
        #expect(machine.finishing(unfilled(), 30.15) == ["auction_finished no fill @30.150s", "refresh_scheduled 60.150s @30.150s", "timer 60.150s"])
        #expect(machine.currentAd?.ad === a1)
        #expect(machine.firing(60.15) == ["auction_started refresh @60.150s", "start refresh", "timer 3600.100s"])
    }

    @Test("a failed auction of an empty refreshing placement retries after one interval of seen time")
    func noFillWhenEmptyRetries() {
        var machine = Machine.of(Self.banner30)
        _ = machine.attaching(visible: true, 0)
        #expect(machine.loading(0) == ["= wait #1"])
        #expect(machine.finishing(unfilled(), 0.1) == [
            "auction_finished no fill @0.100s", "refresh_scheduled 30.100s @0.100s", "timer 30.100s", "deliver no fill to #1",
        ])
        #expect(machine.firing(30.1) == ["auction_started refresh @30.100s", "start refresh"])
    }

    @Test("a non-refreshing placement's failed auction schedules nothing")
    func noFillNonRefreshing() {
        var machine = Machine.of(Self.levelEnd)
        _ = machine.loading(0)
        #expect(machine.finishing(unfilled(), 3.0) == ["auction_finished no fill @3.000s", "deliver no fill to #1"])
        #expect(machine.loading(3.0) == ["= wait #2", "auction_started load @3.000s", "start load"])
    }

    @Test("R14: a winner already expired when its auction ends counts as no fill; the current ad is kept")
    func winnerExpiredOnArrival() {
        var (machine, a1) = State.shown.machine(Self.banner30)
        _ = machine.attaching(visible: true, 1)
        _ = machine.firing(31)
        let stale = testAd("a2", timeToLive: .zero)
        #expect(machine.finishing(filled(stale, arrived: 31.1), 31.1) == [
            "auction_finished neta @31.100s", "expired a2 @31.100s", "release a2", "released a2 expired @31.100s",
            "refresh_scheduled 61.100s @31.100s", "timer 61.100s",
        ])
        #expect(machine.currentAd?.ad === a1)
    }

    @Test("an auction that ends after destroy: its winner is released and its callers get destroyed", arguments: [true, false])
    func auctionEndsAfterDestroy(fills: Bool) {
        var machine = Machine.of(Self.levelEnd)
        _ = machine.loading(0)
        #expect(machine.destroying(0.05) == ["cancel auction", "ended"])
        let a1 = testAd("a1", .interstitial)
        let expected = fills
            ? ["auction_finished neta @0.050s", "release a1", "released a1 destroyed @0.050s", "deliver destroyed to #1"]
            : ["auction_finished no fill @0.050s", "deliver destroyed to #1"]
        #expect(machine.finishing(fills ? filled(a1, arrived: 0.05) : unfilled(), 0.05) == expected)
        #expect(machine.currentAd == nil)
    }

    @Test("an outcome when no auction runs: nothing waits for its winner, which is released")
    func outcomeWithoutAuction() {
        var machine = Machine.of(Self.levelEnd)
        #expect(machine.finishing(filled(testAd("x"), arrived: 1), 1) == ["release x"])
        #expect(machine.finishing(unfilled(), 1) == [])
        #expect(machine.currentAd == nil)
    }

    @Test("R13: a server-sent refresh interval applies, raised to 30 s with a warning", arguments: [
        (15 as Int?, 30.1, true), (45, 45.1, false), (nil, 60.1, false),
    ])
    func serverRefreshInterval(serverSeconds: Int?, due: Double, warns: Bool) {
        var machine = Machine.of(Self.banner60)
        _ = machine.attaching(visible: true, 0)
        let ad = testAd("a1", serverRefreshSeconds: serverSeconds)
        var expected = ["auction_finished neta @0.100s", "ad_loaded a1 until 3600.100s @0.100s"]
        if warns { expected.append("log warning: server refresh interval 15 s is under 30 s; raised to 30 s (network neta)") }
        expected += ["refresh_scheduled \(at(due)) @0.100s", "timer \(at(due))"]
        #expect(machine.finishing(filled(ad, arrived: 0.1), 0.1) == expected)
        #expect(machine.nextRefreshDue == at(due))
        #expect(machine.refreshInterval == .seconds(Int(due.rounded(.down))))
    }

    @Test("R13: an auction that completes while paused starts a frozen count, not a refresh")
    func completesWhilePaused() {
        var machine = Machine.of(Self.banner30)
        _ = machine.attaching(visible: true, 0)
        #expect(machine.foreground(false, sequence: 1, 0.05) == [])
        #expect(machine.finishing(filled(testAd("a1"), arrived: 0.1), 0.1) == [
            "auction_finished neta @0.100s", "ad_loaded a1 until 3600.100s @0.100s", "timer 3600.100s",
        ])
        #expect(machine.nextRefreshDue == nil)
        #expect(machine.foreground(true, sequence: 2, 10) == ["refresh_scheduled 40.000s @10.000s", "timer 40.000s"])
    }

    // MARK: - Timer

    @Test("a stale wake-up is ignored; the current one is spent once")
    func staleWakeUp() {
        var machine = Machine.of(Self.banner30)
        _ = machine.attaching(visible: true, 0)
        _ = machine.finishing(filled(testAd("a1"), arrived: 0.1), 0.1)
        #expect(machine.timerWakeUp == at(30.1))
        #expect(machine.visibility(false, 10) == ["timer 3600.100s"])
        #expect(machine.firing(30.1) == [])
        #expect(machine.firing(20, at: 30.1) == [])
        #expect(machine.timerWakeUp == at(3600.1))
        #expect(machine.firing(3600.1) == ["expired a1 @3600.100s", "release a1", "released a1 expired @3600.100s"])
        #expect(machine.firing(3600.1) == [])
    }

    @Test("R14 at the timer: an unseen banner's ad expires and reloads when seen again")
    func expiryWhileHidden() {
        var machine = Machine.of(Self.banner60)
        #expect(machine.attaching(visible: false, 0) == ["= view#1", "auction_started load @0.000s", "start load"])
        #expect(machine.finishing(filled(testAd("a1"), arrived: 0.1), 0.1) == [
            "auction_finished neta @0.100s", "ad_loaded a1 until 3600.100s @0.100s", "timer 3600.100s",
        ])
        #expect(machine.firing(3600.1) == ["expired a1 @3600.100s", "release a1", "released a1 expired @3600.100s"])
        #expect(machine.currentAd == nil)
        #expect(machine.visibility(true, 4000) == ["auction_started load @4000.000s", "start load"])
        // The reload is spent: an auction that fails leaves it empty until the next count.
        #expect(machine.finishing(unfilled(), 4000.1) == ["auction_finished no fill @4000.100s", "refresh_scheduled 4060.100s @4000.100s", "timer 4060.100s"])
        #expect(machine.visibility(false, 4001) == ["timer off"])
        #expect(machine.visibility(true, 4002) == ["refresh_scheduled 4061.100s @4002.000s", "timer 4061.100s"])
    }

    @Test("R14 at the timer: an expiry before the refresh is due empties a seen banner, which reloads at once")
    func expiryWhileSeen() {
        var machine = Machine.of(Self.banner30)
        _ = machine.attaching(visible: true, 0)
        #expect(machine.finishing(filled(testAd("a1", timeToLive: .seconds(10)), arrived: 0.1), 0.1) == [
            "auction_finished neta @0.100s", "ad_loaded a1 until 10.100s @0.100s", "refresh_scheduled 30.100s @0.100s", "timer 10.100s",
        ])
        #expect(machine.firing(10.1) == [
            "expired a1 @10.100s", "release a1", "released a1 expired @10.100s", "auction_started load @10.100s", "start load",
        ])
    }

    @Test("R14 at the timer: a non-refreshing placement stays empty")
    func expiryNonRefreshing() {
        var machine = Machine.of(Self.levelEnd)
        _ = machine.loading(0)
        let a1 = testAd("a1", .interstitial, timeToLive: .seconds(120))
        _ = machine.finishing(filled(a1, arrived: 0.1), 0.1)
        #expect(machine.firing(120.1) == ["expired a1 @120.100s", "release a1", "released a1 expired @120.100s"])
        #expect(machine.attaching(visible: true, 200) == ["= view#1"])
        #expect(machine.showing(a1, 200) == ["= expired"])
    }

    // MARK: - Views (R10, R13)

    @Test("a view attaching to an empty placement loads it only when it refreshes", arguments: [
        (banner30, ["= view#1", "auction_started load @0.000s", "start load"]),
        (levelEnd, ["= view#1"]),
        (feedNative, ["= view#1"]),
    ])
    func attachToEmpty(configuration: MediationConfiguration.Placement, expected: [String]) {
        var machine = Machine.of(configuration)
        #expect(machine.attaching(visible: true, 0) == expected)
    }

    @Test("R10: a view attaching to a placement with a fresh ad shows it and makes no request")
    func attachWithAd() {
        var machine = Machine.of(Self.banner30)
        #expect(machine.attaching(visible: false, 0) == ["= view#1", "auction_started load @0.000s", "start load"])
        #expect(machine.attaching(visible: false, 0.05) == ["= view#2"])
        _ = machine.finishing(filled(testAd("a1"), arrived: 0.1), 0.1)
        #expect(machine.attaching(visible: true, 1) == ["= view#3", "refresh_scheduled 31.000s @1.000s", "timer 31.000s"])
        #expect(machine.views == [Placement.ViewID(rawValue: 1): false, Placement.ViewID(rawValue: 2): false, Placement.ViewID(rawValue: 3): true])
    }

    @Test("a view attaching when the shown banner has expired runs an auction")
    func attachWithExpiredShownBanner() {
        var (machine, _) = State.shown.machine(Self.banner30)
        #expect(machine.attaching(visible: false, 3600.1) == ["= view#2", "auction_started load @3600.100s", "start load"])
    }

    @Test("unknown views are ignored; a detached view keeps the ad and freezes the count")
    func detach() {
        var machine = Machine.of(Self.banner30)
        _ = machine.attaching(visible: true, 0)
        let a1 = testAd("a1")
        _ = machine.finishing(filled(a1, arrived: 0.1), 0.1)
        #expect(machine.visibility(false, view: 7, 1) == [])
        #expect(machine.detaching(view: 7, 1) == [])
        #expect(machine.detaching(view: 1, 10) == ["timer 3600.100s"])
        #expect(machine.detaching(view: 1, 11) == [])
        #expect(machine.visibility(true, view: 1, 12) == [])
        #expect(machine.currentAd?.ad === a1)
        #expect(machine.nextRefreshDue == nil)
    }

    @Test("visibility: several views, the count runs while any is visible")
    func severalViews() {
        var machine = Machine.of(Self.banner30)
        _ = machine.attaching(visible: true, 0)
        _ = machine.attaching(visible: false, 0)
        _ = machine.finishing(filled(testAd("a1"), arrived: 0.1), 0.1)
        #expect(machine.visibility(true, view: 2, 5) == [])
        #expect(machine.visibility(false, view: 1, 6) == [])
        #expect(machine.visibility(false, view: 2, 10.1) == ["timer 3600.100s"])
        #expect(machine.visibility(true, view: 1, 20.1) == ["refresh_scheduled 40.100s @20.100s", "timer 40.100s"])
    }

    // MARK: - Foreground (R13)

    @Test("a foreground change older than the last one applied is ignored")
    func staleForeground() {
        var machine = Machine.of(Self.banner30)
        _ = machine.attaching(visible: true, 0)
        _ = machine.finishing(filled(testAd("a1"), arrived: 0.1), 0.1)
        #expect(machine.foreground(false, sequence: 2, 1) == ["timer 3600.100s"])
        #expect(machine.foreground(true, sequence: 1, 2) == [])
        #expect(machine.foreground(false, sequence: 2, 3) == [])
        #expect(!machine.isForeground)
        #expect(machine.foreground(true, sequence: 3, 4) == ["refresh_scheduled 33.100s @4.000s", "timer 33.100s"])
        #expect(machine.isSeen)
    }

    @Test("an ad that expired in the background reloads when the app returns to a seen placement")
    func expiredInBackground() {
        var machine = Machine.of(Self.banner30)
        _ = machine.attaching(visible: true, 0)
        _ = machine.finishing(filled(testAd("a1", timeToLive: .seconds(100)), arrived: 0.1), 0.1)
        #expect(machine.foreground(false, sequence: 1, 10) == ["timer 100.100s"])
        #expect(machine.firing(100.1) == ["expired a1 @100.100s", "release a1", "released a1 expired @100.100s"])
        #expect(machine.foreground(true, sequence: 2, 200) == ["auction_started load @200.000s", "start load"])
    }

    @Test("the foreground state is kept for placements that do not refresh")
    func foregroundNonRefreshing() {
        var machine = Machine.of(Self.levelEnd, foreground: false)
        #expect(!machine.isForeground)
        #expect(machine.foreground(true, sequence: 1, 1) == [])
        #expect(machine.isForeground)
        #expect(machine.nextRefreshDue == nil)
        #expect(machine.refreshInterval == nil)
    }

    // MARK: - Shows and clicks (R12, R14)

    @Test("R12: the first show of the current ad counts one impression; later shows count nothing")
    func show() {
        var (machine, a1) = State.fresh.machine(Self.levelEnd)
        #expect(machine.showing(a1, 1) == ["= impression a1", "render a1", "impression a1", "shown a1 @1.000s", "timer off"])
        #expect(machine.showing(a1, 2) == ["= alreadyShown"])
        #expect(machine.currentAd?.isShown == true)
        #expect(machine.showing(testAd("x"), 2) == ["= notCurrent"])
    }

    @Test("R12a: a banner's or a native's show counts only while some view is visible and the app is in the foreground", arguments: [banner30, feedNative])
    func showNeedsAVisibleViewInTheForeground(_ configuration: MediationConfiguration.Placement) {
        var (machine, a1) = State.fresh.machine(configuration)
        #expect(machine.showing(a1, 1) == ["= refused noVisibleView"])
        _ = machine.attaching(visible: false, 1)
        #expect(machine.showing(a1, 1) == ["= refused noVisibleView"])
        _ = machine.visibility(true, view: 1, 2)
        _ = machine.foreground(false, sequence: 1, 3)
        #expect(machine.showing(a1, 3) == ["= refused background"])
        #expect(machine.currentAd?.isShown == false)
        _ = machine.foreground(true, sequence: 2, 4)
        #expect(Array(machine.showing(a1, 4).prefix(4)) == ["= impression a1", "render a1", "impression a1", "shown a1 @4.000s"])
        #expect(machine.currentAd?.isShown == true)
    }

    @Test("R12a: a full-screen ad is presented by the host over the app: its show needs the foreground, not a view")
    func fullScreenShowNeedsTheForegroundOnly() {
        var (machine, a1) = State.fresh.machine(Self.levelEnd)
        _ = machine.foreground(false, sequence: 1, 1)
        #expect(machine.showing(a1, 1) == ["= refused background"])
        _ = machine.foreground(true, sequence: 2, 2)
        #expect(machine.showing(a1, 2) == ["= impression a1", "render a1", "impression a1", "shown a1 @2.000s", "timer off"])
    }

    @Test("R12a: an ad not ready yet records its render once and counts when it says it is ready while seen")
    func notReadyCountsWhenReady() {
        var (machine, a1) = State.fresh.machine(Self.banner30)
        _ = machine.attaching(visible: true, 1)
        #expect(machine.becomingReady(a1, 1) == [])  // no report refused yet: nothing to count
        #expect(machine.showing(a1, readiness: .notReady("loading"), 1) == ["= refused notReady: loading", "render a1"])
        #expect(machine.showing(a1, readiness: .notReady("loading"), 2) == ["= refused notReady: loading"])
        #expect(machine.becomingReady(a1, readiness: .notReady("loading"), 3) == [])
        #expect(machine.becomingReady(testAd("x"), 3) == [])
        #expect(machine.becomingReady(a1, 4) == ["impression a1", "shown a1 @4.000s"])
        #expect(machine.currentAd?.isShown == true)
        #expect(machine.becomingReady(a1, 5) == [])
        #expect(machine.showing(a1, 5) == ["= alreadyShown"])
    }

    @Test("R12a: an ad that becomes ready while not seen counts at the host's next report, its render recorded once")
    func readyWhileHiddenCountsAtTheNextReport() {
        var (machine, a1) = State.fresh.machine(Self.banner30)
        _ = machine.attaching(visible: true, 1)
        #expect(machine.showing(a1, readiness: .notReady("loading"), 2) == ["= refused notReady: loading", "render a1"])
        _ = machine.visibility(false, view: 1, 3)
        #expect(machine.becomingReady(a1, 4) == [])
        _ = machine.visibility(true, view: 1, 5)
        #expect(Array(machine.showing(a1, 6).prefix(3)) == ["= impression a1", "impression a1", "shown a1 @6.000s"])
    }

    @Test("R12a: an ad its network does not allow now records nothing; a later report may count")
    func notAllowedRecordsNothing() {
        var (machine, a1) = State.fresh.machine(Self.levelEnd)
        #expect(machine.showing(a1, readiness: .notAllowed("frequency cap"), 1) == ["= refused notAllowed: frequency cap"])
        #expect(machine.becomingReady(a1, 2) == [])
        #expect(machine.showing(a1, 3) == ["= impression a1", "render a1", "impression a1", "shown a1 @3.000s", "timer off"])
    }

    @Test("R12a: the ad's own render failure leaves like a host-reported one, with no caller; a stale report is ignored")
    func adReportedRenderFailure() {
        var (machine, a1) = State.fresh.machine(Self.banner30)
        #expect(machine.reportingRenderFailure(by: testAd("x"), 1) == [])
        #expect(machine.reportingRenderFailure(by: a1, 1) == [
            "render_failed a1 @1.000s", "release a1", "released a1 render_failure @1.000s",
            "auction_started render_failure @1.000s", "start render_failure without neta", "timer off",
        ])
        #expect(machine.currentAd == nil)
        #expect(machine.reportingRenderFailure(by: a1, 2) == [])
        let a2 = testAd("a2")
        _ = machine.finishing(filled(a2, arrived: 2.1), 2.1)
        #expect(machine.currentAd?.ad === a2)
    }

    @Test("R12a: the ad's own render failure during a refresh auction joins it")
    func adReportedRenderFailureDuringAuction() {
        var machine = Machine.of(Self.banner30)
        let a1 = testAd("a1")
        _ = machine.attaching(visible: true, 0)
        _ = machine.finishing(filled(a1, arrived: 0.1), 0.1)
        _ = machine.firing(30.1)
        #expect(machine.reportingRenderFailure(by: a1, 30.15) == ["render_failed a1 @30.150s", "release a1", "released a1 render_failure @30.150s", "timer off"])
        #expect(machine.isAuctionRunning)
    }

    @Test("R14: a show at or after the expiry instant releases the ad; a later show of it says expired", arguments: [
        (120.099, true), (120.1, false), (121.1, false),
    ])
    func showAroundExpiry(seconds: Double, shows: Bool) {
        var machine = Machine.of(Self.levelEnd)
        let a1 = testAd("a1", .interstitial, timeToLive: .seconds(120))
        _ = machine.loading(0)
        _ = machine.finishing(filled(a1, arrived: 0.1), 0.1)
        let instant = at(seconds)
        let expected = shows
            ? ["= impression a1", "render a1", "impression a1", "shown a1 @\(instant)", "timer off"]
            : ["= expired", "expired a1 @\(instant)", "release a1", "released a1 expired @\(instant)", "timer off"]
        #expect(machine.showing(a1, seconds) == expected)
        #expect(machine.showing(a1, seconds + 1) == [shows ? "= alreadyShown" : "= expired"])
    }

    @Test("R12: a retired shown ad answers alreadyShown; its click still counts once, even after destroy")
    func retiredAd() {
        var (machine, a1) = State.shown.machine(Self.levelEnd)
        _ = machine.loading(1)
        let a2 = testAd("a2", .interstitial)
        _ = machine.finishing(filled(a2, arrived: 1.1), 1.1)
        #expect(machine.showing(a1, 2) == ["= alreadyShown"])
        #expect(machine.clicking(a1, 2) == ["= true", "click a1", "clicked a1 @2.000s"])
        #expect(machine.clicking(a1, 3) == ["= false"])
        _ = machine.showing(a2, 4)
        _ = machine.destroying(5)
        #expect(machine.showing(a2, 6) == ["= alreadyShown"])
        #expect(machine.clicking(a2, 6) == ["= true", "click a2", "clicked a2 @6.000s"])
    }

    @Test("clicks count once, only after the impression")
    func clicks() {
        var (machine, a1) = State.fresh.machine(Self.banner30)
        #expect(machine.clicking(a1, 1) == ["= false"])
        _ = machine.attaching(visible: true, 1)
        _ = machine.showing(a1, 1)
        #expect(machine.clicking(a1, 2) == ["= true", "click a1", "clicked a1 @2.000s"])
        #expect(machine.clicking(a1, 3) == ["= false"])
        #expect(machine.clicking(testAd("x"), 3) == ["= false"])
    }

    @Test("the machine remembers the last few retired and expired ads")
    func memory() {
        var machine = Machine.of(Self.levelEnd)
        var ads: [ScriptedAd] = []
        for index in 0...Machine.memory {
            let ad = testAd("a\(index)", .interstitial)
            ads.append(ad)
            let start = Double(index)
            _ = machine.loading(start)
            _ = machine.finishing(filled(ad, arrived: start + 0.1), start + 0.1)
            _ = machine.showing(ad, start + 0.1)
        }
        _ = machine.destroying(10)
        #expect(machine.showing(ads[0], 11) == ["= notCurrent"])
        for ad in ads.dropFirst() { #expect(machine.showing(ad, 11) == ["= alreadyShown"]) }
    }

    // MARK: - Render failures

    @Test("a render failure releases an unshown ad and runs an auction without its line item", arguments: [levelEnd, banner30])
    func renderFailure(configuration: MediationConfiguration.Placement) {
        var (machine, a1) = State.fresh.machine(configuration)
        #expect(machine.failingRender(a1, 1) == [
            "= wait #2", "render_failed a1 @1.000s", "release a1", "released a1 render_failure @1.000s",
            "auction_started render_failure @1.000s", "start render_failure without neta", "timer off",
        ])
        #expect(machine.currentAd == nil)
    }

    @Test("a render failure of a shown ad retires it (never released)")
    func renderFailureShown() {
        var (machine, a1) = State.shown.machine(Self.banner30)
        #expect(machine.failingRender(a1, 1) == [
            "= wait #2", "render_failed a1 @1.000s", "retired a1 @1.000s", "auction_started render_failure @1.000s", "start render_failure without neta",
        ])
    }

    @Test("a render failure during an auction joins it")
    func renderFailureDuringAuction() {
        var machine = Machine.of(Self.banner30)
        let a1 = testAd("a1")
        _ = machine.attaching(visible: true, 0)
        _ = machine.finishing(filled(a1, arrived: 0.1), 0.1)
        _ = machine.firing(30.1)
        #expect(machine.failingRender(a1, 30.15) == ["= wait #1", "render_failed a1 @30.150s", "release a1", "released a1 render_failure @30.150s", "timer off"])
        #expect(machine.finishing(unfilled(), 30.2) == ["auction_finished no fill @30.200s", "refresh_scheduled 60.200s @30.200s", "timer 60.200s", "deliver no fill to #1"])
        // Emptied by a render failure (not by expiry): seeing it again does not reload at once.
        #expect(machine.visibility(false, 31) == ["timer off"])
        #expect(machine.visibility(true, 32) == ["refresh_scheduled 61.200s @32.000s", "timer 61.200s"])
    }

    @Test("a render failure of an ad that is not current is a load", arguments: State.allCases)
    func renderFailureNotCurrent(state: State) {
        var (machine, _) = state.machine(Self.levelEnd)
        var twin = machine
        #expect(machine.failingRender(testAd("x"), 1) == twin.loading(1))
    }

    // MARK: - Slot resize

    @Test("slot resize: a refit that fits becomes the ad's size in events; otherwise it is logged and the next auction asks the new size")
    func slotResize() {
        let newSlot = SlotSize(maxWidth: 300, maxHeight: 90)
        var machine = Machine.of(Self.banner30)
        #expect(machine.slotDidResize(to: newSlot) == nil)
        let (_, actions) = machine.attachView(visible: true, at: at(0))
        guard case .startAuction(let start)? = actions.last else {
            Issue.record("expected an auction")
            return
        }
        #expect(start.slot == newSlot)
        #expect(start.startedAt == at(0))

        let a1 = testAd("a1")
        _ = machine.finishing(filled(a1, arrived: 0.1), 0.1)
        let smaller = SlotSize(maxWidth: 200, maxHeight: 90)
        let asked = machine.slotDidResize(to: smaller)
        #expect(asked === a1)
        let (none, logged) = machine.adRefitted(a1, to: smaller, size: nil)
        #expect(none == nil)
        #expect(logged.map(text) == ["log debug: slot resized; the current ad cannot refit, the next auction asks the new size"])
        #expect(machine.adRefitted(a1, to: smaller, size: AdSize(width: 250, height: 40)).0 == nil)
        let (size, quiet) = machine.adRefitted(a1, to: smaller, size: AdSize(width: 200, height: 31.25))
        #expect(size == AdSize(width: 200, height: 31.25))
        #expect(quiet.isEmpty)
        #expect(machine.adRefitted(testAd("x"), to: smaller, size: AdSize(width: 1, height: 1)).0 == nil)
        let (_, shown) = machine.reportShown(a1, at: at(1))
        let impressions = shown.compactMap { action -> MediationEvent.Impression? in
            if case .emit(.shown(let impression, _)) = action { return impression }
            return nil
        }
        #expect(impressions.map(\.ad.size) == [AdSize(width: 200, height: 31.25)])
        #expect(machine.slot == smaller)
        _ = machine.destroying(2)
        #expect(machine.slotDidResize(to: newSlot) == nil)
        #expect(machine.slot == newSlot)
    }

    // MARK: - Destroy

    @Test("destroy stops the timer, cancels the auction, releases an unshown ad, and ends; later events do nothing")
    func destroy() {
        var machine = Machine.of(Self.banner30)
        let a1 = testAd("a1")
        _ = machine.attaching(visible: true, 0)
        _ = machine.finishing(filled(a1, arrived: 0.1), 0.1)
        _ = machine.firing(30.1)
        #expect(machine.destroying(31) == ["timer off", "cancel auction", "release a1", "released a1 destroyed @31.000s", "ended"])
        #expect(machine.isDestroyed)
        #expect(machine.destroying(32) == [])
        #expect(machine.views.isEmpty)
        #expect(machine.nextRefreshDue == nil)
        #expect(machine.timerWakeUp == nil)
        #expect(machine.currentAd == nil)
    }

    @Test("destroy retires a shown ad")
    func destroyShown() {
        var (machine, _) = State.shown.machine(Self.banner30)
        #expect(machine.destroying(1) == ["retired a1 @1.000s", "ended"])
    }

    /// Every event after destroy, and what it answers.
    enum LateEvent: String, CaseIterable, Sendable, CustomStringConvertible {
        case load, attach, setVisible, detach, foreground, timer, show, click, renderFailure, resize, destroy
        var description: String { rawValue }
    }

    @Test("after destroy every event does nothing", arguments: LateEvent.allCases)
    func afterDestroy(event: LateEvent) {
        var machine = Machine.of(Self.banner30)
        let a1 = testAd("a1")
        _ = machine.attaching(visible: true, 0)
        _ = machine.finishing(filled(a1, arrived: 0.1), 0.1)
        _ = machine.destroying(1)
        let lines: [String]
        switch event {
        case .load: lines = machine.loading(2)
        case .attach: lines = machine.attaching(visible: true, 2)
        case .setVisible: lines = machine.visibility(true, 2)
        case .detach: lines = machine.detaching(view: 1, 2)
        case .foreground: lines = machine.foreground(false, sequence: 9, 2)
        case .timer: lines = machine.firing(30.1)
        case .show: lines = machine.showing(a1, 2)
        case .click: lines = machine.clicking(a1, 2)
        case .renderFailure: lines = machine.failingRender(a1, 2)
        case .resize: lines = machine.slotDidResize(to: SlotSize(maxWidth: 1)) == nil ? [] : ["asked"]
        case .destroy: lines = machine.destroying(2)
        }
        let replies: [LateEvent: [String]] = [
            .load: ["= ready destroyed"], .attach: ["= view#2"], .show: ["= notCurrent"], .click: ["= false"], .renderFailure: ["= ready destroyed"],
        ]
        #expect(lines == replies[event] ?? [])
        #expect(machine.timerWakeUp == nil)
        #expect(!machine.isAuctionRunning)
    }

    // MARK: - Scenarios 7 to 11 as action sequences

    @Test("scenario 7: hidden banner: no request until 240.100 s; the first ad is never released")
    func scenario7() {
        var machine = Machine.of(Self.banner60)
        let a1 = testAd("a1")
        let a2 = testAd("a2")
        var lines: [String] = []
        lines += machine.attaching(visible: true, 0)
        lines += machine.finishing(filled(a1, arrived: 0.1), 0.1)
        lines += machine.showing(a1, 0.1)
        lines += machine.visibility(false, 20.1)
        lines += machine.visibility(true, 200.1)
        lines += machine.firing(240.1)
        lines += machine.finishing(filled(a2, arrived: 240.2), 240.2)
        #expect(lines == [
            "= view#1", "auction_started load @0.000s", "start load",
            "auction_finished neta @0.100s", "ad_loaded a1 until 3600.100s @0.100s", "refresh_scheduled 60.100s @0.100s", "timer 60.100s",
            "= impression a1", "render a1", "impression a1", "shown a1 @0.100s",
            "timer off",
            "refresh_scheduled 240.100s @200.100s", "timer 240.100s",
            "auction_started refresh @240.100s", "start refresh",
            "auction_finished neta @240.200s", "ad_loaded a2 until 3840.200s @240.200s", "retired a1 @240.200s",
            "refresh_scheduled 300.200s @240.200s", "timer 300.200s",
        ])
    }

    @Test("scenario 8: background during a refresh: the next refresh starts at 630.0 s")
    func scenario8() {
        var machine = Machine.of(Self.banner30)
        let a1 = testAd("a1")
        let a2 = testAd("a2")
        var lines: [String] = []
        lines += machine.attaching(visible: true, 0)
        lines += machine.finishing(filled(a1, arrived: 0.1), 0.1)
        lines += machine.showing(a1, 0.1)
        lines += machine.firing(30.1)
        lines += machine.foreground(false, sequence: 1, 31.0)
        lines += machine.finishing(filled(a2, arrived: 32.1), 32.1)
        lines += machine.showing(a2, 32.1)
        lines += machine.foreground(true, sequence: 2, 600.0)
        lines += machine.firing(630.0)
        #expect(lines == [
            "= view#1", "auction_started load @0.000s", "start load",
            "auction_finished neta @0.100s", "ad_loaded a1 until 3600.100s @0.100s", "refresh_scheduled 30.100s @0.100s", "timer 30.100s",
            "= impression a1", "render a1", "impression a1", "shown a1 @0.100s",
            "auction_started refresh @30.100s", "start refresh",
            "auction_finished neta @32.100s", "ad_loaded a2 until 3632.100s @32.100s", "retired a1 @32.100s", "timer 3632.100s",
            // The host's report while the app is in the background counts nothing (R12a).
            "= refused background",
            "refresh_scheduled 630.000s @600.000s", "timer 630.000s",
            "auction_started refresh @630.000s", "start refresh", "timer 3632.100s",
        ])
    }

    @Test("scenario 9: two loads at 0 on a visible banner: auctions start at 0, 30.100, 60.200 and 90.300 s only")
    func scenario9() {
        var machine = Machine.of(Self.banner30)
        #expect(machine.loading(0) == ["= wait #1", "auction_started load @0.000s", "start load"])
        #expect(machine.loading(0) == ["= wait #2"])
        #expect(machine.attaching(visible: true, 0) == ["= view#1"])
        var previous: ScriptedAd?
        var start = 0.0
        for index in 1...4 {
            let ad = testAd("a\(index)")
            let end = start + 0.1
            let due = end + 30
            var expected = ["auction_finished neta @\(at(end))", "ad_loaded a\(index) until \(at(end + 3600)) @\(at(end))"]
            if let previous { expected.append("retired \(previous.id) @\(at(end))") }
            expected += ["refresh_scheduled \(at(due)) @\(at(end))", "timer \(at(due))"]
            if index == 1 { expected.append("deliver loaded a1 to #1 #2") }
            #expect(machine.finishing(filled(ad, arrived: end), end) == expected)
            #expect(machine.showing(ad, end) == ["= impression a\(index)", "render a\(index)", "impression a\(index)", "shown a\(index) @\(at(end))"])
            #expect(machine.firing(due) == ["auction_started refresh @\(at(due))", "start refresh"])
            previous = ad
            start = due
        }
        #expect(at(start) == at(120.4))
    }

    @Test("scenario 10: concurrent loads at 0 and 0.5 s: one auction; both callers get Bid at 2.00")
    func scenario10() {
        var machine = Machine.of(Self.levelEnd)
        let b1 = testAd("b1", .interstitial)
        var lines: [String] = []
        lines += machine.loading(0)
        lines += machine.loading(0.5)
        lines += machine.finishing(filled(b1, arrived: 1.0, lineItem: PlacementFixture.sources[0], eCPM: 2.00), 1.0)
        #expect(lines == [
            "= wait #1", "auction_started load @0.000s", "start load",
            "= wait #2",
            "auction_finished bid @1.000s", "ad_loaded b1 until 3601.000s @1.000s", "timer 3601.000s", "deliver loaded b1 to #1 #2",
        ])
    }

    @Test("scenario 11: a re-created view shows the same ad with no request; the next refresh is at 30.600 s")
    func scenario11() {
        var machine = Machine.of(Self.banner30)
        let a1 = testAd("a1")
        var lines: [String] = []
        lines += machine.attaching(visible: true, 0)
        lines += machine.finishing(filled(a1, arrived: 0.1), 0.1)
        lines += machine.showing(a1, 0.1)
        lines += machine.detaching(view: 1, 10.0)
        lines += machine.attaching(visible: true, 10.5)
        lines += machine.showing(a1, 10.5)
        lines += machine.firing(30.6)
        #expect(lines == [
            "= view#1", "auction_started load @0.000s", "start load",
            "auction_finished neta @0.100s", "ad_loaded a1 until 3600.100s @0.100s", "refresh_scheduled 30.100s @0.100s", "timer 30.100s",
            "= impression a1", "render a1", "impression a1", "shown a1 @0.100s",
            "timer off",
            "= view#2", "refresh_scheduled 30.600s @10.500s", "timer 30.600s",
            "= alreadyShown",
            "auction_started refresh @30.600s", "start refresh",
        ])
    }
}

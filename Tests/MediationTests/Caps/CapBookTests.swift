import Testing
@testable import Mediation

/// The pure cap state machine at exact instants (milliseconds on the cap timeline).
@Suite("Cap book")
struct CapBookTests {
    static let minute: Int64 = 60_000
    static let day: Int64 = 86_400_000
    static let placement = CapScope.placement("level_end")

    /// 20 a day with 10 minutes between two impressions.
    static let twentyADayTenMinutesApart = CapRule.rules(
        of: MediationConfiguration.CapSettings(caps: [.init(impressions: 20, window: .seconds(86_400))], pacingSeconds: 600),
        scope: placement
    )

    @Test("20 a day with 10 minutes between: the pacing's edge (1 ms before refused, at the instant allowed), the 21st refused until the first is a day old")
    func twentyADayWithTenMinutesBetween() {
        var book = CapBook()
        let rules = Self.twentyADayTenMinutesApart
        #expect(book.refusal(rules, at: 0) == nil)
        book.record([(Self.placement, 20)], at: 0)
        // The gap's edge: one millisecond before 10 minutes, refused by the pacing; at 10 minutes, allowed.
        #expect(book.refusal(rules, at: 10 * Self.minute - 1) == CapBook.Refusal(rule: "placement:level_end pacing 600s", retryAt: 10 * Self.minute))
        #expect(book.refusal(rules, at: 10 * Self.minute) == nil)
        for n in 1..<20 { book.record([(Self.placement, 20)], at: Int64(n) * 10 * Self.minute) }
        // 20 shown (the last at 190 min): the 21st is refused by the day cap, which frees when
        // the first is a day old, later than the pacing (200 min): the strictest binds.
        let refusal = book.refusal(rules, at: 200 * Self.minute)
        #expect(refusal == CapBook.Refusal(rule: "placement:level_end 20/86400s", retryAt: Self.day))
        #expect(book.refusal(rules, at: Self.day - 1)?.rule == "placement:level_end 20/86400s")
        #expect(book.refusal(rules, at: Self.day) == nil)
    }

    @Test("a sliding window: the oldest impression leaves it at exactly its instant plus the window")
    func slidingWindowEdge() {
        var book = CapBook()
        let rules = [CapRule(scope: .app, limit: .window(impressions: 3, seconds: 60))]
        for t: Int64 in [1_000, 20_000, 50_000] { book.record([(.app, 3)], at: t) }
        #expect(book.refusal(rules, at: 60_999) == CapBook.Refusal(rule: "app 3/60s", retryAt: 61_000))
        #expect(book.refusal(rules, at: 61_000) == nil)
        book.record([(.app, 3)], at: 61_000)
        // Now 20 s, 50 s and 61 s are in the window: the next frees at 80 s (not a fixed window's end).
        #expect(book.refusal(rules, at: 79_999)?.retryAt == 80_000)
        #expect(book.refusal(rules, at: 80_000) == nil)
    }

    @Test("per-session caps reset after 30 minutes in the background, not after 29:59.999")
    func sessionCap() {
        var book = CapBook()
        let rules = [CapRule(scope: Self.placement, limit: .session(impressions: 2))]
        book.record([(Self.placement, 1)], at: 0)
        book.record([(Self.placement, 1)], at: 1)
        #expect(book.refusal(rules, at: 2) == CapBook.Refusal(rule: "placement:level_end 2/session", retryAt: nil))
        book.setForeground(false, at: 10)
        book.setForeground(true, at: 10 + 30 * Self.minute - 1)
        #expect(book.refusal(rules, at: 30 * Self.minute + 10) != nil)
        book.setForeground(false, at: 40 * Self.minute)
        book.setForeground(true, at: 70 * Self.minute)
        #expect(book.refusal(rules, at: 70 * Self.minute) == nil)
        #expect(book.session == 2)
    }

    @Test("a ring keeps only the last N instants of a cap of N, whatever the impressions over a year")
    func ringIsBounded() {
        var book = CapBook()
        for n in 0..<(365 * 20) { book.record([(Self.placement, 20)], at: Int64(n) * 30 * Self.minute) }
        #expect(book.rings[Self.placement]?.count == 20)
        #expect(book.rings[Self.placement]?.capacity == 20)
        #expect(book.rings[Self.placement]?.newest(1) == Int64(365 * 20 - 1) * 30 * Self.minute)
        #expect(book.rings[Self.placement]?.newest(20) == Int64(365 * 20 - 20) * 30 * Self.minute)
    }

    @Test("one full-screen ad at a time, then the gap from its end: 1 ms before refused, at the instant allowed")
    func fullScreenGap() {
        var book = CapBook()
        let gap: Int64 = 30_000
        #expect(book.fullScreenRefusal(placement: "level_end", gap: gap, at: 0) == nil)
        book.beginFullScreen(placement: "level_end", at: 0)
        #expect(book.fullScreenRefusal(placement: "app_open", gap: gap, at: 5_000)?.rule == "app one_full_screen (level_end presented)")
        let ended = book.endFullScreen(placement: "level_end", at: 12_000)
        #expect(ended)
        #expect(book.fullScreenRefusal(placement: "app_open", gap: gap, at: 41_999) == CapBook.Refusal(rule: "app full_screen_gap 30s", retryAt: 42_000))
        #expect(book.fullScreenRefusal(placement: "app_open", gap: gap, at: 42_000) == nil)
    }

    @Test("a full-screen ad whose end is never reported counts as ended 10 minutes after it started")
    func forgottenDismissal() {
        var book = CapBook()
        book.beginFullScreen(placement: "level_end", at: 0)
        let limit = Int64(CapBook.maximumPresentationSeconds) * 1000
        #expect(book.fullScreenRefusal(placement: "x", gap: 30_000, at: limit - 1) != nil)
        #expect(book.fullScreenRefusal(placement: "x", gap: 30_000, at: limit)?.retryAt == limit + 30_000)
        #expect(book.fullScreenRefusal(placement: "x", gap: 30_000, at: limit + 30_000) == nil)
    }
}

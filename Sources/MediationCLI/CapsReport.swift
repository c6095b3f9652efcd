import Mediation

/// Caps and pacing with the instant each frees (`docs/caps.md`), as `mediate networks`, the
/// `--watch` summary (text and `--json`) and the HTML report show them: one row type, one
/// formatter. The rules and instants are the engine's (``MediationEngine/capStatus(lineItemID:placementID:)``);
/// a watch adds how many times each refused (its `capped` events).
enum CapsReport {
    /// One rule.
    struct Row: Encodable, Hashable {
        /// The rule, e.g. `placement:level_end 20/86400s`, `app full_screen_gap 30s`.
        var rule: String
        /// When it frees, ms on the engine's clock (`free_at_ms`); `nil` when no instant does
        /// (a session cap: a new session; another full-screen ad: its dismissal).
        var freeAtMilliseconds: Double?
        /// How many shows or auctions it refused in the run (`refused`; a watch only).
        var refused: Int?

        enum CodingKeys: String, CodingKey {
            case rule
            case freeAtMilliseconds = "free_at_ms"
            case refused
        }
    }

    /// When a rule frees, in words: `at 3600000.000 ms`, or `at a new session or dismissal`.
    static func free(_ milliseconds: Double?) -> String {
        milliseconds.map { "at \(ReportFormat.millis($0)) ms" } ?? "at a new session or dismissal"
    }

    /// One row as text, the rule escaped: `placement:level_end 2/3600s: refused 3 times; free
    /// at 3600000.000 ms` (no refusal count outside a watch).
    static func text(_ row: Row) -> String {
        DisplayText.escaped(row.rule) + (row.refused.map { ": refused \(HumanReport.counted($0, "time"));" } ?? "") + " free \(free(row.freeAtMilliseconds))"
    }

    /// The rules of `lineItemID` of `placementID` now, each with when it frees.
    static func rows(of engine: MediationEngine, lineItemID: String, placementID: String) -> [Row] {
        engine.capStatus(lineItemID: lineItemID, placementID: placementID).map { Row(rule: $0.rule, freeAtMilliseconds: $0.freeAt?.milliseconds) }
    }

    /// A watch's rows for `placement`: every rule of its line items (each once, in order) with
    /// when it frees at the end, then each other rule that refused (the full-screen rules) with
    /// the instant its last refusal named; each with how many times it refused.
    /// - Parameters:
    ///   - status: the rules of the placement's line items at the end (``rows(of:lineItemID:placementID:)``).
    ///   - refusals: the run's refusals, in order.
    static func watchRows(status: [Row], refusals: [CapRefusal]) -> [Row] {
        var counts: [String: Int] = [:]
        var last: [String: CapRefusal] = [:]
        for refusal in refusals {
            counts[refusal.cap, default: 0] += 1
            last[refusal.cap] = refusal
        }
        var rows: [Row] = []
        var seen = Set<String>()
        for row in status where seen.insert(row.rule).inserted {
            rows.append(Row(rule: row.rule, freeAtMilliseconds: row.freeAtMilliseconds, refused: counts[row.rule] ?? 0))
        }
        for (rule, refusal) in last.sorted(by: { $0.key < $1.key }) where !seen.contains(rule) {
            rows.append(Row(rule: rule, freeAtMilliseconds: refusal.retryAt?.milliseconds, refused: counts[rule] ?? 0))
        }
        return rows
    }
}

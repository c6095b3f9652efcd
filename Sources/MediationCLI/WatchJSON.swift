import Foundation
import Mediation

/// What `mediate --placement ID --watch --json` prints on standard output when the run ends
/// (no lines while it runs): one JSON object,
/// ```json
/// { "placement": "home_banner", "duration_s": 300, "fast": true, "interrupted": false,
///   "summary": { "auctions": 5, "filled_auctions": 5, "impressions": 5, "revenue_usd": 0.009,
///                "late_answers": 0, "networks": [ {MediationStatistics.Figures} ], "line_items": [ … ],
///                "caps": [ { "rule": "placement:level_end 2/3600s", "free_at_ms": 3600000, "refused": 3 } ] },
///   "auctions": [ {AuctionTrace} ], "debug": { … with --debug } }
/// ```
struct WatchJSON: Encodable {
    /// The totals and the per-network and per-line-item rows.
    struct Summary: Encodable {
        var auctions: Int
        var filledAuctions: Int
        var impressions: Int
        var revenueUSD: Double
        var lateAnswers: Int
        var networks: [MediationStatistics.Figures]
        var lineItems: [MediationStatistics.Figures]
        /// The watched placement's caps and pacing, each with when it frees at the end and how
        /// many times it refused (``CapsReport/watchRows(status:refusals:)``; empty without caps).
        var caps: [CapsReport.Row]

        enum CodingKeys: String, CodingKey {
            case auctions
            case filledAuctions = "filled_auctions"
            case impressions
            case revenueUSD = "revenue_usd"
            case lateAnswers = "late_answers"
            case networks
            case lineItems = "line_items"
            case caps
        }

        init(_ statistics: MediationStatistics, caps: [CapsReport.Row] = []) {
            self.caps = caps
            auctions = statistics.auctions
            filledAuctions = statistics.filledAuctions
            impressions = statistics.impressions
            revenueUSD = statistics.revenueUSD
            lateAnswers = statistics.lateAnswers
            networks = statistics.networks
            lineItems = statistics.lineItems
        }
    }

    var placement: String
    var durationSeconds: Double
    var fast: Bool
    var interrupted: Bool
    var summary: Summary
    var auctions: [AuctionTrace]
    var debug: DebugReport.JSON?

    enum CodingKeys: String, CodingKey {
        case placement
        case durationSeconds = "duration_s"
        case fast, interrupted, summary, auctions, debug
    }

    /// Pretty-printed JSON with sorted keys and a trailing newline, or `nil` if it cannot be
    /// encoded (not expected: non-finite numbers are written as strings).
    func rendered() -> String? {
        try? ReportFormat.json(self)
    }
}

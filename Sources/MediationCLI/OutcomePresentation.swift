import Mediation

/// How a source's outcome looks in every report (the table's detail column, the HTML
/// timeline's colours and legend): the one place to add a new outcome. Keyed by the outcome's
/// ``SourceOutcome/status`` string, so a status this code does not know yet still renders
/// (grey, its status as label).
enum OutcomePresentation {
    /// The statuses the legend lists, in order, with their colours (CSS hex) and meanings.
    static let legend: [(status: String, colour: String, meaning: String)] = [
        ("won", "#2e7d32", "won the auction"),
        ("lost", "#f9a825", "answered with an ad and lost"),
        ("no_fill", "#90a4ae", "answered without an ad"),
        ("error", "#c62828", "the request failed"),
        ("timeout", "#6a1b9a", "no answer by its limit"),
        ("cancelled", "#8d6e63", "asked, cancelled when it could no longer win"),
        ("not_asked", "#e0e0e0", "never asked (tier not reached, under the floor)"),
    ]

    /// The colour (CSS hex) of `status`; grey for a status not in ``legend``.
    static func colour(_ status: String) -> String {
        legend.first { $0.status == status }?.colour ?? "#757575"
    }

    /// The detail column: the outcome's reason (loss reason, no-fill reason, error, the limit
    /// a timeout hit and its length, the value a cancelled source could not beat, why a
    /// source was not asked and, for a paused network, when it is tried again), then its late answer if any. Not escaped: callers escape for
    /// their medium.
    static func detail(_ source: AuctionTrace.Source) -> String {
        var text: String
        switch source.outcome {
        case .lost(let reason): text = reason.description
        case .noFill(let reason): text = reason.description
        case .error(let error): text = error.description
        case .timeout(let limit): text = HumanReport.timeoutDetail(limit) + (source.limitMilliseconds.map { " (\(ReportFormat.milliseconds($0)))" } ?? "")
        case .cancelled(let value): text = value.map { "could not beat \(ReportFormat.money($0)) USD" } ?? "the caller gave up"
        case .notAsked(let reason):
            text = reason == .tierNotReached ? "waterfall tier not reached" : reason == .underFloor ? "eCPM under the placement's floor" : reason.rawValue
            // A paused network says when it is tried again (docs/health.md).
            if let retry = source.retryAtMilliseconds { text += "; retry at \(ReportFormat.milliseconds(retry))" }
        case .won: text = ""
        }
        if let late = source.lateAnswer {
            text += (text.isEmpty ? "" : "; ") + "late answer at \(ReportFormat.milliseconds(late.atOffsetMilliseconds))" + (late.released ? ", ad released" : "")
        }
        return text
    }
}

/// The per-network and per-line-item statistics as table rows (watch summary, HTML report).
enum StatisticsTable {
    /// The column titles.
    static let header = ["ID", "NETWORK", "REQUESTS", "FILLS", "FILL RATE", "WINS", "WIN RATE", "TIMEOUTS", "ERRORS", "P50 MS", "P95 MS", "P99 MS", "IMPRESSIONS", "REVENUE USD"]

    /// One row of cells per line of `statistics`, ids escaped for a terminal.
    static func rows(_ statistics: [MediationStatistics.Figures]) -> [[String]] {
        statistics.map { row in
            [
                DisplayText.escaped(row.id), DisplayText.escaped(row.network), "\(row.requests)", "\(row.fills)", percent(row.fillRate),
                "\(row.wins)", percent(row.winRate), "\(row.timeouts)", "\(row.errors)",
                ReportFormat.millis(row.latencyP50Milliseconds), ReportFormat.millis(row.latencyP95Milliseconds), ReportFormat.millis(row.latencyP99Milliseconds),
                "\(row.impressions)", ReportFormat.money(row.revenueUSD, digits: 6),
            ]
        }
    }

    /// `62.5%`, or `-`.
    static func percent(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "-" }
        return ReportFormat.money(value * 100, digits: 1) + "%"
    }

}

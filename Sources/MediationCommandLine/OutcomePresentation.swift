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
        ("cancelled", "#bdbdbd", "cancelled or never asked"),
        ("late", "#ef6c00", "answered after the auction ended"),
    ]

    /// The colour (CSS hex) of `status`; grey for a status not in ``legend``.
    static func colour(_ status: String) -> String {
        legend.first { $0.status == status }?.colour ?? "#757575"
    }

    /// The detail column: the loss reason, the no-fill reason, the error or the limit a
    /// timeout hit (empty for the others). Not escaped: callers escape for their medium.
    static func detail(_ outcome: SourceOutcome) -> String {
        switch outcome {
        case .lost(let reason): reason.description
        case .noFill(let reason): reason.description
        case .error(let error): error.description
        case .timeout(let limit): HumanReport.timeoutDetail(limit)
        case .won, .cancelled, .late: ""
        }
    }
}

/// The per-network and per-line-item statistics as table rows (watch summary, HTML report).
enum StatisticsTable {
    /// The column titles.
    static let header = ["ID", "NETWORK", "REQUESTS", "FILLS", "FILL RATE", "WINS", "WIN RATE", "TIMEOUTS", "ERRORS", "P50 MS", "P95 MS", "P99 MS", "IMPRESSIONS", "REVENUE USD"]

    /// One row of cells per line of `statistics`, ids escaped for a terminal.
    static func rows(_ statistics: [SourceStatistics]) -> [[String]] {
        statistics.map { row in
            [
                DisplayText.escaped(row.id), DisplayText.escaped(row.network), "\(row.requests)", "\(row.fills)", percent(row.fillRate),
                "\(row.wins)", percent(row.winRate), "\(row.timeouts)", "\(row.errors)",
                millis(row.latencyP50Milliseconds), millis(row.latencyP95Milliseconds), millis(row.latencyP99Milliseconds),
                "\(row.impressions)", WatchPrinter.money(row.revenueUSD, digits: 6),
            ]
        }
    }

    /// `62.5%`, or `-`.
    static func percent(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "-" }
        return WatchPrinter.money(value * 100, digits: 1) + "%"
    }

    /// `90`, or `-`.
    static func millis(_ value: Double?) -> String {
        value.map(WatchPrinter.millis) ?? "-"
    }
}

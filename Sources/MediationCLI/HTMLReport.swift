import Foundation
import Mediation

/// `--report FILE.html`: a self-contained report of a one-shot auction or a watch run. It is
/// well-formed XHTML (it parses as XML) with inline CSS and inline SVG, and needs no script,
/// font or image from anywhere: it opens offline in any browser.
///
/// For each auction (a watch shows its first ``maximumAuctions``): a timeline with one bar per
/// asked source (from when it was asked to when it answered, or to the auction's end when it
/// did not), coloured by outcome (``OutcomePresentation``), against a dashed deadline line and
/// the auction's end, with a legend; then the per-source table. A watch adds the summary
/// tables per network and per line item (``MediationStatistics``). Every text from the config
/// or a network is escaped (``HTMLReport/HTML.escape(_:)``).
enum HTMLReport {
    /// The most auctions drawn in one report.
    static let maximumAuctions = 50

    /// What a report shows.
    struct Content {
        /// The placement.
        var placement: MediationConfiguration.Placement
        /// `one-shot auction` or `watch, 300 s on virtual time`.
        var runDescription: String
        /// The auctions, in order.
        var traces: [AuctionTrace]
        /// The watch summary, if any.
        var statistics: MediationStatistics?
        /// A watch's network health (R24): each network paused at least once, its pauses and
        /// resumes, and whether it was paused at the end.
        var health: [WatchPrinter.HealthTally] = []
        /// A watch's caps and pacing, each with when it frees and how many times it refused.
        var caps: [CapsReport.Row] = []
    }

    /// Renders the report.
    static func render(_ content: Content) -> String {
        let title = "mediate report: \(content.placement.id)"
        var html = """
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
        <head>
        <meta charset="utf-8"/>
        <title>\(HTML.escape(title))</title>
        <style>
        \(css)
        </style>
        </head>
        <body>
        <h1>\(HTML.escape(title))</h1>
        <p class="meta">\(HTML.escape(content.runDescription)); \(HTML.escape(content.placement.format.description)), \(HTML.escape(content.placement.mode.rawValue)), deadline \(Int(content.placement.deadline.milliseconds.rounded())) ms; \(content.traces.count) auction\(content.traces.count == 1 ? "" : "s")</p>

        """
        html += legend()
        if let statistics = content.statistics {
            html += "<h2>Summary</h2>\n"
            html += "<p class=\"meta\">\(HumanReport.counted(statistics.auctions, "auction")) (\(statistics.filledAuctions) filled), \(HumanReport.counted(statistics.impressions, "impression")), revenue $\(ReportFormat.money(statistics.revenueUSD, digits: 6)) USD, \(HumanReport.counted(statistics.lateAnswers, "late answer")). Latency percentiles are nearest-rank; fill rate = fills / requests, win rate = wins / fills.</p>\n"
            html += "<h3>Per network</h3>\n" + statisticsTable(statistics.networks, kind: "networks")
            html += "<h3>Per line item</h3>\n" + statisticsTable(statistics.lineItems, kind: "line-items")
            html += "<h3>Network health (R24)</h3>\n" + healthTable(content.health)
            html += "<h3>Caps and pacing</h3>\n" + capsTable(content.caps)
        }
        for (number, trace) in content.traces.prefix(maximumAuctions).enumerated() {
            html += auctionSection(trace, number: number + 1)
        }
        if content.traces.count > maximumAuctions {
            html += "<p class=\"meta\">\(content.traces.count - maximumAuctions) later auctions not drawn.</p>\n"
        }
        html += "</body>\n</html>\n"
        return html
    }

    // MARK: - Sections

    private static func legend() -> String {
        var html = "<ul class=\"legend\">\n"
        for entry in OutcomePresentation.legend {
            html += "<li><span class=\"swatch\" style=\"background:\(entry.colour)\"></span>\(HTML.escape(entry.status)): \(HTML.escape(entry.meaning))</li>\n"
        }
        html += "<li><span class=\"swatch deadline-swatch\"></span>deadline</li>\n"
        html += "<li><span class=\"swatch end-swatch\"></span>auction end</li>\n"
        html += "<li><span class=\"swatch late-swatch\"></span>late answer (after its outcome was set; its ad released)</li>\n"
        return html + "</ul>\n"
    }

    private static func auctionSection(_ trace: AuctionTrace, number: Int) -> String {
        let winner = trace.winner.map { "winner \($0) at $\(ReportFormat.money(trace.winningECPM ?? 0))" } ?? "no fill"
        var html = "<section class=\"auction\">\n"
        html += "<h2>Auction \(number): \(HTML.escape(trace.auctionID))</h2>\n"
        html += "<p class=\"meta\">\(HTML.escape(winner)); started at \(seconds(trace.startedAtMilliseconds)) s, ended after \(ReportFormat.millis(trace.durationMilliseconds)) ms, deadline \(ReportFormat.millis(trace.deadlineMilliseconds - trace.startedAtMilliseconds)) ms after the start</p>\n"
        html += timeline(trace)
        html += sourceTable(trace)
        return html + "</section>\n"
    }

    /// The SVG timeline: one row per source, time from 0 to a little past the deadline.
    static func timeline(_ trace: AuctionTrace) -> String {
        let labelWidth = 240.0, chartWidth = 640.0, rowHeight = 26.0, top = 28.0
        let deadline = max(trace.deadlineMilliseconds - trace.startedAtMilliseconds, 0)
        let end = max(trace.durationMilliseconds, 0)
        var span = max(deadline, end)
        for source in trace.sources {
            if let start = source.startOffsetMilliseconds { span = max(span, start + (source.latencyMilliseconds ?? 0)) }
        }
        span = finite(span) > 0 ? finite(span) * 1.05 : 1
        func x(_ milliseconds: Double) -> Double { labelWidth + min(max(finite(milliseconds), 0), span) / span * chartWidth }
        let rowsBottom = top + Double(trace.sources.count) * rowHeight + 4
        let height = rowsBottom + 20
        let width = labelWidth + chartWidth + 20
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"\(f(width))\" height=\"\(f(height))\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"timeline of auction \(HTML.escape(trace.auctionID))\">\n"
        // Axis ticks.
        let step = tickStep(span)
        var tick = 0.0
        while tick <= span {
            svg += "<line class=\"tick\" x1=\"\(f(x(tick)))\" y1=\"\(f(top - 6))\" x2=\"\(f(x(tick)))\" y2=\"\(f(rowsBottom))\"/>\n"
            svg += "<text class=\"axis\" x=\"\(f(x(tick)))\" y=\"\(f(top - 10))\" text-anchor=\"middle\">\(Int(tick)) ms</text>\n"
            tick += step
        }
        for (row, source) in trace.sources.enumerated() {
            let y = top + Double(row) * rowHeight
            let status = source.outcome.status
            svg += "<text class=\"label\" x=\"4\" y=\"\(f(y + 17))\">\(HTML.escape(clip(source.lineItemID, 30)))</text>\n"
            if let start = source.startOffsetMilliseconds {
                let stop = source.latencyMilliseconds.map { start + $0 } ?? end
                let x0 = x(start)
                let barWidth = max(x(stop) - x0, 2)
                let tip = "\(source.lineItemID) (\(source.network)): \(source.outcome.description), asked at \(ReportFormat.millis(start)) ms" + (source.latencyMilliseconds.map { ", answered after \(ReportFormat.millis($0)) ms" } ?? ", no answer")
                svg += "<rect class=\"bar\" data-status=\"\(HTML.escape(status))\" x=\"\(f(x0))\" y=\"\(f(y + 4))\" width=\"\(f(barWidth))\" height=\"\(f(rowHeight - 8))\" rx=\"3\" fill=\"\(OutcomePresentation.colour(status))\"><title>\(HTML.escape(tip))</title></rect>\n"
                svg += "<text class=\"status\" x=\"\(f(min(x0 + barWidth + 4, labelWidth + chartWidth - 60)))\" y=\"\(f(y + 17))\">\(HTML.escape(status))</text>\n"
                if let late = source.lateAnswer {
                    let lateX = x(late.atOffsetMilliseconds)
                    svg += "<circle class=\"late\" cx=\"\(f(lateX))\" cy=\"\(f(y + rowHeight / 2))\" r=\"5\"><title>late answer at \(ReportFormat.millis(late.atOffsetMilliseconds)) ms\(late.released ? ", ad released" : "")</title></circle>\n"
                }
            } else {
                svg += "<text class=\"status not-asked\" x=\"\(f(labelWidth + 4))\" y=\"\(f(y + 17))\">\(HTML.escape(status))</text>\n"
            }
        }
        svg += "<line class=\"end\" x1=\"\(f(x(end)))\" y1=\"\(f(top - 4))\" x2=\"\(f(x(end)))\" y2=\"\(f(rowsBottom + 4))\"><title>auction end \(ReportFormat.millis(end)) ms</title></line>\n"
        svg += "<text class=\"marker end-label\" x=\"\(f(x(end)))\" y=\"\(f(height - 3))\" text-anchor=\"start\">end \(ReportFormat.millis(end)) ms</text>\n"
        svg += "<line class=\"deadline\" x1=\"\(f(x(deadline)))\" y1=\"\(f(top - 4))\" x2=\"\(f(x(deadline)))\" y2=\"\(f(rowsBottom + 4))\"><title>deadline \(ReportFormat.millis(deadline)) ms</title></line>\n"
        svg += "<text class=\"marker deadline-label\" x=\"\(f(x(deadline)))\" y=\"\(f(height - 3))\" text-anchor=\"end\">deadline \(ReportFormat.millis(deadline)) ms</text>\n"
        return svg + "</svg>\n"
    }

    /// Each paused network's (and line item's, under its network) pauses, resumes and state at
    /// the end; a sentence when none was.
    private static func healthTable(_ health: [WatchPrinter.HealthTally]) -> String {
        guard !health.isEmpty else { return "<p class=\"meta\">No network was paused: every network was asked in every auction.</p>\n" }
        var html = "<table class=\"health\"><thead><tr><th>network</th><th>paused</th><th>resumed</th><th>at the end</th></tr></thead><tbody>\n"
        for entry in health {
            let state = entry.pausedUntil.map { "paused until \($0)" } ?? "asked"
            html += "<tr><td>\(HTML.escape(WatchPrinter.healthSubject(entry.network, lineItem: entry.lineItem)))</td><td>\(entry.pauses)</td><td>\(entry.resumes)</td><td>\(HTML.escape(state))</td></tr>\n"
        }
        return html + "</tbody></table>\n"
    }

    /// Each cap or pacing rule of the placement, how many times it refused and when it frees
    /// (``CapsReport``); a sentence when it has none.
    static func capsTable(_ caps: [CapsReport.Row]) -> String {
        guard !caps.isEmpty else { return "<p class=\"meta\">No cap or pacing applies to this placement.</p>\n" }
        var html = "<table class=\"caps\"><thead><tr><th>rule</th><th>refused</th><th>free</th></tr></thead><tbody>\n"
        for row in caps {
            html += "<tr><td>\(HTML.escape(row.rule))</td><td>\(row.refused ?? 0)</td><td>\(HTML.escape(CapsReport.free(row.freeAtMilliseconds)))</td></tr>\n"
        }
        return html + "</tbody></table>\n"
    }

    private static func sourceTable(_ trace: AuctionTrace) -> String {
        var html = "<table class=\"sources\">\n<thead><tr><th>Line item</th><th>Network</th><th>Pricing</th><th>Start</th><th>Latency</th><th>Outcome</th><th>eCPM</th><th>Released</th><th>Loss reason / detail</th></tr></thead>\n<tbody>\n"
        for source in trace.sources {
            let start: String = source.startOffsetMilliseconds.map { "\(ReportFormat.millis($0)) ms" } ?? "-"
            let latency: String = source.latencyMilliseconds.map { "\(ReportFormat.millis($0)) ms" } ?? "-"
            let raw: String = source.rawPrice.map { "(\($0))" } ?? "-"
            let value: String = source.eCPM.map { ReportFormat.money($0) } ?? raw
            let pricing = source.pricing == .bidder ? "bidder" : "fixed"
            let status = source.outcome.status
            var row = "<tr class=\"source\"><td>\(HTML.escape(source.lineItemID))</td><td>\(HTML.escape(source.network))</td><td>\(pricing)</td>"
            row += "<td>\(HTML.escape(start))</td><td>\(HTML.escape(latency))</td>"
            row += "<td><span class=\"swatch\" style=\"background:\(OutcomePresentation.colour(status))\"></span>\(HTML.escape(status))</td>"
            row += "<td>\(HTML.escape(value))</td><td>\(source.adReleased || source.lateAnswer?.released == true ? "yes" : "-")</td><td>\(HTML.escape(OutcomePresentation.detail(source)))</td></tr>\n"
            html += row
        }
        return html + "</tbody>\n</table>\n"
    }

    /// The statistics columns (``StatisticsTable/header``), in words that fit a page.
    private static let htmlStatisticsHeader = ["Id", "Network", "Requests", "Fills", "Fill rate", "Wins", "Win rate", "Timeouts", "Errors", "p50 ms", "p95 ms", "p99 ms", "Impressions", "Revenue USD"]

    private static func statisticsTable(_ rows: [MediationStatistics.Figures], kind: String) -> String {
        var html = "<table class=\"stats \(kind)\">\n<thead><tr>" + htmlStatisticsHeader.map { "<th>\(HTML.escape($0))</th>" }.joined() + "</tr></thead>\n<tbody>\n"
        for row in StatisticsTable.rows(rows) {
            html += "<tr class=\"stat\">" + row.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    // MARK: - Text


    private static func clip(_ text: String, _ length: Int) -> String {
        text.count > length ? String(text.prefix(length - 1)) + "…" : text
    }

    private static func finite(_ value: Double) -> Double {
        value.isFinite ? min(value, 1e9) : 0
    }

    private static func f(_ value: Double) -> String {
        DecimalText.fixed(finite(value), digits: 1)
    }

    private static func seconds(_ milliseconds: Double) -> String {
        DecimalText.fixed(finite(milliseconds) / 1000, digits: 3)
    }

    /// A round tick step giving 4 to 10 ticks over `span` ms.
    private static func tickStep(_ span: Double) -> Double {
        for step in [1.0, 2, 5, 10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000] where span / step <= 10 {
            return step
        }
        return max(span / 10, 1)
    }

    private static let css = """
    body { font: 14px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #212121; }
    h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; } h3 { font-size: 14px; }
    .meta { color: #555; }
    table { border-collapse: collapse; margin: 8px 0 16px; }
    th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; font-variant-numeric: tabular-nums; white-space: nowrap; }
    th { background: #f5f5f5; }
    table.stats { font-size: 12px; } table.stats th, table.stats td { padding: 2px 6px; }
    table.stats td:nth-child(n+3) { text-align: right; }
    .legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 14px; }
    .swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
    .deadline-swatch { border-left: 2px dashed #d32f2f; width: 0; border-radius: 0; }
    .end-swatch { border-left: 2px solid #1565c0; width: 0; border-radius: 0; }
    svg.timeline { display: block; background: #fafafa; border: 1px solid #e0e0e0; }
    svg .label { font-size: 12px; fill: #212121; }
    svg .status { font-size: 11px; fill: #424242; }
    svg .not-asked { fill: #9e9e9e; font-style: italic; }
    svg .axis { font-size: 10px; fill: #757575; }
    svg .tick { stroke: #e0e0e0; stroke-width: 1; }
    svg .deadline { stroke: #d32f2f; stroke-width: 2; stroke-dasharray: 6 4; }
    svg .end { stroke: #1565c0; stroke-width: 2; }
    .late-swatch { background: #ef6c00; border-radius: 6px; }
    svg .late { fill: #ef6c00; stroke: #fff; stroke-width: 1; }
    svg .marker { font-size: 11px; } svg .end-label { fill: #1565c0; } svg .deadline-label { fill: #d32f2f; }
    """
}

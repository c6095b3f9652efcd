import Foundation
import Mediation
import MediationSimulation

/// The text `mediate simulate` prints: fixed formats, no wall-clock figure, so the same
/// arguments print the same bytes. Ids from the configuration are escaped (R17).
enum SimulationText {
    // MARK: - Run

    static func run(_ report: SimulationReport, header: SimulationHeader) -> String {
        var lines = ["\(safe(report.placementID)): \(HumanReport.counted(report.requests, "auction"))\(timing(report)), seed \(header.seed) (config \(safe(header.configPath)), market \(safe(header.marketPath)))", ""]
        lines += summary(report)
        lines.append("")
        lines += networkTable(report)
        lines += healthEvents(report)
        if let windows = report.windows {
            lines.append("")
            lines += windowTable(windows, networks: report.networks.map(\.network), width: report.windowSeconds ?? 60)
        }
        for outage in report.outages ?? [] {
            lines.append("")
            lines += outageLines(outage)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What a network with outages saw (``OutageFigures``): its up time, its down time, its
    /// onsets.
    static func outageLines(_ figures: OutageFigures) -> [String] {
        var lines = ["\(safe(figures.network)) up and down (by window, wholly up or wholly in an outage):"]
        lines.append("  up time: asked in \(fixed(figures.upAskedShare * 100, 1)) % of its auctions (\(figures.upAsked) of \(figures.upRequests))")
        lines.append("  down time: asked in \(figures.downAsked) of \(figures.downRequests) auctions (each waited for it, at most its limit, or got its error)")
        if let low = figures.onsetAsked.min(), let high = figures.onsetAsked.max() {
            let mean = Double(figures.onsetAsked.reduce(0, +)) / Double(figures.onsetAsked.count)
            lines.append("  at each outage's onset, until it was paused: \(low) to \(high) auctions asked it (mean \(fixed(mean, 1)), \(HumanReport.counted(figures.onsetAsked.count, "onset")))")
            if figures.onsetReleasedByPause.count == figures.onsetAsked.count {
                let kept = zip(figures.onsetAsked, figures.onsetReleasedByPause).map { $0 - $1 }
                lines.append("    of them, not waited for once it was paused: \(range(figures.onsetReleasedByPause)); the others (waited until its limit, unless their auction ended sooner): \(range(kept))")
            }
        }
        if figures.downTimeouts > 0 {
            let atLimit = figures.downTimeouts - figures.downTimeoutsEndedByPause
            lines.append("  down time: \(figures.downTimeouts) of its requests timed out (\(atLimit) at their limit, \(figures.downTimeoutsEndedByPause) ended by its pause), waited for \(fixed(figures.downTimeoutWaitSeconds, 1)) s in all; \(HumanReport.counted(figures.downFailedProbes, "failed probe"))")
        }
        if figures.mixedWindows > 0 {
            lines.append("  \(HumanReport.counted(figures.mixedWindows, "window")) partly up, partly down: in neither count (a --window that divides the outages' edges leaves none)")
        }
        return lines
    }

    /// `"0 to 12 (mean 4.1, 246 in all)"`: the spread of `counts` (not empty).
    private static func range(_ counts: [Int]) -> String {
        let total = counts.reduce(0, +)
        let mean = counts.isEmpty ? 0 : Double(total) / Double(counts.count)
        return "\(counts.min() ?? 0) to \(counts.max() ?? 0) (mean \(fixed(mean, 1)), \(total) in all)"
    }

    /// `" at 10 per second over 3600 s"` for a timed run, else empty.
    static func timing(_ report: SimulationReport) -> String {
        guard let rate = report.rate else { return "" }
        return " at \(value(rate)) per second over \(value((Double(report.requests) / rate).rounded(.up))) s of virtual time"
    }

    /// The health line of a report.
    static func healthSummary(_ health: HealthFigures) -> String {
        guard health.enabled else { return "off" }
        return "on: \(HumanReport.counted(health.pauses, "pause")), \(HumanReport.counted(health.resumes, "resume")), \(HumanReport.counted(health.pausedRequests, "request")) not made"
    }

    /// The first pauses and resumes, one a line, at most `limit`.
    static func healthEvents(_ report: SimulationReport, limit: Int = 40) -> [String] {
        let events = report.health.events
        guard !events.isEmpty else { return [] }
        var lines = ["", "network health events (virtual time\(report.rate == nil ? " from each shard's start" : " from the run's start")):"]
        for event in events.prefix(limit) {
            var line = "  " + clock(event.atMilliseconds) + "  " + safe(event.network) + (event.lineItem.map { " line item " + safe($0) } ?? "") + " " + event.event
            if let cause = event.cause { line += " (\(cause)" + (event.failures.map { ", \($0) failures of \(event.outcomes ?? 0)" } ?? "") + ")" }
            if let retry = event.retryAtMilliseconds { line += ", retry at " + clock(retry) }
            if report.rate == nil { line += ", shard \(event.shard)" }
            lines.append(line)
        }
        if events.count > limit || report.health.pauses + report.health.resumes > events.count {
            lines.append("  … \(report.health.pauses + report.health.resumes - min(limit, events.count)) more (in --json, up to \(HealthFigures.listedEvents))")
        }
        return lines
    }

    /// `mm:ss.mmm` (or `h:mm:ss.mmm`) of a virtual instant in milliseconds.
    static func clock(_ milliseconds: Int64) -> String {
        let total = max(0, milliseconds)
        let hours = total / 3_600_000
        let minutes = total / 60_000 % 60
        let seconds = total / 1000 % 60
        let millis = total % 1000
        let tail = String(format: "%02lld:%02lld.%03lld", minutes, seconds, millis)
        return hours > 0 ? "\(hours):" + tail : tail
    }

    /// One line per window: its start, requests, fill, time to ad p50, and each network's wins
    /// over the requests made to it.
    static func windowTable(_ windows: [WindowFigures], networks: [String], width: Double) -> [String] {
        var lines = ["per \(value(width)) s window (network: wins/asked):", pad("start", 11) + lpad("requests", 9) + lpad("fill", 8) + lpad("p50 ms", 8) + networks.map { lpad(short($0), 15) }.joined()]
        for window in windows {
            var line = pad(clock(Int64((window.startSeconds * 1000).rounded())), 11) + lpad(String(window.requests), 9) + lpad(fixed(window.fillRate, 3), 8) + lpad(ms(window.timeToAd.p50), 8)
            for network in networks {
                let figures = window.network(network)
                line += lpad(figures.map { "\($0.wins)/\($0.asked)" } ?? "-", 15)
            }
            lines.append(line)
        }
        return lines
    }

    /// A network id cut to 14 characters for a column head.
    private static func short(_ id: String) -> String {
        let safe = safe(id)
        return safe.count > 14 ? String(safe.prefix(13)) + "…" : safe
    }

    /// The summary figures of one report.
    static func summary(_ report: SimulationReport) -> [String] {
        [
            row("requests", String(report.requests)),
            row("fill rate", fixed(report.fillRate, 4), report.fillRateInterval, 4),
            row("revenue / 1000 requests", "$" + fixed(report.revenuePer1000Requests, 4), report.revenuePer1000RequestsInterval, 4),
            row("known revenue / 1000", "$" + fixed(report.knownRevenuePer1000Requests, 4)),
            row("mean winning eCPM", report.meanWinningECPM.map { "$" + fixed($0, 4) } ?? "-", report.meanWinningECPMInterval, 4),
            row("time to ad p50 / p95 / p99", "\(ms(report.timeToAd.p50)) / \(ms(report.timeToAd.p95)) / \(ms(report.timeToAd.p99)) ms"),
            row("oracle ratio, deadline", report.oracle.ratio.map { fixed($0, 4) } ?? "-", report.oracle.ratioInterval, 4),
            row("oracle ratio, unbounded", report.oracle.unboundedRatio.map { fixed($0, 4) } ?? "-", report.oracle.unboundedRatioInterval, 4),
            row("revenue, USD", fixed(report.revenueUSD, 6) + " (oracle " + fixed(report.oracle.revenueUSD, 6) + ", unbounded " + fixed(report.oracle.unboundedRevenueUSD, 6) + ")"),
            row("network health", healthSummary(report.health)),
        ]
    }

    /// One line per network: asked, fills, wins, win share, timeouts, errors, revenue.
    static func networkTable(_ report: SimulationReport) -> [String] {
        let width = max(8, report.networks.map { safe($0.network).count }.max() ?? 0) + 2
        var lines = [pad("network", width) + lpad("asked", 10) + lpad("fills", 10) + lpad("wins", 10) + lpad("win share", 11) + lpad("timeouts", 10) + lpad("errors", 9) + lpad("paused", 9) + lpad("p50 ms", 8) + lpad("revenue USD", 14)]
        for network in report.networks {
            lines.append(pad(safe(network.network), width) + lpad(String(network.asked), 10) + lpad(String(network.fills), 10) + lpad(String(network.wins), 10)
                + lpad(fixed(network.winShare * 100, 1) + " %", 11) + lpad(String(network.timeouts), 10) + lpad(String(network.errors), 9)
                + lpad(String(network.paused), 9) + lpad(ms(network.answerLatency.p50), 8) + lpad(fixed(network.revenueUSD, 6), 14))
        }
        return lines
    }

    // MARK: - Compare

    static func compare(_ comparison: SimulationComparison, header: SimulationHeader, otherPath: String, aLabel: String? = nil) -> String {
        var lines = [
            "\(safe(comparison.a.placementID)): A = \(safe(aLabel ?? header.configPath)), B = \(safe(otherPath)); \(HumanReport.counted(comparison.a.requests, "paired auction"))\(timing(comparison.a)) on the same draws, seed \(header.seed) (market \(safe(header.marketPath)))",
            "",
        ]
        lines += differenceTable(comparison.differences)
        lines.append("")
        lines.append(pad("time to ad p50 / p95 / p99", 28) + "A " + "\(ms(comparison.a.timeToAd.p50)) / \(ms(comparison.a.timeToAd.p95)) / \(ms(comparison.a.timeToAd.p99)) ms" + ", B \(ms(comparison.b.timeToAd.p50)) / \(ms(comparison.b.timeToAd.p95)) / \(ms(comparison.b.timeToAd.p99)) ms")
        lines.append("")
        let names = uniqueNetworks(comparison.a, comparison.b)
        let width = max(8, names.map { safe($0).count }.max() ?? 0) + 2
        lines.append(pad("network", width) + lpad("wins A", 10) + lpad("wins B", 10) + lpad("share A", 10) + lpad("share B", 10) + lpad("revenue A", 13) + lpad("revenue B", 13))
        for name in names {
            let a = comparison.a.network(name)
            let b = comparison.b.network(name)
            lines.append(pad(safe(name), width) + lpad(a.map { String($0.wins) } ?? "-", 10) + lpad(b.map { String($0.wins) } ?? "-", 10)
                + lpad(a.map { fixed($0.winShare * 100, 1) + " %" } ?? "-", 10) + lpad(b.map { fixed($0.winShare * 100, 1) + " %" } ?? "-", 10)
                + lpad(a.map { fixed($0.revenueUSD, 6) } ?? "-", 13) + lpad(b.map { fixed($0.revenueUSD, 6) } ?? "-", 13))
        }
        lines.append("")
        lines.append(pad("network health", 28) + "A " + healthSummary(comparison.a.health) + "; B " + healthSummary(comparison.b.health))
        for (name, report) in [("A", comparison.a), ("B", comparison.b)] {
            let events = healthEvents(report)
            if !events.isEmpty {
                lines.append("")
                lines.append("\(name), " + events[1])
                lines += events.dropFirst(2)
            }
        }
        if let windowsA = comparison.a.windows, let windowsB = comparison.b.windows {
            lines.append("")
            lines += windowComparison(windowsA, windowsB, networks: names, width: comparison.a.windowSeconds ?? 60)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line per window of two timed runs on the same draws: fill, time to ad p50, and each
    /// network's wins, A then B.
    static func windowComparison(_ a: [WindowFigures], _ b: [WindowFigures], networks: [String], width: Double) -> [String] {
        var lines = ["per \(value(width)) s window, A / B (network: wins A/B):", pad("start", 11) + lpad("requests", 9) + lpad("fill A", 8) + lpad("fill B", 8) + lpad("p50 A", 7) + lpad("p50 B", 7) + networks.map { lpad(short($0), 15) }.joined()]
        let byStartB = Dictionary(b.map { ($0.startSeconds, $0) }, uniquingKeysWith: { first, _ in first })
        for window in a {
            let other = byStartB[window.startSeconds]
            var line = pad(clock(Int64((window.startSeconds * 1000).rounded())), 11) + lpad(String(window.requests), 9) + lpad(fixed(window.fillRate, 3), 8) + lpad(other.map { fixed($0.fillRate, 3) } ?? "-", 8)
                + lpad(ms(window.timeToAd.p50), 7) + lpad(ms(other?.timeToAd.p50), 7)
            for network in networks {
                line += lpad("\(window.network(network).map { String($0.wins) } ?? "-")/\(other?.network(network).map { String($0.wins) } ?? "-")", 15)
            }
            lines.append(line)
        }
        return lines
    }

    /// `figure  A  B  B − A  (interval)` lines.
    static func differenceTable(_ differences: [FigureDifference]) -> [String] {
        var lines = [pad("figure", 26) + lpad("A", 11) + lpad("B", 11) + lpad("B - A", 12) + "   95 % interval"]
        for difference in differences {
            let digits = difference.figure == "mean_auction_ms" ? 2 : 4
            let interval = difference.interval.map { "(\(signed($0.lower, digits)) to \(signed($0.upper, digits)))" } ?? "-"
            let mark = difference.isSignificant ? "  *" : ""
            lines.append(pad(label(difference.figure), 26) + lpad(difference.a.map { fixed($0, digits) } ?? "-", 11) + lpad(difference.b.map { fixed($0, digits) } ?? "-", 11)
                + lpad(difference.difference.map { signed($0, digits) } ?? "-", 12) + "   " + interval + mark)
        }
        lines.append("(* the interval excludes 0; paired per-auction differences for means, batch means for ratios)")
        return lines
    }

    // MARK: - Sweep

    static func sweep(_ sweep: SweepResult, header: SimulationHeader) -> String {
        var lines = [
            "\(safe(sweep.baseline.placementID)): sweep of \(safe(sweep.parameter)) over \(HumanReport.counted(sweep.points.count, "value")), \(HumanReport.counted(sweep.baseline.requests, "auction")) each on the same draws, seed \(header.seed) (config \(safe(header.configPath)), market \(safe(header.marketPath)))",
            "",
            pad(safe(sweep.parameter), 14) + lpad("revenue/1000", 13) + "  " + pad("95 % interval", 20) + lpad("fill", 8) + lpad("mean eCPM", 11) + lpad("oracle", 8) + lpad("p95 ms", 8),
        ]
        func line(_ label: String, _ report: SimulationReport, best: Bool) -> String {
            let interval = report.revenuePer1000RequestsInterval.map { "\(fixed($0.lower, 4)) to \(fixed($0.upper, 4))" } ?? "-"
            return pad(label, 14) + lpad(fixed(report.revenuePer1000Requests, 4), 13) + "  " + pad(interval, 20) + lpad(fixed(report.fillRate, 4), 8)
                + lpad(report.meanWinningECPM.map { fixed($0, 4) } ?? "-", 11) + lpad(report.oracle.ratio.map { fixed($0, 4) } ?? "-", 8) + lpad(ms(report.timeToAd.p95), 8) + (best ? "  <- best" : "")
        }
        lines.append(line("as configured", sweep.baseline, best: false))
        for (index, point) in sweep.points.enumerated() {
            lines.append(line(value(point.value), point.report, best: index == sweep.bestIndex))
        }
        lines.append("")
        lines.append("best: \(safe(sweep.parameter))=\(value(sweep.best.value)), revenue / 1000 requests \(fixed(sweep.best.report.revenuePer1000Requests, 4))")
        if let difference = sweep.bestVersusBaseline.first(where: { $0.figure == "revenue_per_1000_requests" }) {
            lines.append("  vs as configured: " + describe(difference))
        }
        if let difference = sweep.bestVersusRunnerUp.first(where: { $0.figure == "revenue_per_1000_requests" }) {
            let runnerUp = sweep.points.first { $0.report.revenuePer1000Requests == difference.a }.map { value($0.value) } ?? "-"
            lines.append("  vs the runner-up (\(runnerUp)): " + describe(difference) + (difference.isSignificant ? "" : "; not distinguishable from it at this number of auctions"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func describe(_ difference: FigureDifference) -> String {
        let interval = difference.interval.map { " (95 %: \(signed($0.lower, 4)) to \(signed($0.upper, 4)))" } ?? ""
        return (difference.difference.map { signed($0, 4) } ?? "-") + interval
    }

    // MARK: - Duration

    static func placement(_ report: PlacementRunReport, header: SimulationHeader) -> String {
        var lines = [
            "\(safe(report.placementID)): \(value(report.durationSeconds)) s of virtual time in one visible view, seed \(header.seed) (config \(safe(header.configPath)), market \(safe(header.marketPath)))",
            "",
            row("auctions (filled)", "\(report.auctions) (\(report.filledAuctions))"),
            row("impressions", String(report.impressions)),
            row("revenue, USD", fixed(report.revenueUSD, 6) + " (known " + fixed(report.knownRevenueUSD, 6) + ")"),
            row("impressions per hour", fixed(report.impressionsPerHour, 2)),
            row("revenue per hour, USD", fixed(report.revenuePerHourUSD, 6)),
            "",
        ]
        let width = max(10, report.lineItems.map { safe($0.lineItemID).count }.max() ?? 0) + 1
        lines.append(pad("line item", width) + "  " + pad("network", 16) + lpad("impressions", 12) + lpad("revenue USD", 14))
        for item in report.lineItems {
            lines.append(pad(safe(item.lineItemID), width) + "  " + pad(safe(item.network), 16) + lpad(String(item.impressions), 12) + lpad(fixed(item.revenueUSD, 6), 14))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - Replay

    static func replay(_ replay: ReplayReport, header: SimulationHeader, recordingPath: String) -> String {
        let report = replay.report
        var lines = [
            "\(safe(report.placementID)): replay of \(HumanReport.counted(replay.recordedAuctions, "recorded auction")) from \(safe(recordingPath)) under \(safe(header.configPath)), seed \(header.seed) (market \(safe(header.marketPath)))",
            "answers: \(replay.recordedAnswers) as recorded, \(replay.drawnAnswers) drawn from the market" + drawnBreakdown(replay),
            "recorded: \(replay.recordedFilled) filled, revenue \(fixed(replay.recordedRevenueUSD, 6)) USD; replayed: \(report.filled) filled, revenue \(fixed(report.knownRevenueUSD, 6)) USD at the engine's values (\(signed(report.knownRevenueUSD - replay.recordedRevenueUSD, 6)))",
        ]
        if !replay.unrecordedLineItems.isEmpty {
            lines.append("note: line items the recording has no line of (every answer drawn): " + listed(replay.unrecordedLineItems.map(safe)))
        }
        for item in replay.unknownLineItems.prefix(maximumListedLineItems) {
            let at = item.firstLine.map { "line \($0): " } ?? ""
            lines.append("warning: \(at)\(item.firstPath).line_item \"\(safe(item.lineItemID))\" (network \(safe(item.network))) is not a line item of \(safe(report.placementID)) in the configuration: its \(HumanReport.counted(item.lines, "recorded line")) \(item.lines == 1 ? "is" : "are") not replayed")
        }
        if replay.unknownLineItems.count > maximumListedLineItems {
            lines.append("warning: … and \(replay.unknownLineItems.count - maximumListedLineItems) more recorded line items not in the configuration")
        }
        lines.append("")
        lines += summary(report)
        lines.append("")
        lines += networkTable(report)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The most line items a replay's text names one by one.
    static let maximumListedLineItems = 20

    /// `(…)` after a replay's drawn answers: how many were of lines recorded without an answer
    /// and how many of line items a recorded auction has no line of; empty when none were drawn.
    static func drawnBreakdown(_ replay: ReplayReport) -> String {
        guard replay.drawnAnswers > 0 else { return "" }
        let withoutAnswer = replay.drawnAnswers - replay.drawnWithoutLine
        var parts: [String] = []
        if withoutAnswer > 0 {
            parts.append("\(withoutAnswer) recorded without an answer: tiers it never reached, sources it cancelled, late answers, bids without a usable value")
        }
        if replay.drawnWithoutLine > 0 {
            parts.append("\(replay.drawnWithoutLine) of line items the recorded auction has no line of")
        }
        return " (" + parts.joined(separator: "; ") + ")"
    }

    /// The first ``maximumListedLineItems`` of `items`, comma-separated, then `… and N more`.
    static func listed(_ items: [String]) -> String {
        let shown = items.prefix(maximumListedLineItems).joined(separator: ", ")
        return items.count > maximumListedLineItems ? shown + " … and \(items.count - maximumListedLineItems) more" : shown
    }

    // MARK: - Formatting

    static func safe(_ text: String) -> String { DisplayText.escaped(text) }

    static func label(_ figure: String) -> String {
        switch figure {
        case "fill_rate": "fill rate"
        case "revenue_per_1000_requests": "revenue / 1000 requests"
        case "known_revenue_per_1000_requests": "known revenue / 1000"
        case "mean_auction_ms": "mean auction ms"
        case "mean_winning_ecpm": "mean winning eCPM"
        case "oracle_ratio": "oracle ratio, deadline"
        case "unbounded_oracle_ratio": "oracle ratio, unbounded"
        default: figure
        }
    }

    static func row(_ label: String, _ value: String, _ interval: ConfidenceInterval? = nil, _ digits: Int = 4) -> String {
        pad(label, 28) + value + (interval.map { "  (95 %: \(fixed($0.lower, digits)) to \(fixed($0.upper, digits)))" } ?? "")
    }

    static func ms(_ value: Int?) -> String { value.map(String.init) ?? "-" }

    /// `value` with `digits` decimals (never traps; a non-finite value prints as Swift does).
    static func fixed(_ value: Double, _ digits: Int) -> String {
        DecimalText.fixed(value, digits: digits)
    }

    /// `fixed` with a sign: `+0.0123`, `-0.0040`, `0.0000`.
    static func signed(_ value: Double, _ digits: Int) -> String {
        let text = fixed(value, digits)
        return text.hasPrefix("-") || text == fixed(0, digits) ? text : "+" + text
    }

    /// `value` with 4 significant digits and a sign (`+3.333e-7`, `-0.01235`, `0`): a paired
    /// difference, which fixed decimals would print as 0 on a market of tiny prices.
    static func signedSignificant(_ value: Double) -> String {
        let text = DecimalText.significant(value, digits: 4)
        return text.hasPrefix("-") || value == 0 || !value.isFinite ? text : "+" + text
    }

    /// A sweep value as short as it reads: `0.75`, `1500`.
    static func value(_ value: Double) -> String {
        guard value.isFinite else { return String(value) }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return DecimalText.trimmed(value, minimumDigits: 0, maximumDigits: 6)
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count > width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    static func lpad(_ text: String, _ width: Int) -> String {
        text.count > width ? " " + text : String(repeating: " ", count: width - text.count) + text
    }

    private static func uniqueNetworks(_ a: SimulationReport, _ b: SimulationReport) -> [String] {
        var names: [String] = []
        for network in a.networks.map(\.network) + b.networks.map(\.network) where !names.contains(network) {
            names.append(network)
        }
        return names
    }
}

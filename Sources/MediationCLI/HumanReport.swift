import Foundation
import Mediation

/// The table `mediate --placement ID` prints: the placement, the winner (network, line item,
/// eCPM, creative, format and size in whole points), the auction's start, end and deadline in
/// whole milliseconds from its start, and one row per source with its start offset, latency,
/// outcome, eCPM, loss reason or detail (a timeout's limit, the value a cancelled source could
/// not beat, why a source was not asked, a late answer), and whether its ad was released;
/// then a legend for rejected prices and the sources' warnings and errors. Everything a network or the configuration supplied (ids, creative ids,
/// reasons, messages) has its control characters escaped (`\u{1B}`, `\u{0A}` …), so each row
/// stays one line and nothing reaches the terminal raw (R17).
enum HumanReport {
    /// Renders the report.
    /// - Parameters:
    ///   - placement: the placement's configuration.
    ///   - outcome: the auction's outcome.
    /// - Returns: the text, ending with a newline.
    static func render(placement: MediationConfiguration.Placement, outcome: OneShotOutcome) -> String {
        let trace = outcome.trace
        var lines: [String] = []
        lines.append("Placement \(safe(placement.id)): \(describe(placement))")
        if let winner = outcome.winner {
            lines.append("Winner: \(safe(winner.network)) / \(safe(winner.lineItem)), eCPM \(ReportFormat.money(winner.eCPM)) USD, creative \(safe(NetworkValueBounds.identifier(winner.creativeID))), \(winner.format) \(wholePoints(winner.size)) pt")
        } else {
            let count = placement.sources.count
            lines.append("No fill: none of the \(count) \(count == 1 ? "source" : "sources") filled \(safe(placement.id))")
        }
        lines.append("Auction \(safe(trace.auctionID)): config version \(trace.configVersion); \(timing(trace))")
        lines.append("")

        let header = ["LINE ITEM", "NETWORK", "PRICING", "START", "LATENCY", "OUTCOME", "ECPM", "RELEASED", "LOSS REASON / DETAIL"]
        var rows: [[String]] = []
        for source in trace.sources {
            rows.append([
                safe(source.lineItemID),
                safe(source.network),
                source.pricing == .bidder ? "bidder" : source.tier.map { "fixed, tier \($0)" } ?? "fixed",
                source.startOffsetMilliseconds.map { ReportFormat.milliseconds($0) } ?? "-",
                source.latencyMilliseconds.map { ReportFormat.milliseconds($0) } ?? "-",
                source.outcome.status,
                source.eCPM.map { ReportFormat.money($0) } ?? source.rawPrice.map { "raw \(rawPrice($0))" } ?? "-",
                source.adReleased || source.lateAnswer?.released == true ? "yes" : "-",
                safe(OutcomePresentation.detail(source)),
            ])
        }
        lines.append(contentsOf: table(header: header, rows: rows))
        if trace.sources.contains(where: { $0.eCPM == nil && $0.rawPrice != nil }) {
            lines.append("")
            lines.append("raw X: the price as the network sent it (in the line item's currency), rejected: see the loss reason")
        }
        // The errors are in the detail column already; the warnings are listed here.
        let notes = trace.sources.flatMap { source in
            source.warnings.map { issue in "warning: \(safe(source.lineItemID)): \(safe(issue.code)): \(safe(issue.message))" }
        }
        if !notes.isEmpty {
            lines.append("")
            lines += notes
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The auction's start, end and deadline in whole milliseconds from its start, rounded the
    /// same way, so an auction decided at its deadline never reads as an overrun.
    static func timing(_ trace: AuctionTrace) -> String {
        let deadline = trace.deadlineLengthMilliseconds
        let duration = trace.durationMilliseconds
        let ended = duration >= deadline ? "ended at the deadline, \(ReportFormat.milliseconds(deadline))" : "ended at \(ReportFormat.milliseconds(duration))"
        let wallClock = trace.startedAtWallClock.map { " \($0)" } ?? ""
        return "started\(wallClock) (\(ReportFormat.milliseconds(trace.startedAtMilliseconds)) on the engine's clock); from its start: \(ended), deadline \(ReportFormat.milliseconds(deadline))"
    }

    /// `1 auction`, `2 auctions`: a count with its noun, singular for one.
    static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// A size in whole points, e.g. `259x32` for 258.84 x 32.
    static func wholePoints(_ size: AdSize) -> String {
        func whole(_ value: Double) -> String {
            value.isFinite && abs(value) < 1e9 ? String(Int(value.rounded())) : "\(value)"
        }
        return "\(whole(size.width))x\(whole(size.height))"
    }

    /// A raw price as the network sent it, e.g. `1.5` or `nan`.
    private static func rawPrice(_ value: Double) -> String {
        "\(value)"
    }

    private static func describe(_ placement: MediationConfiguration.Placement) -> String {
        var parts = [placement.format.description]
        if let sizing = placement.bannerSizing { parts[0] += " (\(sizing))" }
        var slot: [String] = []
        if let width = placement.slot.maxWidth { slot.append("max width \(DisplayText.number(width)) pt") }
        if let height = placement.slot.maxHeight { slot.append("max height \(DisplayText.number(height)) pt") }
        if !slot.isEmpty { parts.append("slot " + slot.joined(separator: ", ")) }
        parts.append(placement.mode.rawValue)
        parts.append("deadline \(ReportFormat.milliseconds(placement.deadline.milliseconds))")
        if let floor = placement.floor { parts.append("floor \(ReportFormat.money(floor))") }
        if let refresh = placement.refreshSeconds { parts.append("refresh \(refresh) s") }
        return parts.joined(separator: ", ")
    }

    /// `text` with its control characters escaped.
    static func safe(_ text: String) -> String {
        DisplayText.escaped(text)
    }

    /// Which limit a timeout hit (R3a), for the detail column.
    static func timeoutDetail(_ limit: SourceOutcome.TimeoutLimit) -> String {
        switch limit {
        case .source: "line item timeout_ms"
        case .network: "network timeout_ms"
        case .deadline: "auction deadline"
        case .networkPaused: "network paused while waited for"
        }
    }

    /// Left-aligned columns two spaces apart, trailing spaces trimmed.
    static func table(header: [String], rows: [[String]]) -> [String] {
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (column, cell) in cells.enumerated() {
                let isLast = column == cells.count - 1
                text += isLast ? cell : cell.padding(toLength: widths[column] + 2, withPad: " ", startingAt: 0)
            }
            return text.trimmingCharacters(in: .whitespaces)
        }
        return [line(header)] + rows.map(line)
    }

}
